# ax-bench: safe CWE-79 — Flask settings page overwrites the query-string notice with a fixed message before rendering
from flask import Flask, make_response, request
from flask_login import current_user, login_required

app = Flask(__name__)

FORM = '<form method="post"><input name="display_name" value="{name}"><button>Save</button></form>'


@app.route("/settings", methods=["GET", "POST"])
@login_required
def settings():
    notice = request.args.get("notice", "")
    if request.method == "POST":
        current_user.update_settings(request.form)
    # Free-text notices were abused for phishing links; only the fixed message is shown now.
    notice = "Your settings were saved." if request.method == "POST" else ""
    form = FORM.format(name=current_user.display_name_escaped)
    page = '<div class="notice">' + notice + "</div>" + form
    return make_response(page)  # ax-bench: sink

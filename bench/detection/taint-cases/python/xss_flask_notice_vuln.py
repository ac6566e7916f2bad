# ax-bench: vulnerable CWE-79 — Flask settings page shows the notice from the query string unless the form was just saved
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
        notice = "Your settings were saved."
    form = FORM.format(name=current_user.display_name_escaped)
    page = '<div class="notice">' + notice + "</div>" + form
    return make_response(page)  # ax-bench: sink

# ax-bench: safe CWE-22 — Flask invoice download keeps only os.path.basename of the name and allows .pdf files only
import os

from flask import Flask, abort, request, send_file
from flask_login import current_user, login_required

app = Flask(__name__)
INVOICE_DIR = "/srv/billing/invoices"
ALLOWED_EXTENSIONS = {".pdf"}


@app.route("/billing/invoice")
@login_required
def download_invoice():
    name = os.path.basename(request.args.get("file", ""))
    if not name or os.path.splitext(name)[1].lower() not in ALLOWED_EXTENSIONS:
        abort(400)
    path = os.path.join(INVOICE_DIR, str(current_user.id), name)
    if not os.path.isfile(path):
        abort(404)
    return send_file(path, mimetype="application/pdf", as_attachment=True)  # ax-bench: sink

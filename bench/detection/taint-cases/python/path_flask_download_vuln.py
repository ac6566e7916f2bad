# ax-bench: vulnerable CWE-22 — Flask invoice download joins the requested file name onto the customer's invoice folder
import os

from flask import Flask, abort, request, send_file
from flask_login import current_user, login_required

app = Flask(__name__)
INVOICE_DIR = "/srv/billing/invoices"


@app.route("/billing/invoice")
@login_required
def download_invoice():
    name = request.args.get("file", "")
    if not name:
        abort(400)
    path = os.path.join(INVOICE_DIR, str(current_user.id), name)
    if not os.path.isfile(path):
        abort(404)
    return send_file(path, mimetype="application/pdf", as_attachment=True)  # ax-bench: sink

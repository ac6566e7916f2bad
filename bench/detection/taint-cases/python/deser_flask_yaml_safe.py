# ax-bench: safe CWE-502 — Flask inventory import parses the uploaded YAML with yaml.safe_load
import yaml
from flask import Flask, jsonify, request
from flask_login import login_required

from inventory.store import upsert_items

app = Flask(__name__)


@app.route("/inventory/import", methods=["POST"])
@login_required
def import_inventory():
    upload = request.files.get("file")
    if upload is None or not upload.filename.endswith((".yml", ".yaml")):
        return jsonify(error="upload a .yml file"), 400
    document = yaml.safe_load(upload.read())  # ax-bench: sink
    items = document.get("items", []) if isinstance(document, dict) else []
    if not items:
        return jsonify(error="no items found"), 422
    count = upsert_items(items)
    return jsonify(imported=count)

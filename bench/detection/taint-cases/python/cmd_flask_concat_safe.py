# ax-bench: safe CWE-78 — Flask network check quotes the host with shlex.quote before concatenating it into the shell command
import shlex
import subprocess

from flask import Flask, jsonify, request
from flask_login import login_required

app = Flask(__name__)


@app.route("/tools/ping", methods=["POST"])
@login_required
def ping():
    host = request.form.get("host", "").strip()
    if not host:
        return jsonify(error="host is required"), 400
    command = "ping -c 3 -W 2 " + shlex.quote(host)
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=15)  # ax-bench: sink
    return jsonify(
        host=host,
        reachable=result.returncode == 0,
        output=result.stdout[-2000:],
    )

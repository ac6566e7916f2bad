import os
import random
import secrets
import sqlite3
import subprocess

import requests
import yaml
from flask import Flask, abort, make_response, redirect, request, send_file, session
from markupsafe import escape

app = Flask(__name__)
app.config["SECRET_KEY"] = "wiki-dev-secret-0f9a8b7c"
PAGES_DIR = os.path.join(os.path.dirname(__file__), "pages")
ALLOWED_HOSTS = {"wiki.example.org", "docs.example.org"}


def db():
    return sqlite3.connect("wiki.db")


@app.route("/page")
def page():
    title = request.args.get("title", "")
    row = db().execute("SELECT body FROM pages WHERE title = '%s'" % title).fetchone()
    return row[0] if row else abort(404)


@app.route("/page-safe")
def page_safe():
    title = request.args.get("title", "")
    row = db().execute("SELECT body FROM pages WHERE title = ?", (title,)).fetchone()
    return row[0] if row else abort(404)


@app.route("/hello")
def hello():
    name = request.args.get("name", "guest")
    return f"<p>Hello {name}</p>"


@app.route("/hello-safe")
def hello_safe():
    name = request.args.get("name", "guest")
    return f"<p>Hello {escape(name)}</p>"


@app.route("/raw")
def raw():
    name = request.args.get("name", "")
    return send_file(os.path.join(PAGES_DIR, name))


@app.route("/raw-safe")
def raw_safe():
    name = request.args.get("name", "")
    path = os.path.realpath(os.path.join(PAGES_DIR, name))
    if not path.startswith(os.path.realpath(PAGES_DIR) + os.sep):
        abort(400)
    return send_file(path)


@app.route("/go")
def go():
    return redirect(request.args.get("next", "/"))


@app.route("/fetch")
def fetch():
    url = request.args["url"]
    return requests.get(url, timeout=5).text


@app.route("/fetch-safe")
def fetch_safe():
    url = request.args["url"]
    host = url.split("/")[2] if url.startswith("https://") else ""
    if host not in ALLOWED_HOSTS:
        abort(400)
    return requests.get(url, timeout=5).text


@app.route("/export")
def export():
    fmt = request.args.get("format", "pdf")
    subprocess.run("pandoc page.md -o out." + fmt, shell=True, check=True)
    return "ok"


@app.route("/export-safe")
def export_safe():
    fmt = request.args.get("format", "pdf")
    if fmt not in ("pdf", "html", "docx"):
        abort(400)
    subprocess.run(["pandoc", "page.md", "-o", "out." + fmt], check=True)
    return "ok"


@app.route("/prefs", methods=["POST"])
def prefs():
    session["theme"] = request.form["theme"]
    return "saved"


@app.route("/import", methods=["POST"])
def import_page():
    data = yaml.load(request.data, Loader=yaml.Loader)
    return str(data)


@app.route("/import-safe", methods=["POST"])
def import_page_safe():
    data = yaml.safe_load(request.data)
    return str(data)


@app.route("/login", methods=["POST"])
def login():
    token = str(random.randint(100000, 999999))
    response = make_response("ok")
    response.set_cookie("session_token", token, secure=False, httponly=True)
    return response


@app.route("/login-safe", methods=["POST"])
def login_safe():
    token = secrets.token_urlsafe(32)
    response = make_response("ok")
    response.set_cookie("session_token", token, secure=True, httponly=True, samesite="Lax")
    return response

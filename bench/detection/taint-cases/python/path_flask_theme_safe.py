# ax-bench: safe CWE-22 — Flask stylesheet route picks between two constant file names with a ternary on the cookie
import os

from flask import Flask, Response, request

app = Flask(__name__)
THEME_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "themes")


@app.route("/theme.css")
def theme_css():
    requested = request.cookies.get("theme")
    filename = "dark.css" if requested == "dark.css" else "light.css"
    try:
        with open(os.path.join(THEME_DIR, filename), encoding="utf-8") as fh:  # ax-bench: sink
            css = fh.read()
    except FileNotFoundError:
        return Response("/* unknown theme */", status=404, mimetype="text/css")
    resp = Response(css, mimetype="text/css")
    resp.headers["Cache-Control"] = "private, max-age=300"
    return resp

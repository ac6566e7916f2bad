# ax-bench: safe CWE-89 — Flask user search binds the f-string LIKE pattern as a ? parameter
import sqlite3

from flask import Flask, g, jsonify, request

app = Flask(__name__)
DATABASE = "/srv/app/users.db"


def get_db():
    if "db" not in g:
        g.db = sqlite3.connect(DATABASE)
        g.db.row_factory = sqlite3.Row
    return g.db


@app.teardown_appcontext
def close_db(_exc):
    db = g.pop("db", None)
    if db is not None:
        db.close()


@app.route("/users/search")
def search_users():
    name = request.args.get("name", "")
    pattern = f"%{name}%"
    rows = get_db().execute("SELECT id, name, email FROM users WHERE name LIKE ? ORDER BY name LIMIT 50", (pattern,)).fetchall()  # ax-bench: sink
    return jsonify([dict(r) for r in rows])

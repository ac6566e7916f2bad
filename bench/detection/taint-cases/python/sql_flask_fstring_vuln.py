# ax-bench: vulnerable CWE-89 — Flask user search builds the LIKE clause with an f-string
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
    sql = f"SELECT id, name, email FROM users WHERE name LIKE '%{name}%' ORDER BY name LIMIT 50"
    rows = get_db().execute(sql).fetchall()  # ax-bench: sink
    return jsonify([dict(r) for r in rows])

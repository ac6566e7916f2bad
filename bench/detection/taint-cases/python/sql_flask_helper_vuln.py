# ax-bench: vulnerable CWE-89 — Flask order list passes the requested sort column through a helper into ORDER BY
import os

import psycopg2
from flask import Flask, jsonify, request

app = Flask(__name__)


def connect():
    return psycopg2.connect(os.environ["SHOP_DATABASE_URL"])


def sort_column(requested):
    return requested or "created_at"


@app.route("/customers/<int:customer_id>/orders")
def list_orders(customer_id):
    column = sort_column(request.args.get("sort"))
    query = "SELECT id, total, status, created_at FROM orders WHERE customer_id = %s ORDER BY " + column
    with connect() as conn, conn.cursor() as cur:
        cur.execute(query, (customer_id,))  # ax-bench: sink
        orders = cur.fetchall()
    return jsonify([{"id": o[0], "total": float(o[1]), "status": o[2], "created_at": o[3].isoformat()} for o in orders])

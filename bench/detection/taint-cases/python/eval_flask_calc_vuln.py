# ax-bench: vulnerable CWE-95 — Flask price calculator eval()s an expression .format()ted from raw form fields
from flask import Flask, jsonify, request
from flask_login import login_required

app = Flask(__name__)


@app.route("/quotes/calc", methods=["POST"])
@login_required
def calculate():
    quantity = request.form.get("quantity", "1")
    unit_price = request.form.get("unit_price", "0")
    op = "*" if request.form.get("mode") != "flat" else "+"
    expression = "{} {} {}".format(quantity, op, unit_price)
    try:
        result = eval(expression)  # ax-bench: sink
    except (SyntaxError, NameError, ZeroDivisionError):
        return jsonify(error="invalid input"), 400
    return jsonify(expression=expression, total=round(float(result), 2))

# ax-bench: safe CWE-95 — Flask price calculator converts both operands with int() before .format()ting the eval() expression
from flask import Flask, jsonify, request
from flask_login import login_required

app = Flask(__name__)


@app.route("/quotes/calc", methods=["POST"])
@login_required
def calculate():
    try:
        quantity = int(request.form.get("quantity", "1"))
        unit_price = int(request.form.get("unit_price", "0"))
    except ValueError:
        return jsonify(error="invalid input"), 400
    op = "*" if request.form.get("mode") != "flat" else "+"
    expression = "{} {} {}".format(quantity, op, unit_price)
    result = eval(expression)  # ax-bench: sink
    return jsonify(expression=expression, total=round(float(result), 2))

# ax-bench: safe CWE-601 — Flask login picks between two constant paths with a ternary on the `next` parameter
from flask import Flask, redirect, render_template, request, session

from accounts.service import authenticate

app = Flask(__name__)


@app.route("/login", methods=["GET", "POST"])
def login():
    if request.method == "GET":
        return render_template("login.html", next=request.args.get("next", ""))
    user = authenticate(request.form.get("email", ""), request.form.get("password", ""))
    if user is None:
        return render_template("login.html", error="Invalid email or password"), 401
    session.clear()
    session["uid"] = user.id
    requested = request.args.get("next")
    target = "/account/orders" if requested == "orders" else "/account"
    return redirect(target)  # ax-bench: sink

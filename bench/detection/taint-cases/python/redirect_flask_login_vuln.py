# ax-bench: vulnerable CWE-601 — Flask login redirects to the `next` parameter chosen by a ternary after sign-in
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
    target = requested if requested else "/account"
    return redirect(target)  # ax-bench: sink

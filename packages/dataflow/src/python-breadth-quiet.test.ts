// Python taint breadth, the quiet side: values a framework has already converted (typed FastAPI
// parameters, Flask converters, enums) and responses a browser does not parse as HTML.
import { langTwins, type LangTwin } from "../test/lang-twins";

const py = (name: string, cwe: string, vuln: string, safe: string): LangTwin => ({ name, lang: "python", cwe, vuln, safe });

langTwins("python parameters a framework has converted", [
  py(
    "FastAPI str vs int path parameter",
    "CWE-89",
    `
      import sqlite3
      from fastapi import FastAPI

      app = FastAPI()

      @app.get("/items/{item_id}")
      def read_item(item_id: str):
          return sqlite3.connect("x.db").execute(f"SELECT * FROM items WHERE id = {item_id}").fetchall()  # SINK
    `,
    `
      import sqlite3
      from typing import Annotated, Optional
      from fastapi import FastAPI, Path, Query

      app = FastAPI()

      @app.get("/items/{item_id}")
      def read_item(item_id: Annotated[int, Path(gt=0)], limit: Optional[int] = Query(10)):
          return sqlite3.connect("x.db").execute(f"SELECT * FROM items WHERE id = {item_id} LIMIT {limit}").fetchall()
    `,
  ),
  py(
    "FastAPI enum parameter",
    "CWE-78",
    `
      import subprocess
      from fastapi import FastAPI

      app = FastAPI()

      @app.get("/color")
      def color(c: str):
          return subprocess.check_output(f"echo {c}", shell=True)  # SINK
    `,
    `
      import subprocess
      from enum import Enum
      from fastapi import FastAPI

      app = FastAPI()

      class Color(str, Enum):
          red = "red"
          blue = "blue"

      @app.get("/color")
      def color(c: Color):
          return subprocess.check_output(f"echo {c.value}", shell=True)
    `,
  ),
  py(
    "Flask <int:...> converter",
    "CWE-79",
    `
      from flask import Flask, make_response

      app = Flask(__name__)

      @app.route("/item/<item_id>")
      def item(item_id):
          return make_response("<p>%s</p>" % item_id)  # SINK
    `,
    `
      from flask import Flask, make_response

      app = Flask(__name__)

      @app.route("/item/<int:item_id>")
      def item(item_id):
          return make_response("<p>%d</p>" % item_id)
    `,
  ),
  py(
    "Django response with a non-HTML content type",
    "CWE-79",
    `
      from django.http import HttpResponse

      def export(request):
          return HttpResponse(request.GET.get("data", ""), content_type="text/html; charset=utf-8")  # SINK
    `,
    `
      from django.http import HttpResponse

      def export(request):
          data = request.GET.get("data", "")
          return HttpResponse(data, content_type="text/csv; charset=utf-8")
    `,
  ),
]);

langTwins("python values that cannot change where a request goes", [
  py(
    "redirect to a path on this site vs to the parameter",
    "CWE-601",
    `
      from flask import Flask, request, redirect

      app = Flask(__name__)

      @app.route("/p")
      def p():
          return redirect("/" + request.args["user"])  # SINK
    `,
    `
      from flask import Flask, request, redirect, url_for

      app = Flask(__name__)

      @app.route("/p")
      def p():
          if request.args.get("back"):
              return redirect(url_for("home", next=request.args["back"]))
          return redirect("/profile/%s" % request.args["user"])
    `,
  ),
  py(
    "request to a fixed host vs a host from input",
    "CWE-918",
    `
      import requests
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/api")
      def api():
          return requests.get(f"https://{request.args['host']}/users", timeout=5).text  # SINK
    `,
    `
      import requests
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/api")
      def api():
          uid = request.args["uid"]
          return requests.get(f"https://api.example.com/users/{uid}", timeout=5).text
    `,
  ),
  py(
    "an IP address or a date parsed from input",
    "CWE-78",
    `
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/ping")
      def ping():
          os.system("ping -c 1 %s" % request.args["host"])  # SINK
          return "ok"
    `,
    `
      import ipaddress
      import os
      from datetime import datetime
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/ping")
      def ping():
          ip = ipaddress.ip_address(request.args["host"])
          day = datetime.strptime(request.args["day"], "%Y-%m-%d")
          os.system("ping -c 1 %s > /logs/%s" % (ip, day.strftime("%Y%m%d")))
          return "ok"
    `,
  ),
]);

langTwins("python conversions that leave no text", [
  py(
    "request.args.get with type=int",
    "CWE-89",
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/a")
      def a():
          page = request.args.get("page", "1")
          return {"r": sqlite3.connect("a").execute("SELECT * FROM t LIMIT 10 OFFSET %s" % page).fetchall()}  # SINK
    `,
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/a")
      def a():
          page = request.args.get("page", 1, type=int)
          return {"r": sqlite3.connect("a").execute("SELECT * FROM t LIMIT 10 OFFSET %s" % (page * 10)).fetchall()}
    `,
  ),
  py(
    "a %d conversion vs %s",
    "CWE-89",
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/b")
      def b():
          q = "SELECT * FROM t WHERE id = %d AND name = '%s'" % (len(request.args), request.args["n"])
          return {"r": sqlite3.connect("a").execute(q).fetchall()}  # SINK
    `,
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/b")
      def b():
          q = "SELECT * FROM t WHERE id = %d AND n = %05.1f" % (request.args["id"], request.args["n"])
          return {"r": sqlite3.connect("a").execute(q).fetchall()}
    `,
  ),
  py(
    "a hex digest or base64 of input",
    "CWE-78",
    `
      import base64
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/c")
      def c():
          os.system("echo " + base64.b64decode(request.args["v"]).decode())  # SINK
          return "ok"
    `,
    `
      import base64
      import hashlib
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/c")
      def c():
          digest = hashlib.sha256(request.args["v"].encode()).hexdigest()
          token = base64.b64encode(request.args["v"].encode()).decode()
          os.system("echo " + digest + " " + token)
          return "ok"
    `,
  ),
]);

langTwins("python lookups in a dict of constants", [
  py(
    "ORDER BY a column from an allowlist dict vs from the request",
    "CWE-89",
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)
      SORTABLE = {"name": "name", "date": "created_at"}

      @app.route("/s")
      def s():
          col = SORTABLE.get("name") + request.args.get("sort", "")
          return {"r": sqlite3.connect("a").execute("SELECT * FROM t ORDER BY " + col).fetchall()}  # SINK
    `,
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)
      SORTABLE = {"name": "name", "date": "created_at"}

      @app.route("/s")
      def s():
          directions = {"up": "ASC", "down": "DESC"}
          col = SORTABLE.get(request.args.get("sort"), "name")
          way = directions.get(request.args.get("dir"))
          return {"r": sqlite3.connect("a").execute("SELECT * FROM t ORDER BY " + col + " " + way).fetchall()}
    `,
  ),
]);

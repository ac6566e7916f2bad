// Python taint breadth, more sinks: urllib3 pools, ElementTree paths, regular expressions,
// setattr with a request key, and Jinja2 rendering with and without autoescaping.
import { langTwins, type LangTwin } from "../test/lang-twins";

const py = (name: string, cwe: string, vuln: string, safe: string): LangTwin => ({ name, lang: "python", cwe, vuln, safe });

langTwins("python sinks beyond the core table", [
  py(
    "urllib3 pool kept in a module global",
    "CWE-918",
    `
      import urllib3
      from starlette.requests import Request

      http = urllib3.PoolManager()

      async def pool(request: Request):
          return http.request("GET", request.query_params["u"]).data  # SINK
    `,
    `
      import urllib3
      from starlette.requests import Request

      http = urllib3.PoolManager()

      async def pool(request: Request):
          q = request.query_params["u"]
          return http.request("GET", "https://api.example.com/search", fields={"q": q}).data
    `,
  ),
  py(
    "ElementTree find with a formatted path",
    "CWE-643",
    `
      import xml.etree.ElementTree as ET
      from flask import Flask, request

      app = Flask(__name__)
      TREE = ET.parse("users.xml")

      @app.route("/user")
      def user():
          name = request.args["name"]
          node = TREE.getroot().find(f".//user[@name='{name}']")  # SINK
          return {"found": node is not None}
    `,
    `
      import xml.etree.ElementTree as ET
      from flask import Flask, request

      app = Flask(__name__)
      TREE = ET.parse("users.xml")

      @app.route("/user")
      def user():
          name = request.args["name"]
          found = [u for u in TREE.getroot().findall(".//user") if u.get("name") == name]
          return {"found": len(found)}
    `,
  ),
  py(
    "a regular expression from the request",
    "CWE-730",
    `
      import re
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/grep")
      def grep():
          return {"m": bool(re.search(request.args["p"], "some text"))}  # SINK
    `,
    `
      import re
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/grep")
      def grep():
          return {"m": bool(re.search(re.escape(request.args["p"]), "some text"))}
    `,
  ),
  py(
    "setattr with a request key",
    "CWE-915",
    `
      from flask import Flask, request

      app = Flask(__name__)

      class Profile:
          name = ""

      @app.route("/p", methods=["POST"])
      def patch():
          profile = Profile()
          for key, value in request.form.items():
              setattr(profile, key, value)  # SINK
          return {"ok": True}
    `,
    `
      from flask import Flask, request

      app = Flask(__name__)

      class Profile:
          name = ""

      @app.route("/p", methods=["POST"])
      def patch():
          profile = Profile()
          for key in ("name", "email"):
              setattr(profile, key, request.form.get(key))
          return {"ok": True}
    `,
  ),
  py(
    "Jinja2 rendering, autoescape off vs on",
    "CWE-79",
    `
      from jinja2 import Environment
      from starlette.requests import Request

      async def page(request: Request):
          env = Environment(autoescape=False)
          return env.from_string("<p>{{ t }}</p>").render(t=request.query_params["t"])  # SINK
    `,
    `
      from jinja2 import Environment
      from starlette.requests import Request
      from starlette.responses import HTMLResponse

      async def page(request: Request):
          env = Environment(autoescape=True)
          return HTMLResponse(env.from_string("<p>{{ t }}</p>").render(t=request.query_params["t"]))
    `,
  ),
]);

langTwins("python frameworks and drivers beyond Flask and Django", [
  py(
    "Falcon req.get_param",
    "CWE-78",
    `
      import os

      class Items:
          def on_get(self, req, resp):
              os.system("grep " + req.get_param("q") + " /data/items")  # SINK
    `,
    `
      import os
      import shlex

      class Items:
          def on_get(self, req, resp):
              os.system("grep " + shlex.quote(req.get_param("q")) + " /data/items")
    `,
  ),
  py(
    "Bottle request imported under another name",
    "CWE-78",
    `
      import os
      from bottle import route, request as brequest

      @route("/hello")
      def hello():
          os.system("echo " + brequest.query.get("name"))  # SINK
    `,
    `
      import os
      from bottle import route, request as brequest

      @route("/hello")
      def hello():
          name = brequest.query.get("name")
          os.system("echo hello")
          return name.isalnum()
    `,
  ),
  py(
    "asyncpg fetch with an f-string vs $1",
    "CWE-89",
    `
      import asyncpg

      async def users(request):
          uid = request.query.get("uid")
          conn = await asyncpg.connect("postgresql://localhost/app")
          return await conn.fetch(f"SELECT * FROM users WHERE id = {uid}")  # SINK
    `,
    `
      import asyncpg

      async def users(request):
          uid = request.query.get("uid")
          conn = await asyncpg.connect("postgresql://localhost/app")
          return await conn.fetch("SELECT * FROM users WHERE id = $1", uid)
    `,
  ),
  py(
    "importlib.import_module of a request value",
    "CWE-470",
    `
      import importlib

      async def plugin(request):
          return importlib.import_module("plugins." + request.query.get("plugin")).run()  # SINK
    `,
    `
      import importlib

      PLUGINS = {"csv": "plugins.csv", "pdf": "plugins.pdf"}

      async def plugin(request):
          name = request.query.get("plugin")
          if name not in PLUGINS:
              raise KeyError(name)
          return importlib.import_module(PLUGINS[name]).run()
    `,
  ),
]);

langTwins("python CGI and WSGI entry points", [
  py(
    "a WSGI application's environ",
    "CWE-78",
    `
      import os

      def application(environ, start_response):
          os.system("echo " + environ.get("QUERY_STRING", ""))  # SINK
          start_response("200 OK", [])
          return [b"ok"]
    `,
    `
      import os

      def application(environ, start_response):
          os.system("echo " + str(len(environ.get("QUERY_STRING", ""))))
          start_response("200 OK", [])
          return [b"ok"]
    `,
  ),
  py(
    "a CGI form field",
    "CWE-89",
    `
      import cgi
      import sqlite3

      form = cgi.FieldStorage()
      name = form.getvalue("name")
      sqlite3.connect("a.db").execute("SELECT * FROM t WHERE n = '%s'" % name)  # SINK
    `,
    `
      import cgi
      import sqlite3

      form = cgi.FieldStorage()
      name = form.getvalue("name")
      sqlite3.connect("a.db").execute("SELECT * FROM t WHERE n = ?", (name,))
    `,
  ),
]);

langTwins("python Flask class-based views", [
  py(
    "MethodView.get takes the URL variable",
    "CWE-89",
    `
      import sqlite3
      from flask.views import MethodView

      class ItemView(MethodView):
          def get(self, item_id):
              return {"r": sqlite3.connect("a").execute("SELECT * FROM items WHERE id = " + item_id).fetchall()}  # SINK
    `,
    `
      import sqlite3
      from flask.views import MethodView

      class ItemView(MethodView):
          def get(self, item_id):
              return {"r": sqlite3.connect("a").execute("SELECT * FROM items WHERE id = ?", (item_id,)).fetchall()}
    `,
  ),
  py(
    "Flask-RESTful Resource.delete vs a helper method",
    "CWE-89",
    `
      import sqlite3
      from flask_restful import Resource

      class Todo(Resource):
          def delete(self, todo_id):
              sqlite3.connect("a").execute(f"DELETE FROM todos WHERE id = '{todo_id}'")  # SINK
              return "", 204
    `,
    `
      import sqlite3
      from flask_restful import Resource

      class Todo(Resource):
          def purge(self, todo_id):
              sqlite3.connect("a").execute(f"DELETE FROM todos WHERE id = '{todo_id}'")
              return "", 204
    `,
  ),
]);

langTwins("python dict methods in a class that defines the same names", [
  py(
    "a Django view's dict.get next to its own get()",
    "CWE-78",
    `
      import json
      import os
      from django.views import View
      from django.http import HttpResponse

      class V(View):
          def post(self, request):
              data = json.loads(request.body)
              os.system("echo " + data.get("name"))  # SINK
              return HttpResponse("ok")

          def get(self, request):
              return HttpResponse("ok")
    `,
    `
      import json
      import os
      from django.views import View
      from django.http import HttpResponse

      class V(View):
          def post(self, request):
              data = json.loads(request.body)
              os.system("echo " + str(len(data.get("name"))))
              return HttpResponse("ok")

          def get(self, request):
              return HttpResponse("ok")
    `,
  ),
]);

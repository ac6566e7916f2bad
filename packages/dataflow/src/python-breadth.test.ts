// Python taint breadth: framework sources and sinks written the way applications write them
// (aiohttp, Tornado, FastAPI, Django, Flask), each with a safe twin that must stay quiet.
import { langTwins, type LangTwin } from "../test/lang-twins";

const py = (name: string, cwe: string, vuln: string, safe: string): LangTwin => ({ name, lang: "python", cwe, vuln, safe });

langTwins("python sources of other frameworks", [
  py(
    "aiohttp request.query and ClientSession",
    "CWE-918",
    `
      import aiohttp
      from aiohttp import web

      async def fetch(request):
          url = request.query.get("url")
          async with aiohttp.ClientSession() as session:
              async with session.get(url) as resp:  # SINK
                  return web.Response(text=await resp.text())
    `,
    `
      import aiohttp
      from aiohttp import web

      async def fetch(request):
          name = request.query.get("name")
          async with aiohttp.ClientSession() as session:
              async with session.get("https://api.example.com/status") as resp:
                  return web.Response(text=name)
    `,
  ),
  py(
    "aiohttp request.match_info into a path",
    "CWE-22",
    `
      import os
      from aiohttp import web

      async def read(request):
          name = request.match_info["name"]
          with open(os.path.join("/data", name)) as f:  # SINK
              return web.Response(text=f.read())
    `,
    `
      import os
      from aiohttp import web

      async def read(request):
          name = os.path.basename(request.match_info["name"])
          with open(os.path.join("/data", name)) as f:
              return web.Response(text=f.read())
    `,
  ),
  py(
    "aiohttp await request.post()",
    "CWE-78",
    `
      import os
      from aiohttp import web

      async def run(request):
          data = await request.post()
          os.system("ping -c 1 " + data["host"])  # SINK
          return web.Response(text="ok")
    `,
    `
      import os
      import shlex
      from aiohttp import web

      async def run(request):
          data = await request.post()
          os.system("ping -c 1 " + shlex.quote(data["host"]))
          return web.Response(text="ok")
    `,
  ),
  py(
    "DRF request.data.get in a view that also defines get()",
    "CWE-78",
    `
      import subprocess
      from rest_framework.views import APIView
      from rest_framework.response import Response

      class ProfileAPI(APIView):
          def post(self, request):
              name = request.data.get("name")
              return Response({"out": subprocess.getoutput("id " + name)})  # SINK

          def get(self, request):
              return Response({})
    `,
    `
      import subprocess
      from rest_framework.views import APIView
      from rest_framework.response import Response

      class ProfileAPI(APIView):
          def post(self, request):
              name = request.data.get("name")
              return Response({"out": subprocess.getoutput("id"), "name": name})

          def get(self, request):
              return Response({})
    `,
  ),
  py(
    "Flask request.json.get",
    "CWE-89",
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      class Store:
          def get(self, key):
              return key

      @app.route("/q", methods=["POST"])
      def q():
          name = request.json.get("name")
          return {"r": sqlite3.connect("a.db").execute("SELECT * FROM t WHERE n = '" + name + "'").fetchall()}  # SINK
    `,
    `
      import sqlite3
      from flask import Flask, request

      app = Flask(__name__)

      class Store:
          def get(self, key):
              return key

      @app.route("/q", methods=["POST"])
      def q():
          name = request.json.get("name")
          return {"r": sqlite3.connect("a.db").execute("SELECT * FROM t WHERE n = ?", (name,)).fetchall()}
    `,
  ),
]);

langTwins("python Tornado handlers", [
  py(
    "self.write of a query argument",
    "CWE-79",
    `
      import tornado.web

      class Hello(tornado.web.RequestHandler):
          def get(self):
              name = self.get_query_argument("name")
              self.write("<h1>Hello " + name + "</h1>")  # SINK
    `,
    `
      import tornado.escape
      import tornado.web

      class Hello(tornado.web.RequestHandler):
          def get(self):
              name = self.get_query_argument("name")
              self.write("<h1>Hello " + tornado.escape.xhtml_escape(name) + "</h1>")
    `,
  ),
  py(
    "self.redirect to an argument",
    "CWE-601",
    `
      from tornado.web import RequestHandler

      class Go(RequestHandler):
          def get(self):
              self.redirect(self.get_argument("to"))  # SINK
    `,
    `
      from tornado.web import RequestHandler

      class Go(RequestHandler):
          def get(self):
              to = self.get_argument("to")
              if to not in ("/", "/home"):
                  raise ValueError(to)
              self.redirect(to)
    `,
  ),
  py(
    "self.write in a class that is not a handler",
    "CWE-78",
    `
      import os
      import tornado.web

      class Hello(tornado.web.RequestHandler):
          def get(self):
              os.system("echo " + self.get_argument("x"))  # SINK
    `,
    `
      import tornado.web

      class Report:
          def get(self, handler):
              self.write(handler.get_argument("x"))

          def write(self, text):
              print(text)
    `,
  ),
]);

langTwins("python response sinks", [
  py(
    "FastAPI FileResponse of a query parameter",
    "CWE-22",
    `
      from fastapi import FastAPI
      from fastapi.responses import FileResponse

      app = FastAPI()

      @app.get("/file")
      def get_file(name: str):
          return FileResponse(f"/data/{name}")  # SINK
    `,
    `
      import os
      from fastapi import FastAPI
      from fastapi.responses import FileResponse

      app = FastAPI()

      @app.get("/file")
      def get_file(name: str):
          return FileResponse(f"/data/{os.path.basename(name)}")
    `,
  ),
  py(
    "Flask upload saved under its own filename",
    "CWE-22",
    `
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/upload", methods=["POST"])
      def upload():
          f = request.files["file"]
          f.save(os.path.join("/srv/uploads", f.filename))  # SINK
          return "ok"
    `,
    `
      import os
      from flask import Flask, request
      from werkzeug.utils import secure_filename

      app = Flask(__name__)

      @app.route("/upload", methods=["POST"])
      def upload():
          f = request.files["file"]
          f.save(os.path.join("/srv/uploads", secure_filename(f.filename)))
          return "ok"
    `,
  ),
  py(
    "Flask response header assigned by index",
    "CWE-113",
    `
      from flask import Flask, request, make_response

      app = Flask(__name__)

      @app.route("/h")
      def h():
          resp = make_response({"ok": True})
          resp.headers["Content-Language"] = request.args.get("lang")  # SINK
          return resp
    `,
    `
      from flask import Flask, request, make_response

      app = Flask(__name__)

      @app.route("/h")
      def h():
          resp = make_response({"ok": True})
          lang = request.args.get("lang")
          resp.headers["Content-Language"] = "en" if lang == "en" else "de"
          return resp
    `,
  ),
  py(
    "Django response header assigned by index",
    "CWE-113",
    `
      from django.http import JsonResponse

      def header(request):
          response = JsonResponse({"ok": True})
          response["X-Msg"] = request.GET.get("m")  # SINK
          return response
    `,
    `
      from django.http import JsonResponse

      def header(request):
          response = JsonResponse({"ok": True})
          rows = {}
          rows["X-Msg"] = request.GET.get("m")
          response["X-Count"] = str(len(rows))
          return response
    `,
  ),
  py(
    "Django format_html escapes its arguments",
    "CWE-79",
    `
      from django.http import HttpResponse

      def greet(request):
          name = request.GET.get("name", "")
          return HttpResponse("<p>Hello, " + name + "</p>")  # SINK
    `,
    `
      from django.http import HttpResponse
      from django.utils.html import format_html

      def greet(request):
          name = request.GET.get("name", "")
          return HttpResponse(format_html("<p>Hello, {}</p>", name))
    `,
  ),
  py(
    "Django redirect guarded by url_has_allowed_host_and_scheme",
    "CWE-601",
    `
      from django.http import HttpResponseRedirect

      def login_next(request):
          nxt = request.GET.get("next", "/")
          return HttpResponseRedirect(nxt)  # SINK
    `,
    `
      from django.http import HttpResponseRedirect
      from django.utils.http import url_has_allowed_host_and_scheme

      def login_next(request):
          nxt = request.GET.get("next", "/")
          if not url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()}):
              nxt = "/"
          return HttpResponseRedirect(nxt)
    `,
  ),
]);

langTwins("python commands and logs", [
  py(
    "pty.spawn of a parameter",
    "CWE-78",
    `
      import pty
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/tty")
      def tty():
          pty.spawn(request.args.get("p"))  # SINK
          return "ok"
    `,
    `
      import pty
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/tty")
      def tty():
          mode = request.args.get("p")
          pty.spawn(["/usr/bin/top", "-b"])
          return {"mode": mode}
    `,
  ),
  py(
    "a logged request value",
    "CWE-117",
    `
      import logging
      from flask import Flask, request

      app = Flask(__name__)
      logger = logging.getLogger(__name__)

      @app.route("/audit")
      def audit():
          logger.warning("failed login for %s", request.args.get("user"))  # SINK
          return {"ok": True}
    `,
    `
      import logging
      from flask import Flask, request

      app = Flask(__name__)
      logger = logging.getLogger(__name__)

      @app.route("/audit")
      def audit():
          user = request.args.get("user", "")
          logger.warning("failed login for %d characters", len(user))
          return {"ok": True}
    `,
  ),
]);

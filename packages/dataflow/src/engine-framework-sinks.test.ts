/**
 * Framework response sinks (XSS, CWE-79) and trust-boundary writes (CWE-501): what a Flask
 * view returns, Django's `HttpResponse.write`, FastAPI's `HTMLResponse`, Spring `@ResponseBody`
 * and `@RestController` handlers and JAX-RS resources that send HTML (java-routes.ts), Koa's
 * `ctx.body`, Express `res.send`/`res.render`; and input stored in Flask, Django and Express
 * sessions. Each with a vulnerable and a safe twin.
 */
import { fileTwins } from "../test/file-twins";

const XSS_PY = { rule: "py-taint-xss", cwe: "CWE-79" };
const BODY = { rule: "java-taint-xss-response-body", cwe: "CWE-79" };

fileTwins("Python response bodies", [
  {
    name: "a Flask view returning an f-string",
    lang: "python",
    vuln: `
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          return f"<p>Hello {name}</p>"  # SINK
    `,
    safe: `
      from flask import Flask, request
      from markupsafe import escape

      app = Flask(__name__)

      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          return f"<p>Hello {escape(name)}</p>"
    `,
    expect: [XSS_PY],
  },
  {
    name: "a Flask view returning a local built by concatenation",
    lang: "python",
    vuln: `
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/search")
      def search():
          q = request.args.get("q", "")
          page = "<h1>Results for " + q + "</h1>"
          return page  # SINK
    `,
    safe: `
      from flask import Flask, make_response, redirect, render_template, request

      app = Flask(__name__)

      @app.route("/search")
      def search():
          q = request.args.get("q", "")
          if not q:
              return redirect("/")
          page = make_response(render_template("results.html", q=q))
          return page
    `,
    expect: [XSS_PY],
  },
  {
    name: "Django HttpResponse.write",
    lang: "python",
    vuln: `
      from django.http import HttpResponse

      def greet(request):
          response = HttpResponse()
          response.write("<p>Hi " + request.GET.get("who", "") + "</p>")  # SINK
          return response
    `,
    safe: `
      from django.http import HttpResponse
      from django.utils.html import escape

      def greet(request):
          response = HttpResponse()
          response.write("<p>Hi " + escape(request.GET.get("who", "")) + "</p>")
          return response
    `,
    expect: [{ rule: "py-taint-xss-django-write", cwe: "CWE-79" }],
  },
  {
    name: "FastAPI HTMLResponse",
    lang: "python",
    vuln: `
      from fastapi import FastAPI
      from fastapi.responses import HTMLResponse

      app = FastAPI()

      @app.get("/items")
      def items(q: str):
          return HTMLResponse(f"<h1>{q}</h1>")  # SINK
    `,
    safe: `
      import html
      from fastapi import FastAPI
      from fastapi.responses import HTMLResponse

      app = FastAPI()

      @app.get("/items")
      def items(q: str):
          return HTMLResponse(f"<h1>{html.escape(q)}</h1>")
    `,
    expect: [XSS_PY],
  },
]);

fileTwins("Java response bodies", [
  {
    name: "a @RestController method returning a String (no declared type: HTML)",
    lang: "java",
    vuln: `
      package com.example.web;

      @RestController
      public class GreetingController {
          @GetMapping("/greet")
          public String greet(@RequestParam String name) {
              return "<h1>Hello " + name + "</h1>"; // SINK
          }
      }
    `,
    safe: `
      package com.example.web;

      @RestController
      @RequestMapping(value = "/api", produces = MediaType.APPLICATION_JSON_VALUE)
      public class GreetingController {
          @GetMapping("/greet")
          public String greet(@RequestParam String name) {
              return "{\\"greeting\\": \\"" + name + "\\"}";
          }
      }
    `,
    expect: [BODY],
  },
  {
    name: "@ResponseBody with ResponseEntity<String> in a @Controller",
    lang: "java",
    vuln: `
      package com.example.web;

      @Controller
      public class SearchController {
          @ResponseBody
          @GetMapping(value = "/search", produces = MediaType.TEXT_HTML_VALUE)
          public ResponseEntity<String> search(@RequestParam("q") String q) {
              return ResponseEntity.ok("<p>No results for " + q + "</p>"); // SINK
          }
      }
    `,
    safe: `
      package com.example.web;

      @Controller
      public class SearchController {
          @ResponseBody
          @GetMapping(value = "/search", produces = MediaType.TEXT_HTML_VALUE)
          public ResponseEntity<String> search(@RequestParam("q") String q) {
              return ResponseEntity.ok("<p>No results for " + HtmlUtils.htmlEscape(q) + "</p>");
          }

          @GetMapping("/find")
          public String find(@RequestParam("q") String q, Model model) {
              model.addAttribute("q", q);
              return "results";
          }
      }
    `,
    expect: [BODY],
  },
  {
    name: "a JAX-RS @GET producing HTML returns a String",
    lang: "java",
    vuln: `
      package com.example.web;

      @Path("/profile")
      public class ProfileResource {
          @GET
          @Produces(MediaType.TEXT_HTML)
          public String show(@QueryParam("name") String name) {
              return "<div class='profile'>" + name + "</div>"; // SINK
          }
      }
    `,
    safe: `
      package com.example.web;

      @Path("/profile")
      @Produces(MediaType.APPLICATION_JSON)
      public class ProfileResource {
          @GET
          public String show(@QueryParam("name") String name) {
              return "{\\"name\\": \\"" + name.length() + "\\"}";
          }
      }
    `,
    expect: [BODY],
  },
  {
    name: "JAX-RS Response.ok(html).build() without a declared type",
    lang: "java",
    vuln: `
      package com.example.web;

      @Path("/echo")
      public class EchoResource {
          @GET
          public Response echo(@QueryParam("msg") String msg) {
              return Response.ok("<pre>" + msg + "</pre>").build(); // SINK
          }
      }
    `,
    safe: `
      package com.example.web;

      @Path("/echo")
      public class EchoResource {
          @GET
          public Response echo(@QueryParam("msg") String msg) {
              return Response.ok(new Echo(msg)).build();
          }
      }
    `,
    expect: [BODY],
  },
]);

fileTwins("JavaScript response bodies", [
  {
    name: "Koa ctx.body = string",
    lang: "javascript",
    vuln: `
      const Router = require("@koa/router");
      const router = new Router();
      router.get("/hello", async (ctx) => {
        ctx.body = "<p>Hello " + ctx.query.name + "</p>"; // SINK
      });
    `,
    safe: `
      const Router = require("@koa/router");
      const router = new Router();
      router.get("/hello", async (ctx) => {
        ctx.body = { hello: ctx.query.name };
      });
    `,
    expect: [{ rule: "js-taint-xss-koa-body", cwe: "CWE-79" }],
  },
  {
    name: "res.render(view, locals from the request): a low-confidence hint",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const app = express();
      app.get("/profile", (req, res) => {
        res.render("profile", { bio: req.query.bio }); // SINK
      });
    `,
    safe: `
      const express = require("express");
      const escapeHtml = require("escape-html");
      const app = express();
      app.get("/profile", (req, res) => {
        res.render("profile", { bio: escapeHtml(req.query.bio) });
      });
    `,
    expect: [{ rule: "js-taint-xss-render", cwe: "CWE-79", confidence: "LOW" }],
  },
  {
    name: "Express res.send with request data",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const app = express();
      app.get("/q", (req, res) => {
        res.send("<h2>" + req.query.q + "</h2>"); // SINK
      });
    `,
    safe: `
      const express = require("express");
      const escapeHtml = require("escape-html");
      const app = express();
      app.get("/q", (req, res) => {
        res.send("<h2>" + escapeHtml(req.query.q) + "</h2>");
      });
    `,
    expect: [{ rule: "js-taint-xss", cwe: "CWE-79" }],
  },
]);

fileTwins("Trust-boundary writes", [
  {
    name: "Flask session[key] = input",
    lang: "python",
    vuln: `
      from flask import Flask, request, session

      app = Flask(__name__)

      @app.route("/login", methods=["POST"])
      def login():
          session["user"] = request.form["user"]  # SINK
          return "ok"
    `,
    safe: `
      from flask import Flask, request, session

      app = Flask(__name__)

      @app.route("/theme", methods=["POST"])
      def theme():
          session["theme"] = "dark" if request.form.get("theme") == "dark" else "light"
          return "ok"
    `,
    expect: [{ rule: "py-taint-trust-boundary", cwe: "CWE-501" }],
  },
  {
    name: "Django request.session[key] = input",
    lang: "python",
    vuln: `
      from django.http import HttpResponse

      def remember(request):
          request.session["next"] = request.GET["next"]  # SINK
          return HttpResponse("ok")
    `,
    safe: `
      from django.http import HttpResponse

      def remember(request):
          request.session["visits"] = int(request.GET.get("visits", "0")) + 1
          return HttpResponse("ok")
    `,
    expect: [{ rule: "py-taint-trust-boundary", cwe: "CWE-501" }],
  },
  {
    name: "Express req.session.x = input and req.session[key] = …",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const app = express();
      app.post("/prefs", (req, res) => {
        req.session.returnTo = req.query.next; // SINK
        req.session[req.body.key] = true; // SINK
        res.end();
      });
    `,
    safe: `
      const express = require("express");
      const app = express();
      app.post("/prefs", (req, res) => {
        req.session.views = (req.session.views || 0) + 1;
        req.session.lang = req.body.lang === "fr" ? "fr" : "en";
        res.end();
      });
    `,
    expect: [
      { rule: "js-taint-trust-boundary", cwe: "CWE-501" },
      { rule: "js-taint-trust-boundary", cwe: "CWE-501" },
    ],
  },
]);

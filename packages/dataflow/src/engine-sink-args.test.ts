/**
 * Argument-precise sinks: each sink rule names the arguments that are dangerous (`SinkRule.args`),
 * so input in a harmless position (a working directory, the data written to a file, a status
 * code) is not reported; and Java callees match in fully-qualified and simple spellings
 * (call-names.ts).
 */
import { policyTwins } from "../test/policy-twins";

const COMMAND = { rule: "java-taint-command", cwe: "CWE-78" };

policyTwins("Java sink arguments", [
  {
    name: "Runtime.exec(command, env, dir): the command, not the directory",
    lang: "java",
    vuln: `
      String archive = request.getParameter("archive");
      File work = Files.createTempDirectory("job-" + request.getParameter("job")).toFile();
      Runtime.getRuntime().exec(new String[] {"tar", "xf", archive}, null, work); // SINK
    `,
    safe: `
      String archive = request.getParameter("archive");
      File work = Files.createTempDirectory("job-" + request.getParameter("job")).toFile();
      Runtime.getRuntime().exec(new String[] {"tar", "xf", "bundle.tar"}, null, work);
    `,
    expect: [COMMAND],
  },
  {
    name: "Runtime.exec's environment is part of the command",
    lang: "java",
    vuln: `
      String lib = request.getParameter("lib");
      java.lang.Runtime.getRuntime().exec("/usr/bin/report", new String[] {"LD_PRELOAD=" + lib}); // SINK
    `,
    safe: `
      String lib = request.getParameter("lib");
      java.lang.Runtime.getRuntime().exec("/usr/bin/report", new String[] {"LD_PRELOAD=/opt/lib/" + Integer.parseInt(lib) + ".so"});
    `,
    expect: [COMMAND],
  },
  {
    name: "ProcessBuilder.command(list) replaces the command",
    lang: "java",
    vuln: `
      ProcessBuilder pb = new ProcessBuilder("true");
      pb.command("sh", "-c", request.getParameter("script")); // SINK
      pb.start();
    `,
    safe: `
      ProcessBuilder pb = new ProcessBuilder("true");
      pb.command("sh", "-c", "uptime");
      pb.directory(Files.createTempDirectory(request.getParameter("job")).toFile());
      pb.start();
    `,
    expect: [{ rule: "java-taint-command-builder", cwe: "CWE-78" }],
  },
  {
    name: "session setAttribute: the name as well as the value",
    lang: "java",
    vuln: `
      String key = request.getParameter("key");
      request.getSession().setAttribute(key, "yes"); // SINK
    `,
    safe: `
      String key = request.getParameter("key");
      request.getSession().setAttribute("lastKey", key.length() > 0 ? "set" : "unset");
    `,
    expect: [{ rule: "java-taint-trust-boundary", cwe: "CWE-501" }],
  },
  {
    name: "fully-qualified java.nio.file.Paths.get and java.net.URLEncoder.encode",
    lang: "java",
    vuln: `
      String name = request.getParameter("name");
      byte[] data = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get("/var/uploads", name)); // SINK
    `,
    safe: `
      String name = request.getParameter("name");
      response.getWriter().println(java.net.URLEncoder.encode(name, "UTF-8"));
    `,
    expect: [{ rule: "java-taint-path-nio", cwe: "CWE-22" }],
  },
  {
    name: "new FileOutputStream(file, append): the file, not the flag",
    lang: "java",
    vuln: `
      String log = request.getParameter("log");
      FileOutputStream out = new FileOutputStream("/var/log/app/" + log, true); // SINK
    `,
    safe: `
      boolean append = request.getParameter("append") != null;
      FileOutputStream out = new FileOutputStream("/var/log/app/main.log", append);
    `,
    expect: [{ rule: "java-taint-path", cwe: "CWE-22" }],
  },
]);

policyTwins("Python sink arguments", [
  {
    name: "subprocess.run(args, shell=True, cwd=…): the command, not the directory",
    lang: "python",
    vuln: `
      import subprocess
      from flask import request

      def run():
          subprocess.run("make " + request.args.get("target"), shell=True, cwd="/srv/build")  # SINK
    `,
    safe: `
      import subprocess
      from flask import request

      def run():
          subprocess.run("make all", shell=True, cwd=request.args.get("dir"))
    `,
    expect: [{ rule: "py-taint-subprocess-shell", cwe: "CWE-78" }],
  },
  {
    name: "make_response(body, status, headers): headers are header injection",
    lang: "python",
    vuln: `
      from flask import make_response, request

      def hello():
          name = request.args.get("name")
          return make_response("ok", 200, {"X-User": name})  # SINK
    `,
    safe: `
      from flask import make_response, request
      from markupsafe import escape

      def hello():
          name = request.args.get("name")
          return make_response(escape(name), 200, {"X-User": "anonymous"})
    `,
    expect: [{ rule: "py-taint-header-response", cwe: "CWE-113" }],
  },
  {
    name: "response.headers.set(name, value)",
    lang: "python",
    vuln: `
      from flask import make_response, request

      def hello():
          response = make_response("ok")
          response.headers.set("X-Lang", request.args.get("lang"))  # SINK
          return response
    `,
    safe: `
      from flask import make_response, request

      def hello():
          response = make_response("ok")
          response.headers.set("X-Lang", "en" if request.args.get("lang") == "en" else "fr")
          return response
    `,
    expect: [{ rule: "py-taint-header-set", cwe: "CWE-113" }],
  },
  {
    name: "os.path.join(base, x) carries x into open()",
    lang: "python",
    vuln: `
      import os
      from flask import request

      def download():
          return open(os.path.join("/srv/files", request.args.get("name"))).read()  # SINK
    `,
    safe: `
      import os
      from flask import request
      from werkzeug.utils import secure_filename

      def download():
          return open(os.path.join("/srv/files", secure_filename(request.args.get("name")))).read()
    `,
    expect: [{ rule: "py-taint-path-open", cwe: "CWE-22" }],
  },
]);

policyTwins("JavaScript sink arguments", [
  {
    name: "fs.writeFile(path, data): the path only",
    lang: "javascript",
    vuln: `
      const fs = require("fs");
      app.post("/save", (req, res) => {
        fs.writeFile("/srv/notes/" + req.body.name, "empty", () => res.end()); // SINK
      });
    `,
    safe: `
      const fs = require("fs");
      app.post("/save", (req, res) => {
        fs.writeFile("/srv/notes/latest.txt", req.body.text, () => res.end());
      });
    `,
    expect: [{ rule: "js-taint-path", cwe: "CWE-22" }],
  },
  {
    name: "fs.renameSync(from, to): both paths",
    lang: "javascript",
    vuln: `
      const fs = require("fs");
      app.post("/move", (req, res) => {
        fs.renameSync("/srv/tmp/upload", req.body.dest); // SINK
        res.end();
      });
    `,
    safe: `
      const fs = require("fs");
      app.post("/move", (req, res) => {
        fs.renameSync("/srv/tmp/upload", "/srv/files/" + Number(req.body.id));
        res.end();
      });
    `,
    expect: [{ rule: "js-taint-path-pair", cwe: "CWE-22" }],
  },
  {
    name: "res.redirect(status, url): the URL",
    lang: "javascript",
    vuln: `
      app.get("/login", (req, res) => {
        res.redirect(302, req.query.next); // SINK
      });
    `,
    safe: `
      app.get("/login", (req, res) => {
        res.redirect(Number(req.query.code), "/home");
      });
    `,
    expect: [{ rule: "js-taint-redirect", cwe: "CWE-601" }],
  },
  {
    name: "res.setHeader(name, value): the name as well",
    lang: "javascript",
    vuln: `
      app.get("/trace", (req, res) => {
        res.setHeader(req.query.header, "1"); // SINK
        res.end();
      });
    `,
    safe: `
      app.get("/trace", (req, res) => {
        res.setHeader("X-Count", Number(req.query.n));
        res.end();
      });
    `,
    expect: [{ rule: "js-taint-header", cwe: "CWE-113" }],
  },
]);

const FLASK = `
  from flask import Flask, render_template, request

  app = Flask(__name__)
`;

policyTwins("Flask view response tuples", [
  {
    name: "(body, status): the body is HTML",
    lang: "python",
    vuln: `${FLASK}
      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          return "<h1>Hello " + name + "</h1>", 200  # SINK
    `,
    safe: `${FLASK}
      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          if not name:
              return {"error": "no name", "given": name}, 400
          return render_template("hello.html", name=name), 200
    `,
    expect: [{ rule: "py-taint-xss", cwe: "CWE-79" }],
  },
  {
    name: "(body, status, headers): the headers",
    lang: "python",
    vuln: `${FLASK}
      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          return "ok", 200, {"X-User": name}  # SINK
    `,
    safe: `${FLASK}
      @app.route("/hello")
      def hello():
          name = request.args.get("name", "")
          return "ok", 200, {"X-User": "anonymous", "X-Known": "yes" if name else "no"}
    `,
    expect: [{ rule: "py-taint-header-response", cwe: "CWE-113" }],
  },
]);

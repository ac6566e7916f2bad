/**
 * Sinks completing the tables (issue 20): java.nio `Files.*` fed by `Paths.get`/`resolve`;
 * pathlib I/O, `os.path` probes, elementpath XPath, shell argument vectors in Python;
 * `require`/`import()`, vm2, headless browsers, `xpath.parse`, Expat entity expansion and
 * archive entry names (zip slip) in JavaScript. Each with a vulnerable and a safe twin.
 */
import { fileTwins } from "../test/file-twins";

const PATH_PY = { rule: "py-taint-path-pathlib", cwe: "CWE-22" };

fileTwins("Java sink tables", [
  {
    name: "Files.readAllBytes(base.resolve(name))",
    lang: "java",
    vuln: `
      package com.example.web;

      public class Downloads extends HttpServlet {
          private final Path base = Paths.get("/srv/files");

          protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
              Path file = base.resolve(request.getParameter("name"));
              byte[] data = Files.readAllBytes(file); // SINK
              response.setContentLength(data.length);
          }
      }
    `,
    safe: `
      package com.example.web;

      public class Downloads extends HttpServlet {
          private final Path base = Paths.get("/srv/files");

          protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
              Path file = base.resolve(request.getParameter("name")).normalize();
              if (!file.startsWith(base)) {
                  response.sendError(403);
                  return;
              }
              byte[] data = Files.readAllBytes(file);
              response.setContentLength(data.length);
          }
      }
    `,
    expect: [{ rule: "java-taint-path-files", cwe: "CWE-22" }],
  },
  {
    name: "Files.copy(upload, target): the target, not the stream",
    lang: "java",
    vuln: `
      package com.example.web;

      public class Uploads extends HttpServlet {
          protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
              Path target = Path.of("/srv/uploads").resolve(request.getHeader("X-File-Name"));
              Files.copy(request.getInputStream(), target); // SINK
          }
      }
    `,
    safe: `
      package com.example.web;

      public class Uploads extends HttpServlet {
          protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
              Path target = Path.of("/srv/uploads").resolve(UUID.randomUUID().toString());
              Files.copy(request.getInputStream(), target);
          }
      }
    `,
    expect: [{ rule: "java-taint-path-files", cwe: "CWE-22" }],
  },
]);

fileTwins("Python sink tables", [
  {
    name: "pathlib: (Path(base) / name).read_text()",
    lang: "python",
    vuln: `
      from pathlib import Path
      from flask import Flask, request

      app = Flask(__name__)
      BASE = Path("/srv/docs")

      @app.route("/doc")
      def doc():
          target = BASE / request.args["name"]
          return {"text": target.read_text()}  # SINK
    `,
    safe: `
      from pathlib import Path
      from flask import Flask, request
      from werkzeug.utils import secure_filename

      app = Flask(__name__)
      BASE = Path("/srv/docs")

      @app.route("/doc")
      def doc():
          target = BASE / secure_filename(request.args["name"])
          return {"text": target.read_text()}
    `,
    expect: [PATH_PY],
  },
  {
    name: "pathlib: Path(x).open() and write_bytes",
    lang: "python",
    vuln: `
      import pathlib
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/save", methods=["POST"])
      def save():
          path = pathlib.Path(request.form["path"])
          with path.open("wb") as out:  # SINK
              out.write(request.get_data())
          return {"saved": True}
    `,
    safe: `
      import pathlib
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/save", methods=["POST"])
      def save():
          path = pathlib.Path("/srv/inbox/latest.bin")
          path.write_bytes(request.get_data())
          return {"saved": True}
    `,
    expect: [{ rule: "py-taint-path-pathlib-open", cwe: "CWE-22" }],
  },
  {
    name: "os.path probes are a low-severity oracle",
    lang: "python",
    vuln: `
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/exists")
      def exists():
          return {"found": os.path.exists(request.args["p"])}  # SINK
    `,
    safe: `
      import os
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/exists")
      def exists():
          return {"found": os.path.exists(os.path.join("/srv/reports", os.path.basename(request.args["p"])))}
    `,
    expect: [{ rule: "py-taint-path-probe", cwe: "CWE-22" }],
  },
  {
    name: "elementpath.select with an expression built from input",
    lang: "python",
    vuln: `
      import elementpath
      from flask import Flask, request
      from xml.etree import ElementTree

      app = Flask(__name__)
      ROOT = ElementTree.parse("users.xml").getroot()

      @app.route("/user")
      def user():
          name = request.args["name"]
          return {"n": len(elementpath.select(ROOT, "//user[@name='" + name + "']"))}  # SINK
    `,
    safe: `
      import elementpath
      from flask import Flask, request
      from xml.etree import ElementTree

      app = Flask(__name__)
      ROOT = ElementTree.parse("users.xml").getroot()

      @app.route("/user")
      def user():
          name = request.args["name"]
          return {"n": len(elementpath.select(ROOT, "//user[@name=$name]", variables={"name": name}))}
    `,
    expect: [{ rule: "py-taint-xpath-elementpath", cwe: "CWE-643" }],
  },
  {
    name: 'subprocess.run(["sh", "-c", cmd]) is a shell without shell=True',
    lang: "python",
    vuln: `
      import subprocess
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/grep")
      def grep():
          pattern = request.args["q"]
          out = subprocess.run(["sh", "-c", "grep " + pattern + " /var/log/app.log"], capture_output=True)  # SINK
          return {"out": out.stdout.decode()}
    `,
    safe: `
      import subprocess
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/grep")
      def grep():
          pattern = request.args["q"]
          out = subprocess.run(["grep", "--", pattern, "/var/log/app.log"], capture_output=True)
          return {"out": out.stdout.decode()}
    `,
    expect: [{ rule: "py-taint-subprocess-shell-argv", cwe: "CWE-78" }],
  },
  {
    name: "an argument list held in a variable: /bin/bash -c",
    lang: "python",
    vuln: `
      import subprocess
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/ping")
      def ping():
          argv = ["/bin/bash", "-c", "ping -c 1 " + request.args["host"]]
          subprocess.Popen(argv, shell=False).wait()  # SINK
          return {"ok": True}
    `,
    safe: `
      import subprocess
      from flask import Flask, request

      app = Flask(__name__)

      @app.route("/ping")
      def ping():
          argv = ["/bin/bash", "/opt/tools/ping.sh", request.args["host"]]
          subprocess.Popen(argv, shell=False).wait()
          return {"ok": True}
    `,
    expect: [{ rule: "py-taint-subprocess-shell-argv", cwe: "CWE-78" }],
  },
]);

fileTwins("JavaScript sink tables", [
  {
    name: "require() of a module named by the request",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const app = express();
      app.get("/export", (req, res) => {
        const exporter = require("./exporters/" + req.query.format); // SINK
        res.json(exporter.run());
      });
    `,
    safe: `
      const express = require("express");
      const app = express();
      app.get("/export", (req, res) => {
        const format = req.query.format;
        if (!["csv", "json"].includes(format)) return res.status(400).end();
        const exporter = require("./exporters/" + format);
        res.json(exporter.run());
      });
    `,
    expect: [{ rule: "js-taint-code-require", cwe: "CWE-94" }],
  },
  {
    name: "import() and vm2 run",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const { VM } = require("vm2");
      const app = express();
      app.post("/plugin", async (req, res) => {
        const plugin = await import(req.body.plugin); // SINK
        const vm = new VM({ timeout: 100 });
        res.json({ out: vm.run(req.body.expr), name: plugin.name }); // SINK
      });
    `,
    safe: `
      const express = require("express");
      const { VM } = require("vm2");
      const app = express();
      app.post("/plugin", async (req, res) => {
        const plugin = await import("./plugins/default.js");
        const vm = new VM({ timeout: 100, sandbox: { input: req.body.expr } });
        res.json({ out: vm.run("input.length"), name: plugin.name });
      });
    `,
    expect: [
      { rule: "js-taint-code-import", cwe: "CWE-94" },
      { rule: "js-taint-code-vm2", cwe: "CWE-95" },
    ],
  },
  {
    name: "a headless browser page: goto, setContent, evaluate",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const puppeteer = require("puppeteer");
      const app = express();
      app.get("/shot", async (req, res) => {
        const browser = await puppeteer.launch();
        const page = await browser.newPage();
        await page.goto(req.query.url); // SINK
        await page.setContent(req.query.html); // SINK
        await page.evaluate(req.query.script); // SINK
        res.end(await page.screenshot());
      });
    `,
    safe: `
      const express = require("express");
      const puppeteer = require("puppeteer");
      const app = express();
      app.get("/shot", async (req, res) => {
        const browser = await puppeteer.launch();
        const page = await browser.newPage();
        await page.goto("https://reports.example.com/view?id=" + encodeURIComponent(req.query.id));
        await page.evaluate((sel) => document.querySelector(sel).remove(), req.query.selector);
        res.end(await page.screenshot());
      });
    `,
    expect: [
      { rule: "js-taint-ssrf-browser", cwe: "CWE-918" },
      { rule: "js-taint-ssrf-browser-content", cwe: "CWE-918" },
      { rule: "js-taint-code-browser", cwe: "CWE-95" },
    ],
  },
  {
    name: "xpath.parse of an expression built from input",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const xpath = require("xpath");
      const app = express();
      app.get("/find", (req, res) => {
        const expr = xpath.parse("//book[title='" + req.query.title + "']"); // SINK
        res.json({ ok: !!expr });
      });
    `,
    safe: `
      const express = require("express");
      const xpath = require("xpath");
      const app = express();
      app.get("/find", (req, res) => {
        const expr = xpath.parse("//book[title=$title]");
        res.json({ ok: !!expr.select({ node: doc, variables: { title: req.query.title } }) });
      });
    `,
    expect: [{ rule: "js-taint-xpath", cwe: "CWE-643" }],
  },
  {
    name: "node-expat and xml2json expand entities",
    lang: "javascript",
    vuln: `
      const express = require("express");
      const expat = require("node-expat");
      const xml2json = require("xml2json");
      const app = express();
      app.post("/import", (req, res) => {
        const parser = new expat.Parser("UTF-8");
        parser.write(req.body.xml); // SINK
        res.json(JSON.parse(xml2json.toJson(req.body.xml))); // SINK
      });
    `,
    safe: `
      const express = require("express");
      const expat = require("node-expat");
      const xml2json = require("xml2json");
      const app = express();
      app.post("/import", (req, res) => {
        const parser = new expat.Parser("UTF-8");
        parser.write("<status>ok</status>");
        res.json(JSON.parse(xml2json.toJson("<count>" + Number(req.body.count) + "</count>")));
      });
    `,
    expect: [
      { rule: "js-taint-xml-entity-expansion", cwe: "CWE-776" },
      { rule: "js-taint-xml-entity-expansion-xml2json", cwe: "CWE-776" },
    ],
  },
  {
    name: "zip slip: an adm-zip entry name joined into the extraction path",
    lang: "javascript",
    vuln: `
      const fs = require("fs");
      const path = require("path");
      const AdmZip = require("adm-zip");

      function extract(archive, dest) {
        const zip = new AdmZip(archive);
        zip.getEntries().forEach((entry) => {
          fs.writeFileSync(path.join(dest, entry.entryName), entry.getData()); // SINK
        });
      }
      module.exports = { extract };
    `,
    safe: `
      const fs = require("fs");
      const path = require("path");
      const AdmZip = require("adm-zip");

      function extract(archive, dest) {
        const zip = new AdmZip(archive);
        zip.getEntries().forEach((entry) => {
          fs.writeFileSync(path.join(dest, path.basename(entry.entryName)), entry.getData());
        });
      }
      module.exports = { extract };
    `,
    expect: [{ rule: "js-taint-path", cwe: "CWE-22" }],
  },
  {
    name: "zip slip: unzipper's entry event and tar's onentry",
    lang: "javascript",
    vuln: `
      const fs = require("fs");
      const path = require("path");
      const tar = require("tar");
      const unzipper = require("unzipper");

      function unzip(archive, dest) {
        fs.createReadStream(archive)
          .pipe(unzipper.Parse())
          .on("entry", (entry) => {
            entry.pipe(fs.createWriteStream(path.join(dest, entry.path))); // SINK
          });
      }

      function untar(archive, dest) {
        tar.t({
          file: archive,
          onentry: (entry) => {
            fs.mkdirSync(path.join(dest, path.dirname(entry.path)), { recursive: true }); // SINK
          },
        });
      }
      module.exports = { unzip, untar };
    `,
    safe: `
      const fs = require("fs");
      const path = require("path");
      const tar = require("tar");
      const unzipper = require("unzipper");

      function unzip(archive, dest) {
        fs.createReadStream(archive)
          .pipe(unzipper.Parse())
          .on("entry", (entry) => {
            const target = path.resolve(dest, entry.path);
            if (!target.startsWith(path.resolve(dest) + path.sep)) return entry.autodrain();
            entry.pipe(fs.createWriteStream(target));
          });
      }

      function untar(archive, dest) {
        tar.t({
          file: archive,
          onentry: (entry) => {
            fs.mkdirSync(path.join(dest, "entries", path.basename(entry.path)), { recursive: true });
          },
        });
      }
      module.exports = { unzip, untar };
    `,
    expect: [
      { rule: "js-taint-path", cwe: "CWE-22" },
      { rule: "js-taint-path", cwe: "CWE-22" },
    ],
  },
]);

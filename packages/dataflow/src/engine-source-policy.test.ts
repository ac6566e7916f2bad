/**
 * Source policy (source-policy.ts): a file read from a constant path inside the application
 * is not untrusted input; a file from an absolute, environment-chosen or tainted path stays a
 * source; configuration from a bundled resource resolves to the default its lookup names.
 */
import { hits, policyTwins } from "../test/policy-twins";

const SQL = { rule: "java-taint-sql", cwe: "CWE-89" };
const PY_SQL = { rule: "py-taint-sql", cwe: "CWE-89" };

policyTwins("file reads", [
  {
    name: "a reader over a file of the application is not a source",
    lang: "java",
    vuln: `
      BufferedReader in = new BufferedReader(new FileReader("/var/spool/jobs/next.txt"));
      stmt.executeQuery("SELECT * FROM jobs WHERE name = '" + in.readLine() + "'"); // SINK
    `,
    safe: `
      BufferedReader in = new BufferedReader(new FileReader("config/app.txt"));
      stmt.executeQuery("SELECT * FROM jobs WHERE name = '" + in.readLine() + "'");
    `,
    expect: [SQL],
  },
  {
    name: "open() of a template next to the module is not a source",
    lang: "python",
    vuln: `
      def report(cursor, folder):
          with open(folder + "/query.sql") as f:
              cursor.execute(f.read())  # SINK
          with open("/tmp/query.sql") as f:
              cursor.execute(f.read())  # SINK
    `,
    safe: `
      import os

      HERE = os.path.dirname(__file__)

      def report(cursor):
          with open(os.path.join(os.path.dirname(__file__), "sql", "report.sql")) as f:
              cursor.execute(f.read())
          with open("templates/report.sql") as f:
              cursor.execute(f.read())
    `,
    expect: [PY_SQL, PY_SQL],
  },
  {
    name: "a page read next to the module is not tainted; one read from a request path is",
    lang: "javascript",
    vuln: `
      const fs = require("fs");
      const path = require("path");
      app.get("/page", (req, res) => {
        const page = fs.readFileSync(path.join("/srv/pages", req.query.name), "utf8"); // SINK
        res.send(page); // SINK
      });
    `,
    safe: `
      const fs = require("fs");
      const path = require("path");
      app.get("/page", (req, res) => {
        const page = fs.readFileSync(path.join(__dirname, "views", "page.html"), "utf8");
        res.send(page);
      });
    `,
    expect: [
      { rule: "js-taint-path", cwe: "CWE-22" },
      { rule: "js-taint-xss", cwe: "CWE-79" },
    ],
  },
]);

policyTwins("bundled configuration", [
  {
    name: "Properties from a classpath resource resolve to the lookup's default",
    lang: "java",
    vuln: `
      Properties props = new Properties();
      props.load(new FileInputStream("/etc/app/app.properties"));
      String mode = props.getProperty("mode", "safe");
      if (mode.equals("debug")) {
        Runtime.getRuntime().exec(request.getParameter("cmd")); // SINK
      }
      stmt.executeQuery("SELECT * FROM " + props.getProperty("table", "users")); // SINK
    `,
    safe: `
      Properties props = new Properties();
      props.load(getClass().getResourceAsStream("/app.properties"));
      String mode = props.getProperty("mode", "safe");
      if (mode.equals("debug")) {
        Runtime.getRuntime().exec(request.getParameter("cmd"));
      }
      stmt.executeQuery("SELECT * FROM " + props.getProperty("table", "users"));
    `,
    expect: [{ rule: "java-taint-command", cwe: "CWE-78" }, SQL],
  },
  {
    name: "configparser over a bundled file resolves to the fallback",
    lang: "python",
    vuln: `
      import configparser
      import os
      from flask import request

      def run():
          config = configparser.ConfigParser()
          config.read(os.environ["APP_INI"])
          mode = config.get("app", "mode", fallback="safe")
          if mode == "debug":
              os.system(request.args.get("cmd"))  # SINK
    `,
    safe: `
      import configparser
      import os
      from flask import request

      def run():
          config = configparser.ConfigParser()
          config.read("app.ini")
          mode = config.get("app", "mode", fallback="safe")
          if mode == "debug":
              os.system(request.args.get("cmd"))
    `,
    expect: [{ rule: "py-taint-os-command", cwe: "CWE-78" }],
  },
]);

describe("source policy: a file read from a tainted path stays a source", () => {
  it("reports the path and the contents read from it (Java)", () => {
    const src = `
      BufferedReader in = new BufferedReader(new FileReader(request.getParameter("f"))); // SINK
      stmt.executeQuery("SELECT * FROM jobs WHERE name = '" + in.readLine() + "'"); // SINK
    `;
    expect(hits("java", src).map((h) => h.cwe)).toEqual(["CWE-22", "CWE-89"]);
  });

  it("reports the path and the contents read from it (Python)", () => {
    const src = `
      from flask import request

      def show(cursor):
          with open(request.args.get("f")) as f:
              cursor.execute(f.read())
    `;
    expect(hits("python", src).map((h) => h.cwe)).toEqual(["CWE-22", "CWE-89"]);
  });
});

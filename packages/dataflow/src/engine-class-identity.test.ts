/**
 * Class identity in Python and JavaScript: classes are keyed by their module file, so two
 * modules that each define a `Helper` keep their methods apart; the one a file imports is the
 * one its calls reach.
 */
import { analyzeModules } from "./engine";
import { LOWERERS, SPECS } from "./languages";
import { dedent } from "../test/java-twins";

type Files = Readonly<Record<string, string>>;

function found(files: Files): { file: string; line: number }[] {
  const texts = new Map(Object.entries(files).map(([f, s]) => [f, dedent(s)]));
  const modules = [...texts].map(([f, s]) => LOWERERS.get(f.endsWith(".py") ? "python" : "javascript")!(f, s));
  return analyzeModules(modules, { specs: SPECS, lines: (f) => (texts.get(f) ?? "").split("\n") }).map((t) => ({
    file: t.file,
    line: t.start_line,
  }));
}

function sinkOf(files: Files): { file: string; line: number } {
  const [file, text] = Object.entries(files).find(([, s]) => s.includes("SINK")) ?? ["", ""];
  return {
    file,
    line:
      dedent(text)
        .split("\n")
        .findIndex((l) => l.includes("SINK")) + 1,
  };
}

const PY_HELPERS = {
  "app/raw/helper.py": `
    class Helper:
        def prepare(self, s):
            return s
  `,
  "app/clean/helper.py": `
    class Helper:
        def prepare(self, s):
            return "guest"
  `,
};

function pyRoute(pkg: string): Files {
  return {
    ...PY_HELPERS,
    "app/views.py": `
      import sqlite3
      from flask import request
      from app.${pkg}.helper import Helper
      def search():
          h = Helper()
          name = h.prepare(request.args.get("name"))
          sqlite3.connect("db").execute("SELECT * FROM users WHERE name = '" + name + "'") # SINK
    `,
  };
}

const JS_HELPERS = {
  "lib/raw.js": `
    class Helper {
      prepare(s) { return s; }
    }
    module.exports = { Helper };
  `,
  "lib/clean.js": `
    class Helper {
      prepare(s) { return "guest"; }
    }
    module.exports = { Helper };
  `,
};

function jsRoute(mod: string): Files {
  return {
    ...JS_HELPERS,
    "routes.js": `
      const { Helper } = require("./lib/${mod}");
      const express = require("express");
      const app = express();
      app.get("/users", (req, res) => {
        const h = new Helper();
        const name = h.prepare(req.query.name);
        db.query("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      });
    `,
  };
}

describe.each([
  ["Python: two modules each defining class Helper", pyRoute("raw"), pyRoute("clean")],
  ["JavaScript: two modules each defining class Helper", jsRoute("raw"), jsRoute("clean")],
])("%s", (_name, vuln, safe) => {
  it("reports the vulnerable twin at its sink", () => {
    expect(found(vuln)).toEqual([sinkOf(vuln)]);
  });
  it("reports nothing for the safe twin", () => {
    expect(found(safe)).toEqual([]);
  });
});

// Guard sanitizers (guards.ts): a failed check that exits leaves the checked variable clean
// for the weakness the check neutralises; the positive form cleans inside its block only.
// Each safe twin has a vulnerable twin that differs by one thing: the check is on another
// variable, has no exit, checks the wrong metacharacter, or the sink is outside the block.
import { inServlet, twins, COMMAND } from "../test/java-twins";
import { langTwins, type LangTwin } from "../test/lang-twins";

const PY_HEAD = `
  from flask import request, abort, redirect
  import os, re, sqlite3
  import requests
  from urllib.parse import urlparse
  ALLOWED = {"report", "summary"}
  HOSTS = {"api.example.com"}
  ROUTES = {"home": "/", "about": "/about"}
  BASE = "/srv/files"
  def handler():
      x = request.args.get("p")
      y = request.args.get("q")
`;
const pyBody = (body: string) => PY_HEAD + body.replace(/^\n/, "").replace(/^/gm, "      ");
const PY_OPEN = `open(x) # SINK`;
const PY_SQL = `sqlite3.connect("d").execute("SELECT * FROM t WHERE a = '" + x + "'") # SINK`;

function py(name: string, cwe: string, safe: string, vuln: string): LangTwin {
  return { name, lang: "python", cwe, safe: pyBody(safe), vuln: pyBody(vuln) };
}

langTwins("Python guards", [
  py(
    "`..` rejected with return vs check on another variable",
    "CWE-22",
    `if ".." in x:\n    return "no"\n${PY_OPEN}`,
    `if ".." in y:\n    return "no"\n${PY_OPEN}`,
  ),
  py(
    "`..` rejected with abort() vs no exit",
    "CWE-22",
    `if ".." in x:\n    abort(400)\n${PY_OPEN}`,
    `if ".." in x:\n    print("odd")\n${PY_OPEN}`,
  ),
  py(
    "`..` rejected with raise, elif chain",
    "CWE-22",
    `if not x:\n    return "empty"\nelif ".." in x:\n    raise ValueError("bad")\n${PY_OPEN}`,
    `if not x:\n    return "empty"\nelif "<" in x:\n    raise ValueError("bad")\n${PY_OPEN}`,
  ),
  py(
    "quote rejected (SQL) vs `<` rejected",
    "CWE-89",
    `if "'" in x:\n    return "no"\n${PY_SQL}`,
    `if "<" in x:\n    return "no"\n${PY_SQL}`,
  ),
  py(
    "`..` rejection does not clean SQL",
    "CWE-89",
    `if "'" in x or ".." in x:\n    return "no"\n${PY_SQL}`,
    `if ".." in x:\n    return "no"\n${PY_SQL}`,
  ),
  py(
    "allowlist `not in` with return",
    "CWE-89",
    `if x not in ALLOWED:\n    return "no"\n${PY_SQL}`,
    `if y not in ALLOWED:\n    return "no"\n${PY_SQL}`,
  ),
  py(
    "positive allowlist cleans inside the block only",
    "CWE-89",
    `if x in ALLOWED:\n    ${PY_SQL}`,
    `if x in ALLOWED:\n    pass\n${PY_SQL}`,
  ),
  py(
    "re.fullmatch vs re.search",
    "CWE-89",
    `if not re.fullmatch(r"[a-z]+", x):\n    abort(400)\n${PY_SQL}`,
    `if not re.search(r"[a-z]+", x):\n    abort(400)\n${PY_SQL}`,
  ),
  py(
    "anchored re.match vs unanchored",
    "CWE-89",
    `if not re.match(r"^[a-z]+$", x):\n    abort(400)\n${PY_SQL}`,
    `if not re.match(r"^[a-z]+", x):\n    abort(400)\n${PY_SQL}`,
  ),
  py("isdigit", "CWE-89", `if not x.isdigit():\n    return "no"\n${PY_SQL}`, `if not y.isdigit():\n    return "no"\n${PY_SQL}`),
  py(
    "realpath containment vs plain join",
    "CWE-22",
    `full = os.path.realpath(os.path.join(BASE, x))\nif not full.startswith(BASE):\n    abort(403)\nopen(full) # SINK`,
    `full = os.path.join(BASE, x)\nif not full.startswith(BASE):\n    abort(403)\nopen(full) # SINK`,
  ),
  py(
    "realpath(x).startswith in the condition",
    "CWE-22",
    `if not os.path.realpath(x).startswith(BASE):\n    abort(403)\n${PY_OPEN}`,
    `if not x.startswith(BASE):\n    abort(403)\n${PY_OPEN}`,
  ),
  py(
    "URL host allowlist (SSRF) vs path checked",
    "CWE-918",
    `u = urlparse(x)\nif u.scheme != "https" or u.hostname not in HOSTS:\n    abort(400)\nrequests.get(x) # SINK`,
    `u = urlparse(x)\nif u.scheme != "https" or u.path not in ALLOWED:\n    abort(400)\nrequests.get(x) # SINK`,
  ),
  py(
    "match on constant cases",
    "CWE-89",
    `match x:\n    case "asc" | "desc":\n        ${PY_SQL}\n    case _:\n        pass`,
    `match x:\n    case "asc" | "desc":\n        pass\n    case _:\n        ${PY_SQL}`,
  ),
  py(
    "allowlist of dict keys",
    "CWE-89",
    `if x not in ROUTES.keys():\n    return "no"\n${PY_SQL}`,
    `if x not in ROUTES.keys():\n    pass\n${PY_SQL}`,
  ),
  py(
    "continue in a loop",
    "CWE-22",
    `for name in [x, y]:\n    if ".." in name:\n        continue\n    open(name) # SINK`,
    `for name in [x, y]:\n    if ".." in x:\n        continue\n    open(name) # SINK`,
  ),
  py(
    "replace('<', '&lt;') vs replace of another character",
    "CWE-79",
    `return make_response(x.replace("<", "&lt;")) # SINK`.replace("# SINK", ""),
    `return make_response(x.replace(">", "&gt;")) # SINK`,
  ),
  py('replace("\'", "\'\'") for SQL', "CWE-89", `x = x.replace("'", "''")\n${PY_SQL}`, `x = x.replace('"', '""')\n${PY_SQL}`),
]);

const JS_HEAD = `
  const express = require("express");
  const fs = require("fs");
  const path = require("path");
  const axios = require("axios");
  const app = express();
  const ALLOWED = ["report", "summary"];
  const HOSTS = new Set(["api.example.com"]);
  const BASE = "/srv/files";
  app.get("/a", (req, res) => {
    const x = req.query.p;
    const y = req.query.q;
`;
const jsBody = (body: string) => `${JS_HEAD}${body.replace(/^/gm, "    ")}\n  });\n`;
const JS_READ = `fs.readFile(x, () => {}); // SINK`;
const JS_SEND = `res.send(x); // SINK`;

function js(name: string, cwe: string, safe: string, vuln: string): LangTwin {
  return { name, lang: "javascript", cwe, safe: jsBody(safe), vuln: jsBody(vuln) };
}

langTwins("JavaScript guards", [
  js(
    "includes('..') with res.status(400).send(); return",
    "CWE-22",
    `if (x.includes("..")) {\n  res.status(400).send("no");\n  return;\n}\n${JS_READ}`,
    `if (x.includes("..")) {\n  res.status(400).send("no");\n}\n${JS_READ}`,
  ),
  js(
    "return res.status(400).send() vs another variable",
    "CWE-22",
    `if (x.includes("..")) return res.status(400).send("no");\n${JS_READ}`,
    `if (y.includes("..")) return res.status(400).send("no");\n${JS_READ}`,
  ),
  js(
    "indexOf('<') !== -1 with throw",
    "CWE-79",
    `if (x.indexOf("<") !== -1) throw new Error("bad");\n${JS_SEND}`,
    `if (x.indexOf("'") !== -1) throw new Error("bad");\n${JS_SEND}`,
  ),
  js(
    "allowlist includes",
    "CWE-79",
    `if (!ALLOWED.includes(x)) return res.sendStatus(400);\n${JS_SEND}`,
    `if (!ALLOWED.includes(y)) return res.sendStatus(400);\n${JS_SEND}`,
  ),
  js("positive Set.has", "CWE-79", `if (HOSTS.has(x)) {\n  ${JS_SEND}\n}`, `if (HOSTS.has(x)) {\n  console.log("ok");\n}\n${JS_SEND}`),
  js(
    "anchored regex test vs unanchored",
    "CWE-79",
    `if (!/^[a-z0-9]+$/.test(x)) return res.sendStatus(400);\n${JS_SEND}`,
    `if (!/[a-z0-9]+/.test(x)) return res.sendStatus(400);\n${JS_SEND}`,
  ),
  js(
    "path.resolve containment",
    "CWE-22",
    `const full = path.resolve(BASE, x);\nif (!full.startsWith(BASE)) return res.sendStatus(403);\nfs.readFile(full, () => {}); // SINK`,
    `const full = path.join(BASE, x);\nif (!full.startsWith(BASE)) return res.sendStatus(403);\nfs.readFile(full, () => {}); // SINK`,
  ),
  js(
    "new URL host allowlist (SSRF)",
    "CWE-918",
    `const u = new URL(x);\nif (u.protocol !== "https:" || !HOSTS.has(u.hostname)) return res.sendStatus(400);\naxios.get(x); // SINK`,
    `const u = new URL(x);\nif (u.protocol !== "https:") return res.sendStatus(400);\naxios.get(x); // SINK`,
  ),
  js("replace(/</g, '&lt;')", "CWE-79", `res.send(x.replace(/</g, "&lt;"));`, `res.send(x.replace(/</, "&lt;")); // SINK`),
  js(
    "validator.isUUID",
    "CWE-79",
    `if (!validator.isUUID(x)) return res.sendStatus(400);\n${JS_SEND}`,
    `if (!validator.isUUID(y)) return res.sendStatus(400);\n${JS_SEND}`,
  ),
  js(
    "ternary positive form",
    "CWE-79",
    `res.send(ALLOWED.includes(x) ? x : "none");`,
    `res.send(ALLOWED.includes(y) ? x : "none"); // SINK`,
  ),
]);

const J_SRC = `String x = request.getParameter("p");\nString y = request.getParameter("q");`;
const J_SQL = `stmt.executeQuery("SELECT * FROM t WHERE a = '" + x + "'"); // SINK`;
const J_ALLOWED = `private static final Set<String> ALLOWED = Set.of("report", "summary");`;

twins("Java guards", [
  {
    name: 'contains("\'") with return vs contains("..")',
    safe: inServlet(`${J_SRC}\nif (x.contains("'")) {\n  response.sendError(400);\n  return;\n}\n${J_SQL}`),
    vuln: inServlet(`${J_SRC}\nif (x.contains("..")) {\n  response.sendError(400);\n  return;\n}\n${J_SQL}`),
  },
  {
    name: "Set.contains allowlist with throw vs another variable",
    safe: inServlet(`${J_SRC}\nif (!ALLOWED.contains(x)) {\n  throw new ServletException("bad");\n}\n${J_SQL}`, J_ALLOWED),
    vuln: inServlet(`${J_SRC}\nif (!ALLOWED.contains(y)) {\n  throw new ServletException("bad");\n}\n${J_SQL}`, J_ALLOWED),
  },
  {
    name: "matches() full match vs no exit",
    safe: inServlet(`${J_SRC}\nif (!x.matches("[A-Za-z0-9_]+")) {\n  return;\n}\n${J_SQL}`),
    vuln: inServlet(`${J_SRC}\nif (!x.matches("[A-Za-z0-9_]+")) {\n  response.sendError(400);\n}\n${J_SQL}`),
  },
  {
    name: "equals a constant, positive form",
    safe: inServlet(`${J_SRC}\nif ("asc".equals(x) || x.equals("desc")) {\n  ${J_SQL}\n}`),
    vuln: inServlet(`${J_SRC}\nif ("asc".equals(y)) {\n  ${J_SQL}\n}`),
  },
  {
    name: "switch case of constants vs default",
    safe: inServlet(`${J_SRC}\nswitch (x) {\n  case "asc":\n  case "desc":\n    ${J_SQL}\n    break;\n  default:\n    break;\n}`),
    vuln: inServlet(`${J_SRC}\nswitch (x) {\n  case "asc":\n    break;\n  default:\n    ${J_SQL}\n}`),
  },
  {
    name: "continue in a loop",
    safe: inServlet(`for (String x : request.getParameterValues("p")) {\n  if (x.indexOf("'") >= 0) continue;\n  ${J_SQL}\n}`),
    vuln: inServlet(
      `for (String x : request.getParameterValues("p")) {\n  if (x.indexOf("'") >= 0) System.out.println("quote");\n  ${J_SQL}\n}`,
    ),
  },
  {
    name: 'replace("\'", "\'\'")',
    safe: inServlet(`${J_SRC}\nx = x.replace("'", "''");\n${J_SQL}`),
    vuln: inServlet(`${J_SRC}\nx = x.replace("\\"", "");\n${J_SQL}`),
  },
  {
    name: "normalize() + startsWith containment vs no normalize",
    expect: { rule: "java-taint-path", cwe: "CWE-22" },
    safe: inServlet(
      `${J_SRC}\njava.nio.file.Path base = Paths.get("/srv/files");\njava.nio.file.Path p = base.resolve(x).normalize();\nif (!p.startsWith(base)) {\n  return;\n}\nnew FileInputStream(p.toFile()); // SINK`,
    ),
    vuln: inServlet(
      `${J_SRC}\njava.nio.file.Path base = Paths.get("/srv/files");\njava.nio.file.Path p = base.resolve(x);\nif (!p.startsWith(base)) {\n  return;\n}\nnew FileInputStream(p.toFile()); // SINK`,
    ),
  },
]);
void COMMAND;

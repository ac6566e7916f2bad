// Constant evaluation of pure string methods: branches on `"ABC".charAt(1)`, `s.upper()`,
// `"x".includes(…)` and the like are pruned as arithmetic ones are (fold-strings.ts).
import { inServlet, twins } from "../test/java-twins";
import { langTwins } from "../test/lang-twins";
import { foldStringCall, foldStringIndex, foldStringOp, foldStringSlice } from "./fold-strings";

const JAVA_SOURCE = `String param = request.getParameter("name");`;
const JAVA_QUERY = `stmt.executeQuery("SELECT * FROM users WHERE name = '" + bar + "'"); // SINK`;

function charSwitch(index: number): string {
  return `${JAVA_SOURCE}
String g = "ABC";
char c = g.charAt(${index});
String bar;
switch (c) {
  case 'A':
    bar = param;
    break;
  case 'B':
    bar = "safe";
    break;
  default:
    bar = param;
}
${JAVA_QUERY}`;
}

function javaIf(test: string): string {
  return `${JAVA_SOURCE}\nString bar = "safe";\nString k = "Hello World";\nif (${test}) {\n  bar = param;\n}\n${JAVA_QUERY}`;
}

twins("Java string folding", [
  { name: "switch on charAt(0) vs charAt(1)", vuln: inServlet(charSwitch(0)), safe: inServlet(charSwitch(1)) },
  {
    name: "substring + equals",
    vuln: inServlet(javaIf(`k.substring(0, 5).equals("Hello")`)),
    safe: inServlet(javaIf(`k.substring(1, 5).equals("Hello")`)),
  },
  {
    name: "indexOf, length, isEmpty",
    vuln: inServlet(javaIf(`k.indexOf("W") == 6 && k.length() == 11`)),
    safe: inServlet(javaIf(`k.isEmpty() || k.indexOf("W") == 5`)),
  },
  {
    name: "toUpperCase/trim/startsWith",
    vuln: inServlet(javaIf(`" x ".trim().toUpperCase().startsWith("X")`)),
    safe: inServlet(javaIf(`" x ".toUpperCase().startsWith("X")`)),
  },
  {
    name: "equalsIgnoreCase/contains/endsWith/concat",
    vuln: inServlet(javaIf(`k.concat("!").endsWith("d!") && k.equalsIgnoreCase("hello world")`)),
    safe: inServlet(javaIf(`k.contains("xyz")`)),
  },
  {
    name: "ternary on a folded call",
    vuln: inServlet(`${JAVA_SOURCE}\nString bar = "ab".charAt(0) == 'a' ? param : "safe";\n${JAVA_QUERY}`),
    safe: inServlet(`${JAVA_SOURCE}\nString bar = "ab".charAt(1) == 'a' ? param : "safe";\n${JAVA_QUERY}`),
  },
]);

const PY_HEAD = `
  from flask import request
  import sqlite3
  def handler():
      param = request.args.get("name")
      g = "ABC"
      bar = "safe"
`;
const py = (test: string) =>
  `${PY_HEAD}      if ${test}:\n          bar = param\n      sqlite3.connect("db").execute("SELECT " + bar) # SINK\n`;
const pyMatch = (index: number) =>
  `${PY_HEAD}      match g[${index}]:\n          case "A":\n              bar = param\n          case "B":\n              bar = "safe"\n      sqlite3.connect("db").execute("SELECT " + bar) # SINK\n`;

const JS_HEAD = `
  const express = require("express");
  const app = express();
  app.get("/a", (req, res) => {
    const param = req.query.name;
    const g = "ABC";
    let bar = "safe";
`;
const js = (test: string) => `${JS_HEAD}    if (${test}) { bar = param; }\n    res.send(bar); // SINK\n  });\n`;
const jsSwitch = (index: number) =>
  `${JS_HEAD}    switch (g.charAt(${index})) {\n      case "A": bar = param; break;\n      case "B": bar = "safe"; break;\n      default: bar = param;\n    }\n    res.send(bar); // SINK\n  });\n`;

langTwins("string folding", [
  { name: "indexing + ==", lang: "python", cwe: "CWE-89", vuln: py(`g[0] == "A"`), safe: py(`g[1] == "A"`) },
  {
    name: "in, len, upper, strip, startswith",
    lang: "python",
    cwe: "CWE-89",
    vuln: py(`"B" in g and len(g) == 3 and " abc ".strip().upper().startswith("AB")`),
    safe: py(`"Z" in g or len(g) == 4 or g.lower() == "ABC"`),
  },
  {
    name: "slices",
    lang: "python",
    cwe: "CWE-89",
    vuln: py(`g[1:] == "BC" and g[:-1] == "AB" and g[::1] == "ABC"`),
    safe: py(`g[1:2] == "C" or g[-2:] == "AB"`),
  },
  { name: "match on an index", lang: "python", cwe: "CWE-89", vuln: pyMatch(0), safe: pyMatch(1) },
  { name: "switch on charAt", lang: "javascript", cwe: "CWE-79", vuln: jsSwitch(0), safe: jsSwitch(1) },
  {
    name: "substring, slice, indexOf, includes, length, ===",
    lang: "javascript",
    cwe: "CWE-79",
    vuln: js(`g.substring(1) === "BC" && g.slice(-1) === "C" && g.length === 3`),
    safe: js(`g.indexOf("B") === 0 || g.includes("Z") || " a ".trim().toUpperCase() !== "A"`),
  },
  {
    name: "ternary",
    lang: "javascript",
    cwe: "CWE-79",
    vuln: `${JS_HEAD}    bar = g.charAt(2) === "C" ? param : bar;\n    res.send(bar); // SINK\n  });\n`,
    safe: `${JS_HEAD}    bar = g.charAt(1) === "C" ? param : bar;\n    res.send(bar); // SINK\n  });\n`,
  },
]);

describe("foldStringCall", () => {
  it("folds known methods on constants and leaves the rest", () => {
    expect(foldStringCall("charAt", "ABC", [1])).toBe("B");
    expect(foldStringCall("substring", "Hello", [1, 3])).toBe("el");
    expect(foldStringCall("slice", "Hello", [-2])).toBe("lo");
    expect(foldStringCall("len", undefined, ["abc"])).toBe(3);
    expect(foldStringCall("charAt", "ABC", ["x"])).toBeUndefined();
    expect(foldStringCall("format", "ABC", [])).toBeUndefined();
    expect(foldStringOp("in", "b", "abc")).toBe(true);
    expect(foldStringIndex("abc", -1)).toBe("c");
    expect(foldStringSlice("Hello", [1, 3])).toBe("el");
    expect(foldStringSlice("Hello", [null, -1])).toBe("Hell");
    expect(foldStringSlice("Hello", [undefined, 2])).toBeUndefined();
    expect(foldStringSlice("Hello", [null, null, 2])).toBeUndefined();
  });
});

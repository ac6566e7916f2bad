// Lists with positions (containers.ts): elements of a list made here are tracked by index
// through add/insert/remove/pop/get/size with constant indexes; anything else falls back to the
// whole list. Setters with a section (`config.set(section, key, value)`) store under the key.
import { inServlet, twins } from "../test/java-twins";
import { found, langTwins, sinkLine } from "../test/lang-twins";

const J_SRC = `String param = request.getParameter("p");`;
const J_SQL = `stmt.executeQuery("SELECT * FROM t WHERE a = '" + bar + "'"); // SINK`;
const jList = (ops: string, read: string) =>
  inServlet(
    `${J_SRC}\nList<String> list = new ArrayList<>();\nlist.add("safe");\nlist.add(param);\nlist.add("other");\n${ops}\nString bar = ${read};\n${J_SQL}`,
  );

twins("Java lists with positions", [
  { name: "remove(0) then get(0) vs get(1)", vuln: jList("list.remove(0);", "list.get(0)"), safe: jList("list.remove(0);", "list.get(1)") },
  {
    name: "remove(1) shifts the tainted element out",
    vuln: jList("list.remove(2);", "list.get(1)"),
    safe: jList("list.remove(1);", "list.get(1)"),
  },
  { name: "add(i, x) shifts", vuln: jList(`list.add(0, "first");`, "list.get(2)"), safe: jList(`list.add(0, "first");`, "list.get(1)") },
  { name: "set(i, x) replaces", vuln: jList(`list.set(0, "x");`, "list.get(1)"), safe: jList(`list.set(1, "x");`, "list.get(1)") },
  {
    name: "constant size() prunes a branch",
    vuln: inServlet(
      `${J_SRC}\nList<String> list = new ArrayList<>();\nlist.add("a");\nString bar = list.size() == 1 ? param : "safe";\n${J_SQL}`,
    ),
    safe: inServlet(
      `${J_SRC}\nList<String> list = new ArrayList<>();\nlist.add("a");\nString bar = list.size() == 2 ? param : "safe";\n${J_SQL}`,
    ),
  },
  {
    name: "array literal index and length",
    vuln: inServlet(`${J_SRC}\nString[] arr = new String[] {"a", param};\nString bar = arr.length == 2 ? arr[1] : "safe";\n${J_SQL}`),
    safe: inServlet(`${J_SRC}\nString[] arr = new String[] {"a", param};\nString bar = arr.length == 2 ? arr[0] : param;\n${J_SQL}`),
  },
]);

describe("Java lists: unknown operations fall back to the whole list", () => {
  const cases: [string, string][] = [
    ["a non-constant index", `int i = request.getContentLength();\nString bar = list.get(i);`],
    ["a loop that removes", `for (int i = 0; i < 2; i++) {\n  list.remove(0);\n}\nString bar = list.get(1);`],
    ["the list passed to a call", `Collections.reverse(list);\nString bar = list.get(0);`],
    ["a removal by value", `list.remove("safe");\nString bar = list.get(0);`],
    ["a sort", `list.sort(null);\nString bar = list.get(0);`],
    ["an alias", `List<String> other = list;\nother.remove(0);\nString bar = list.get(0);`],
  ];
  it.each(cases)("%s", (_name, ops) => {
    const files = inServlet(`${J_SRC}\nList<String> list = new ArrayList<>();\nlist.add("safe");\nlist.add(param);\n${ops}\n${J_SQL}`);
    const source = Object.values(files)[0]!;
    expect(found("java", source)).toEqual([{ cwe: "CWE-89", line: sinkLine(source) }]);
  });
});

const PY_HEAD = `
  from flask import request
  import configparser, sqlite3
  def handler():
      param = request.args.get("p")
`;
const PY_SQL = `sqlite3.connect("d").execute("SELECT " + bar) # SINK`;
const py = (body: string) => PY_HEAD + body.replace(/^/gm, "      ");
const pyList = (ops: string, read: string) => py(`items = ["safe", param]\nitems.append("other")\n${ops}\nbar = ${read}\n${PY_SQL}`);

const JS_HEAD = `
  const express = require("express");
  const app = express();
  app.get("/a", (req, res) => {
    const param = req.query.p;
`;
const jsList = (ops: string, read: string) =>
  `${JS_HEAD}    const arr = ["safe", param];\n    arr.push("other");\n${ops.replace(/^/gm, "    ")}\n    res.send(${read}); // SINK\n  });\n`;

langTwins("lists with positions", [
  {
    name: "pop(0) then [0] vs [1]",
    lang: "python",
    cwe: "CWE-89",
    vuln: pyList("items.pop(0)", "items[0]"),
    safe: pyList("items.pop(0)", "items[1]"),
  },
  {
    name: "pop() and negative index",
    lang: "python",
    cwe: "CWE-89",
    vuln: pyList("items.pop()", "items[-1]"),
    safe: pyList("items.pop()", "items[-2]"),
  },
  {
    name: "insert",
    lang: "python",
    cwe: "CWE-89",
    vuln: pyList(`items.insert(1, "x")`, "items[2]"),
    safe: pyList(`items.insert(1, "x")`, "items[1]"),
  },
  {
    name: "len",
    lang: "python",
    cwe: "CWE-89",
    vuln: pyList("", "param if len(items) == 3 else 'safe'"),
    safe: pyList("", "param if len(items) == 2 else 'safe'"),
  },
  {
    name: "configparser set(section, key, value)",
    lang: "python",
    cwe: "CWE-89",
    vuln: py(
      `cfg = configparser.ConfigParser()\ncfg.set("db", "name", "safe")\ncfg.set("db", "q", param)\nbar = cfg.get("db", "q")\n${PY_SQL}`,
    ),
    safe: py(
      `cfg = configparser.ConfigParser()\ncfg.set("db", "name", "safe")\ncfg.set("db", "q", param)\nbar = cfg.get("db", "name")\n${PY_SQL}`,
    ),
  },
  {
    name: "shift then [0] vs [1]",
    lang: "javascript",
    cwe: "CWE-79",
    vuln: jsList("arr.shift();", "arr[0]"),
    safe: jsList("arr.shift();", "arr[1]"),
  },
  {
    name: "splice(1, 1)",
    lang: "javascript",
    cwe: "CWE-79",
    vuln: jsList("arr.splice(0, 1);", "arr[0]"),
    safe: jsList("arr.splice(1, 1);", "arr[1]"),
  },
  {
    name: "length",
    lang: "javascript",
    cwe: "CWE-79",
    vuln: jsList("", `arr.length === 3 ? param : "safe"`),
    safe: jsList("", `arr.length === 2 ? param : "safe"`),
  },
]);

describe("Python and JavaScript lists: unknown operations fall back to the whole list", () => {
  it.each([
    ["a loop", "for _ in range(3):\n    items.pop(0)", "items[1]"],
    ["remove by value", `items.remove("safe")`, "items[1]"],
    ["a non-constant index", "i = int(request.args.get('i'))", "items[i]"],
  ])("Python: %s", (_name, ops, read) => {
    const src = pyList(ops, read);
    expect(found("python", src)).toEqual([{ cwe: "CWE-89", line: sinkLine(src) }]);
  });
  it.each([
    ["the array handed to a call", "shuffle(arr);", "arr[0]"],
    ["a spread", "const more = [...arr, 'x'];", "more[0]"],
  ])("JavaScript: %s", (_name, ops, read) => {
    const src = jsList(ops, read);
    expect(found("javascript", src)).toEqual([{ cwe: "CWE-79", line: sinkLine(src) }]);
  });
});

/**
 * The Java taint analysis end to end (see test/java-twins.ts): constant propagation and dead
 * code, and sanitizers.
 */
import { COMMAND, dedent, HEADER, inServlet, MAIN, PKG, places, scan, servlet, sinkPlace, SQL, twins } from "../test/java-twins";

// ---- 12. constant propagation and dead code ----------------------------------------------

const FLAGS = `
  private static final boolean PRIVATE_STATIC_FINAL_TRUE = true;
  private static final boolean PRIVATE_STATIC_FINAL_FALSE = false;
`;
const IO_FILE = `${PKG}/IO.java`;
const IO_SRC = dedent(`
  package com.example.web;

  public final class IO {
    public static final boolean STATIC_FINAL_TRUE = true;
    public static final boolean STATIC_FINAL_FALSE = false;
    public static final int STATIC_FINAL_FIVE = 5;

    public static boolean staticReturnsTrue() {
      return true;
    }

    public static boolean staticReturnsFalse() {
      return false;
    }
  }
`);
const SOURCE = `String name = request.getParameter("name");`;
const QUERY = `stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK`;

twins("constants", [
  {
    name: "variable overwritten with a constant before use",
    vuln: inServlet(`${SOURCE}\nname = name.trim();\n${QUERY}`),
    safe: inServlet(`${SOURCE}\nname = "guest";\n${QUERY}`),
  },
  {
    name: "if (true) vs if (false)",
    vuln: inServlet(`${SOURCE}\nif (true) {\n  ${QUERY}\n}`),
    safe: inServlet(`${SOURCE}\nif (false) {\n  ${QUERY}\n}`),
  },
  {
    name: "if (PRIVATE_STATIC_FINAL_TRUE) vs if (PRIVATE_STATIC_FINAL_FALSE)",
    vuln: inServlet(`${SOURCE}\nif (PRIVATE_STATIC_FINAL_TRUE) {\n  ${QUERY}\n}`, FLAGS),
    safe: inServlet(`${SOURCE}\nif (PRIVATE_STATIC_FINAL_FALSE) {\n  ${QUERY}\n}`, FLAGS),
  },
  {
    name: "else branch of a constant-true condition is dead",
    vuln: inServlet(`${SOURCE}\nif (PRIVATE_STATIC_FINAL_FALSE) {\n  name = "guest";\n} else {\n  name = name.trim();\n}\n${QUERY}`, FLAGS),
    safe: inServlet(`${SOURCE}\nif (PRIVATE_STATIC_FINAL_TRUE) {\n  name = "guest";\n} else {\n  name = name.trim();\n}\n${QUERY}`, FLAGS),
  },
  {
    name: "static final constant of another class (IO.STATIC_FINAL_TRUE / FALSE)",
    vuln: { [MAIN]: servlet(`${SOURCE}\nif (IO.STATIC_FINAL_TRUE) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
    safe: { [MAIN]: servlet(`${SOURCE}\nif (IO.STATIC_FINAL_FALSE) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
  },
  {
    name: "IO.STATIC_FINAL_FIVE == 5 vs != 5",
    vuln: { [MAIN]: servlet(`${SOURCE}\nif (IO.STATIC_FINAL_FIVE == 5) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
    safe: { [MAIN]: servlet(`${SOURCE}\nif (IO.STATIC_FINAL_FIVE != 5) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
  },
  {
    name: "non-final field written only at its declaration",
    vuln: inServlet(`${SOURCE}\nif (privateTrue) {\n  ${QUERY}\n}`, `private boolean privateTrue = true;`),
    safe: inServlet(`${SOURCE}\nif (privateFalse) {\n  ${QUERY}\n}`, `private boolean privateFalse = false;`),
  },
  {
    name: "a field written elsewhere is not a constant",
    vuln: inServlet(
      `${SOURCE}\nif (legacyMode) {\n  ${QUERY}\n}`,
      `private boolean legacyMode = false;\n\npublic void enableLegacy() {\n  legacyMode = true;\n}`,
    ),
    safe: inServlet(
      `${SOURCE}\nif (legacyMode) {\n  stmt.executeQuery("SELECT * FROM users"); // SINK\n}`,
      `private boolean legacyMode = false;\n\npublic void enableLegacy() {\n  legacyMode = true;\n}`,
    ),
  },
  {
    name: "a field written through another reference is not a constant",
    vuln: inServlet(
      `${SOURCE}\nif (legacyMode) {\n  ${QUERY}\n}`,
      `private boolean legacyMode = false;\n\npublic static UserServlet legacy() {\n  UserServlet s = new UserServlet();\n  s.legacyMode = true;\n` +
        `  return s;\n}`,
    ),
    safe: inServlet(
      `${SOURCE}\nif (legacyMode) {\n  stmt.executeQuery("SELECT * FROM users"); // SINK\n}`,
      `private boolean legacyMode = false;\n\npublic static UserServlet legacy() {\n  UserServlet s = new UserServlet();\n  s.legacyMode = true;\n` +
        `  return s;\n}`,
    ),
  },
  {
    name: "5 == 5 vs 5 == 6",
    vuln: inServlet(`${SOURCE}\nif (5 == 5) {\n  ${QUERY}\n}`),
    safe: inServlet(`${SOURCE}\nif (5 == 6) {\n  ${QUERY}\n}`),
  },
  {
    name: "overwritten only under 5 != 5 vs under 5 == 5",
    vuln: inServlet(`${SOURCE}\nif (5 != 5) {\n  name = "guest";\n}\n${QUERY}`),
    safe: inServlet(`${SOURCE}\nif (5 == 5) {\n  name = "guest";\n}\n${QUERY}`),
  },
  {
    name: "while (true) { …; break; }",
    vuln: inServlet(`${SOURCE}\nwhile (true) {\n  ${QUERY}\n  break;\n}`),
    safe: inServlet(`${SOURCE}\nwhile (true) {\n  name = "guest";\n  break;\n}\n${QUERY}`),
  },
  {
    name: "for (int i = 0; i < 1; i++) assigning the data (Juliet shape)",
    vuln: inServlet(
      `String name = null;\nfor (int i = 0; i < 1; i++) {\n  name = request.getParameter("name");\n}\nfor (int j = 0; j < 1; j++) {\n  ${QUERY}\n}`,
    ),
    safe: inServlet(
      `String name = null;\nfor (int i = 0; i < 1; i++) {\n  name = "guest";\n}\nfor (int j = 0; j < 1; j++) {\n  ${QUERY}\n}`,
    ),
  },
  {
    name: "for (int i = 0; i < 1; i++) overwriting tainted data",
    vuln: inServlet(`${SOURCE}\nfor (int i = 0; i < 1; i++) {\n  name = name.trim();\n}\n${QUERY}`),
    safe: inServlet(`${SOURCE}\nfor (int i = 0; i < 1; i++) {\n  name = "guest";\n}\n${QUERY}`),
  },
  {
    name: "do { … } while (false) overwriting tainted data",
    vuln: inServlet(`${SOURCE}\ndo {\n  name = name.trim();\n} while (false);\n${QUERY}`),
    safe: inServlet(`${SOURCE}\ndo {\n  name = "guest";\n} while (false);\n${QUERY}`),
  },
  {
    name: "switch on a constant",
    vuln: inServlet(`${SOURCE}\nswitch (7) {\n  case 7:\n    ${QUERY}\n    break;\n  default:\n    break;\n}`),
    safe: inServlet(`${SOURCE}\nswitch (8) {\n  case 7:\n    ${QUERY}\n    break;\n  default:\n    break;\n}`),
  },
  {
    name: "switch fall-through from the selected case",
    vuln: inServlet(
      `${SOURCE}\nswitch (2) {\n  case 1:\n    name = "guest";\n  case 2:\n    ${QUERY}\n    break;\n  default:\n    break;\n}`,
    ),
    safe: inServlet(
      `${SOURCE}\nswitch (1) {\n  case 1:\n    name = "guest";\n  case 2:\n    ${QUERY}\n    break;\n  default:\n    break;\n}`,
    ),
  },
  {
    name: "arrow switch on a constant",
    vuln: inServlet(`${SOURCE}\nswitch (1) {\n  case 1 -> ${QUERY}\n  default -> stmt.executeQuery("SELECT 1");\n}`),
    safe: inServlet(`${SOURCE}\nswitch (2) {\n  case 1 -> ${QUERY}\n  default -> stmt.executeQuery("SELECT 1");\n}`),
  },
  {
    name: "IO.staticReturnsTrue() vs IO.staticReturnsFalse()",
    vuln: { [MAIN]: servlet(`${SOURCE}\nif (IO.staticReturnsTrue()) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
    safe: { [MAIN]: servlet(`${SOURCE}\nif (IO.staticReturnsFalse()) {\n  ${QUERY}\n}`), [IO_FILE]: IO_SRC },
  },
  {
    name: "local boolean constant",
    vuln: inServlet(`${SOURCE}\nboolean audit = true;\nif (audit) {\n  ${QUERY}\n}`),
    safe: inServlet(`${SOURCE}\nboolean audit = false;\nif (audit) {\n  ${QUERY}\n}`),
  },
  {
    name: "a local shadowing a constant field",
    vuln: inServlet(`${SOURCE}\nboolean enabled = true;\nif (enabled) {\n  ${QUERY}\n}`, `private static final boolean enabled = false;`),
    safe: inServlet(`${SOURCE}\nboolean enabled = false;\nif (enabled) {\n  ${QUERY}\n}`, `private static final boolean enabled = true;`),
  },
  {
    name: "switch on a local holding a constant",
    vuln: inServlet(
      `${SOURCE}\nint mode = 2;\nswitch (mode) {\n  case 1:\n    name = "guest";\n    break;\n  case 2:\n    name = name.trim();\n    break;\n}\n${QUERY}`,
    ),
    safe: inServlet(
      `${SOURCE}\nint mode = 1;\nswitch (mode) {\n  case 1:\n    name = "guest";\n    break;\n  case 2:\n    name = name.trim();\n    break;\n}\n${QUERY}`,
    ),
  },
]);

// ---- 13. sanitizers ------------------------------------------------------------------------

/** One vulnerable statement per sink, using the variable `value`. */
const NUMERIC_SINKS: readonly { name: string; stmt: string; expect: { rule: string; cwe: string } }[] = [
  { name: "SQL", stmt: `stmt.executeQuery("SELECT * FROM users WHERE id = " + value); // SINK`, expect: SQL },
  { name: "command", stmt: `Runtime.getRuntime().exec("kill -9 " + value); // SINK`, expect: COMMAND },
  {
    name: "path",
    stmt: `new File("/var/reports/" + value + ".pdf").delete(); // SINK`,
    expect: { rule: "java-taint-path", cwe: "CWE-22" },
  },
  { name: "header", stmt: `response.setHeader("X-User-Id", "" + value); // SINK`, expect: HEADER },
  { name: "XSS", stmt: `response.getWriter().println("<p>" + value + "</p>"); // SINK`, expect: { rule: "java-taint-xss", cwe: "CWE-79" } },
];

twins(
  "Integer.parseInt (safe for every sink)",
  NUMERIC_SINKS.map(({ name, stmt, expect }) => ({
    name,
    vuln: inServlet(`String value = request.getParameter("id");\n${stmt}`),
    safe: inServlet(`int value = Integer.parseInt(request.getParameter("id"));\n${stmt}`),
    expect,
  })),
);

twins("other number conversions", [
  {
    name: "Long.valueOf",
    vuln: inServlet(`String value = request.getParameter("id");\n${NUMERIC_SINKS[0]?.stmt ?? ""}`),
    safe: inServlet(`Long value = Long.valueOf(request.getParameter("id"));\n${NUMERIC_SINKS[0]?.stmt ?? ""}`),
  },
]);

twins("URLEncoder.encode", [
  {
    name: "header splitting",
    vuln: inServlet(`String next = request.getParameter("next");\nresponse.setHeader("X-Next", next); // SINK`),
    safe: inServlet(`String next = request.getParameter("next");\nresponse.setHeader("X-Next", URLEncoder.encode(next, "UTF-8")); // SINK`),
    expect: HEADER,
  },
]);

twins("sanitizer scope", [
  {
    name: "HTML encoding cleans the page, not the query",
    vuln: inServlet(`
      String name = Encode.forHtml(request.getParameter("name"));
      response.getWriter().println("<p>" + name + "</p>");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `),
    safe: inServlet(`
      String name = Encode.forHtml(request.getParameter("name"));
      response.getWriter().println("<p>" + name + "</p>"); // SINK
    `),
  },
  {
    name: "one raw value among four URL-encoded ones",
    vuln: inServlet(`
      String a = URLEncoder.encode(request.getParameter("a"), "UTF-8");
      String b = URLEncoder.encode(request.getParameter("b"), "UTF-8");
      String c = URLEncoder.encode(request.getParameter("c"), "UTF-8");
      String d = URLEncoder.encode(request.getParameter("d"), "UTF-8");
      String e = request.getParameter("e");
      response.setHeader("X-Trace", a + b + c + d + e); // SINK
    `),
    safe: inServlet(`
      String a = URLEncoder.encode(request.getParameter("a"), "UTF-8");
      String b = URLEncoder.encode(request.getParameter("b"), "UTF-8");
      String c = URLEncoder.encode(request.getParameter("c"), "UTF-8");
      String d = URLEncoder.encode(request.getParameter("d"), "UTF-8");
      String e = URLEncoder.encode(request.getParameter("e"), "UTF-8");
      response.setHeader("X-Trace", a + b + c + d + e); // SINK
    `),
    expect: HEADER,
  },
]);

describe("URLEncoder.encode does not clean for path traversal", () => {
  it("still reports new File(URLEncoder.encode(…))", () => {
    const files = inServlet(
      `String report = request.getParameter("report");\nnew File("/var/reports", URLEncoder.encode(report, "UTF-8")).delete(); // SINK`,
    );
    expect(places(scan(files))).toEqual([{ rule: "java-taint-path", cwe: "CWE-22", ...sinkPlace(files) }]);
  });
});

twins("PreparedStatement", [
  {
    name: "constant query with setString vs concatenated query",
    vuln: inServlet(`
      String name = request.getParameter("name");
      PreparedStatement ps = conn.prepareStatement("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      ResultSet rs = ps.executeQuery();
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      PreparedStatement ps = conn.prepareStatement("SELECT * FROM users WHERE name = ?"); // SINK
      ps.setString(1, name);
      ResultSet rs = ps.executeQuery();
    `),
  },
]);

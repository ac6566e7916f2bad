/**
 * The Java taint analysis end to end: lowerJava → analyzeModules with JAVA_SPEC, on small
 * servlet / Spring / JDBC programs. Every propagation rule has a vulnerable and a safe twin;
 * the vulnerable one must give exactly the expected finding (rule, CWE, file, line of the
 * `// SINK` marker) and the safe one none.
 *
 * Where the engine is known to be wrong the case is `it.failing` (through `knownBug`) with the
 * bug named in `bug` or in a comment: the expectation states the correct behaviour, so once the
 * engine is fixed Jest reports the case and the marker must be removed.
 */
import type { TaintTrace } from "./engine";
import { analyzeModules } from "./engine";
import { lowerJava } from "./java";
import { JAVA_SPEC } from "./java-spec";

type Files = Readonly<Record<string, string>>;

interface Place {
  rule: string;
  cwe: string | null;
  file: string;
  line: number;
}

function scan(files: Files): TaintTrace[] {
  const lines = new Map(Object.entries(files).map(([f, s]) => [f, s.split("\n")]));
  return analyzeModules(
    Object.entries(files).map(([f, s]) => lowerJava(f, s)),
    { specs: new Map([["java", JAVA_SPEC]]), lines: (f) => lines.get(f) ?? [] },
  );
}

function places(findings: readonly TaintTrace[]): Place[] {
  return findings
    .map((f) => ({ rule: f.rule_id, cwe: f.cwe_id, file: f.file, line: f.start_line }))
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule));
}

/** 1-based line of the only line of `source` containing `marker`. */
function lineOf(source: string, marker: string): number {
  const found = source.split("\n").flatMap((l, i) => (l.includes(marker) ? [i + 1] : []));
  if (found.length !== 1) throw new Error(`marker ${marker} found ${found.length} times`);
  return found[0] ?? 0;
}

/** The file and line of the single `// SINK` marker among the files. */
function sinkPlace(files: Files): { file: string; line: number } {
  const withMarker = Object.entries(files).filter(([, s]) => s.includes("// SINK"));
  const [entry] = withMarker;
  if (withMarker.length !== 1 || !entry) throw new Error(`expected one file with // SINK, got ${withMarker.length}`);
  return { file: entry[0], line: lineOf(entry[1], "// SINK") };
}

function dedent(text: string): string {
  const lines = text.replace(/^\n+/, "").replace(/\s+$/, "").split("\n");
  const pad = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(Number.isFinite(pad) ? pad : 0)).join("\n");
}

function indent(text: string, n: number): string {
  if (!text.trim()) return "";
  return dedent(text)
    .split("\n")
    .map((l) => (l ? " ".repeat(n) + l : l))
    .join("\n");
}

const MAIN = "src/main/java/com/example/web/UserServlet.java";
const PKG = "src/main/java/com/example/web";

const IMPORTS = dedent(`
  package com.example.web;

  import java.io.*;
  import java.net.URL;
  import java.net.URLEncoder;
  import java.nio.file.Files;
  import java.nio.file.Paths;
  import java.sql.*;
  import java.util.*;
  import javax.naming.directory.*;
  import javax.servlet.ServletException;
  import javax.servlet.http.*;
  import javax.xml.xpath.*;
  import org.xml.sax.InputSource;
`);

/** A servlet whose doGet holds `body` (with `stmt`, a JDBC Statement, in scope) and the class `members`. */
function servlet(body: string, members = ""): string {
  return `${IMPORTS}

public class UserServlet extends HttpServlet {
  private Connection conn;
${indent(members, 2)}

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException, SQLException {
    Statement stmt = conn.createStatement();
${indent(body, 4)}
  }
}
`;
}

function inServlet(body: string, members = ""): Files {
  return { [MAIN]: servlet(body, members) };
}

const SQL = { rule: "java-taint-sql", cwe: "CWE-89" };
const COMMAND = { rule: "java-taint-command", cwe: "CWE-78" };
const HEADER = { rule: "java-taint-header", cwe: "CWE-113" };

interface Twin {
  name: string;
  vuln: Files;
  safe: Files;
  /** Rule and CWE of the vulnerable twin's one finding (at its `// SINK` line); SQL injection unless told. */
  expect?: { rule: string; cwe: string };
  /** A known engine bug that makes one twin fail: its description. */
  bug?: { vuln?: string; safe?: string };
}

/**
 * `it.failing` for a case the engine is known to get wrong. With SHOW_KNOWN_BUGS=1 they run as
 * plain tests, so their failures show what the engine does today.
 */
const knownBug = process.env.SHOW_KNOWN_BUGS ? it : it.failing;

function twins(title: string, cases: readonly Twin[]): void {
  describe.each(cases)(`${title}: $name`, ({ vuln, safe, expect: want = SQL, bug }) => {
    (bug?.vuln ? knownBug : it)("reports the vulnerable twin at its sink", () => {
      expect(places(scan(vuln))).toEqual([{ ...want, ...sinkPlace(vuln) }]);
    });
    (bug?.safe ? knownBug : it)("reports nothing for the safe twin", () => {
      expect(places(scan(safe))).toEqual([]);
    });
  });
}

const FILTER = `${PKG}/AuthFilter.java`;
function authFilter(lookup: string): string {
  return dedent(`
    package com.example.web;

    import java.io.IOException;
    import java.sql.*;
    import javax.servlet.*;
    import javax.servlet.http.HttpServletRequest;

    public class AuthFilter implements Filter {
      private Connection conn;

      @Override
      public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) req;
        String user = http.getHeader("X-User");
        try {
          ${lookup}
        } catch (SQLException e) {
          throw new ServletException(e);
        }
        chain.doFilter(req, res);
      }
    }
  `);
}

function springController(handler: string): Files {
  return {
    [`${PKG}/UserController.java`]: dedent(`
      package com.example.web;

      import java.util.*;
      import org.springframework.jdbc.core.JdbcTemplate;
      import org.springframework.web.bind.annotation.*;

      @RestController
      public class UserController {
        private final JdbcTemplate jdbc;

        public UserController(JdbcTemplate jdbc) {
          this.jdbc = jdbc;
        }

        ${handler}
      }
    `),
  };
}

// ---- 1. direct source → sink -------------------------------------------------------------

twins("direct", [
  {
    name: "request parameter straight into executeQuery",
    vuln: inServlet(`
      stmt.executeQuery(request.getParameter("query")); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users"); // SINK
    `),
  },
  {
    name: "Spring @RequestParam into JdbcTemplate.queryForList",
    expect: { rule: "java-taint-sql-template", cwe: "CWE-89" },
    vuln: springController(`
      @GetMapping("/users")
      public List<Map<String, Object>> find(@RequestParam("name") String name) {
        return jdbc.queryForList("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      }
    `),
    safe: springController(`
      @GetMapping("/users")
      public List<Map<String, Object>> find(@RequestParam("name") String name) {
        return jdbc.queryForList("SELECT * FROM users WHERE name = ?", name); // SINK
      }
    `),
  },
]);

twins("sources", [
  {
    name: "header of a request cast from ServletRequest in a filter",
    vuln: { [FILTER]: authFilter(`conn.createStatement().executeQuery("SELECT * FROM users WHERE name = '" + user + "'"); // SINK`) },
    safe: { [FILTER]: authFilter(`conn.createStatement().executeQuery("SELECT * FROM users WHERE name = 'guest'"); // SINK`) },
    bug: {
      vuln:
        "java-spec.ts servlet-header needs the receiver to match REQUEST by name or declared type; the type of a local " +
        "(`HttpServletRequest http = (HttpServletRequest) req`) is not kept by the lowering, so `http.getHeader(…)` is not a source",
    },
  },
  {
    name: "Spring handler parameter without annotation (bound from the query string)",
    expect: { rule: "java-taint-sql-template", cwe: "CWE-89" },
    vuln: springController(`
      @GetMapping("/users")
      public List<Map<String, Object>> find(String name) {
        return jdbc.queryForList("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      }
    `),
    safe: springController(`
      @GetMapping("/users")
      public List<Map<String, Object>> find(String name) {
        return jdbc.queryForList("SELECT * FROM users WHERE name = ?", name); // SINK
      }
    `),
  },
]);

/** Each source rule of JAVA_SPEC once: the expression, and the source kind it gives. */
const SOURCES: readonly { rule: string; expr: string; kind: "remote" | "local"; label: string; setup?: string }[] = [
  { rule: "servlet-parameter", expr: `request.getParameterValues("id")[0]`, kind: "remote", label: "HTTP request parameter" },
  { rule: "servlet-query", expr: `request.getQueryString()`, kind: "remote", label: "HTTP request URL" },
  { rule: "servlet-header", expr: `request.getHeader("User-Agent")`, kind: "remote", label: "HTTP request header" },
  { rule: "servlet-cookie", expr: `request.getCookies()[0].getValue()`, kind: "remote", label: "HTTP cookie" },
  { rule: "servlet-body", expr: `new String(request.getInputStream().readAllBytes())`, kind: "remote", label: "HTTP request body" },
  {
    rule: "stream-line",
    setup: `BufferedReader in = new BufferedReader(new FileReader("/etc/app/users.txt"));`,
    expr: `in.readLine()`,
    kind: "local",
    label: "line read from a stream (socket, console, file or URL)",
  },
  { rule: "env", expr: `System.getenv("DEFAULT_USER")`, kind: "local", label: "environment variable" },
  { rule: "system-property", expr: `System.getProperty("user.name")`, kind: "local", label: "system property" },
  {
    rule: "properties-file",
    setup: `Properties props = new Properties();`,
    expr: `props.getProperty("default.user")`,
    kind: "local",
    label: "value from a properties file",
  },
  {
    rule: "jdbc-result",
    setup: `ResultSet rs = stmt.executeQuery("SELECT name FROM users");`,
    expr: `rs.getString("name")`,
    kind: "local",
    label: "database value",
  },
];

describe.each(SOURCES)("source $rule", ({ expr, kind, label, setup }) => {
  it(`gives a ${kind} finding starting at the source`, () => {
    const main = servlet(
      `${setup ?? ""}\nString name = ${expr}; // SOURCE\nstmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK`,
    );
    const findings = scan({ [MAIN]: main });
    expect(places(findings)).toEqual([{ ...SQL, file: MAIN, line: lineOf(main, "// SINK") }]);
    expect(findings[0]?.dataflow?.source_kind).toBe(kind);
    expect(findings[0]?.confidence).toBe(kind === "remote" ? "HIGH" : "MEDIUM");
    expect(findings[0]?.dataflow?.trace[0]).toMatchObject({ kind: "source", line: lineOf(main, "// SOURCE"), label });
  });
});

it("covers every source rule of JAVA_SPEC", () => {
  expect(new Set(SOURCES.map((s) => s.rule))).toEqual(new Set(JAVA_SPEC.sources.map((s) => s.id)));
});

// ---- 2. assignment chains ----------------------------------------------------------------

twins("assignment chain", [
  {
    name: "declaration, copy, later assignment",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String alias = name;
      String sql;
      sql = alias;
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String alias = "SELECT * FROM users";
      String sql;
      sql = alias;
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "cast on the way",
    vuln: inServlet(`
      Object raw = request.getParameter("name");
      String sql = (String) raw;
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      Object raw = request.getParameter("name");
      Object fixed = "SELECT * FROM users";
      String sql = (String) fixed;
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "assignment inside a while condition (readLine loop)",
    vuln: inServlet(`
      BufferedReader reader = request.getReader();
      String line;
      while ((line = reader.readLine()) != null) {
        stmt.executeUpdate("INSERT INTO audit (entry) VALUES ('" + line + "')"); // SINK
      }
    `),
    safe: inServlet(`
      BufferedReader reader = request.getReader();
      String line;
      int count = 0;
      while ((line = reader.readLine()) != null) {
        count++;
        stmt.executeUpdate("UPDATE stats SET lines = " + count); // SINK
      }
    `),
  },
  {
    name: "chained assignment a = b = source",
    vuln: inServlet(`
      String previous, current;
      previous = current = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + current + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String previous, current;
      previous = current = "guest";
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + current + "'"); // SINK
    `),
  },
]);

// ---- 3. concatenation and += -------------------------------------------------------------

twins("concatenation", [
  {
    name: "a + b",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = "SELECT * FROM users WHERE name = '" + name + "'";
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String fallback = "guest";
      String sql = "SELECT * FROM users WHERE name = '" + fallback + "'";
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "+=",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = "SELECT * FROM users WHERE name = '";
      sql += name;
      sql += "'";
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String sql = "SELECT * FROM users WHERE name = '";
      sql += "guest";
      sql += "'";
      stmt.executeQuery(sql); // SINK
    `),
  },
]);

const APPEND_FILTER = `
  private static void appendNameFilter(StringBuilder sb, String name) {
    sb.append(" AND name = '").append(name).append("'");
  }
`;

// ---- 4. StringBuilder ----------------------------------------------------------------------

twins("StringBuilder", [
  {
    name: "append statements then toString",
    vuln: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder();
      sb.append("SELECT * FROM users WHERE name = '");
      sb.append(name);
      sb.append("'");
      stmt.executeQuery(sb.toString()); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder();
      sb.append("SELECT * FROM users WHERE name = '");
      sb.append("guest");
      sb.append("'");
      stmt.executeQuery(sb.toString()); // SINK
    `),
  },
  {
    name: "chained appends on a variable",
    vuln: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder("SELECT * FROM users WHERE name = '");
      sb.append(name).append("'");
      String sql = sb.toString();
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder("SELECT * FROM users WHERE name = '");
      sb.append("guest").append("'");
      String sql = sb.toString();
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "fluent chain on new StringBuilder()",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = new StringBuilder().append("SELECT * FROM users WHERE name = '").append(name).append("'").toString();
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String sql = new StringBuilder().append("SELECT * FROM users WHERE name = '").append("guest").append("'").toString();
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "StringBuilder constructed from the value",
    vuln: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder(name);
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + sb + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      StringBuilder sb = new StringBuilder("guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + sb + "'"); // SINK
    `),
  },
  {
    name: "builder passed to a helper that appends to it",
    vuln: inServlet(
      `
      StringBuilder sql = new StringBuilder("SELECT * FROM users WHERE active = 1");
      appendNameFilter(sql, request.getParameter("name"));
      stmt.executeQuery(sql.toString()); // SINK
    `,
      APPEND_FILTER,
    ),
    safe: inServlet(
      `
      String name = request.getParameter("name");
      StringBuilder sql = new StringBuilder("SELECT * FROM users WHERE active = 1");
      appendNameFilter(sql, "guest");
      stmt.executeQuery(sql.toString()); // SINK
    `,
      APPEND_FILTER,
    ),
    bug: {
      vuln:
        "interp.ts: a callee's writes into an object passed as an argument are not part of its summary (Summary has only ret and sinks), " +
        "so `sb.append(name)` inside the helper does not taint the caller's builder",
    },
  },
]);

// ---- 5. String.format / String.join / methods of a tainted string -------------------------

twins("string methods", [
  {
    name: "String.format with the value as an argument",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = String.format("SELECT * FROM users WHERE name = '%s'", name);
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String sql = String.format("SELECT * FROM users WHERE id = %d", 42);
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "String.join",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = String.join(" ", "SELECT * FROM users WHERE name =", name);
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String sql = String.join(" ", "SELECT * FROM users WHERE name =", "'guest'");
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "trim()",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String sql = "SELECT * FROM users WHERE name = '" + name.trim() + "'";
      stmt.executeQuery(sql); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String fallback = " guest ";
      String sql = "SELECT * FROM users WHERE name = '" + fallback.trim() + "'";
      stmt.executeQuery(sql); // SINK
    `),
  },
  {
    name: "toLowerCase()",
    vuln: inServlet(`
      String name = request.getParameter("name").toLowerCase();
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String role = "ADMIN".toLowerCase();
      stmt.executeQuery("SELECT * FROM users WHERE role = '" + role + "'"); // SINK
    `),
  },
]);

// ---- 6. collections and arrays -----------------------------------------------------------

twins("collections", [
  {
    name: "List add / get",
    vuln: inServlet(`
      String name = request.getParameter("name");
      List<String> names = new ArrayList<>();
      names.add(name);
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + names.get(0) + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      List<String> names = new ArrayList<>();
      names.add("guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + names.get(0) + "'"); // SINK
    `),
  },
  {
    name: "Map put / get with constant keys (tainted under a, constant under b)",
    vuln: inServlet(`
      String name = request.getParameter("name");
      Map<String, String> filters = new HashMap<>();
      filters.put("a", name);
      filters.put("b", "guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + filters.get("a") + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      Map<String, String> filters = new HashMap<>();
      filters.put("a", name);
      filters.put("b", "guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + filters.get("b") + "'"); // SINK
    `),
  },
  {
    name: "array index stores",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String[] values = new String[2];
      values[0] = name;
      values[1] = "guest";
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + values[0] + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String[] values = new String[2];
      values[0] = name;
      values[1] = "guest";
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + values[1] + "'"); // SINK
    `),
  },
  {
    name: "array initializer",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String[] values = { name, "guest" };
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + values[0] + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String[] values = { name, "guest" };
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + values[1] + "'"); // SINK
    `),
  },
  {
    name: "Map key overwritten with a constant",
    vuln: inServlet(`
      String name = request.getParameter("name");
      Map<String, String> filters = new HashMap<>();
      filters.put("a", "guest");
      filters.put("a", name);
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + filters.get("a") + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      Map<String, String> filters = new HashMap<>();
      filters.put("a", name);
      filters.put("a", "guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + filters.get("a") + "'"); // SINK
    `),
  },
  {
    name: "List held in a field",
    vuln: inServlet(
      `
      recent.add(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + recent.get(0) + "'"); // SINK
    `,
      `private final List<String> recent = new ArrayList<>();`,
    ),
    safe: inServlet(
      `
      String name = request.getParameter("name");
      recent.add("guest");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + recent.get(0) + "'"); // SINK
    `,
      `private final List<String> recent = new ArrayList<>();`,
    ),
    bug: {
      vuln:
        "interp.ts storeInto(): a mutator call (`add`, `put`, `append`) whose receiver is a field, not a local, stores nothing " +
        "(`!env.has(name)` → no field store), so collections and builders held in fields never become tainted",
    },
  },
  {
    name: "enhanced for over a list",
    vuln: inServlet(`
      List<String> names = new ArrayList<>();
      names.add(request.getParameter("name"));
      for (String n : names) {
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
      }
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      List<String> names = new ArrayList<>();
      names.add("guest");
      for (String n : names) {
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
      }
    `),
  },
]);

// ---- 7. ternary ----------------------------------------------------------------------------

twins("ternary", [
  {
    name: "unknown condition, one tainted arm",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String who = name != null ? name : "guest";
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + who + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String who = name != null ? "member" : "guest";
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + who + "'"); // SINK
    `),
  },
  {
    name: "constant condition picks one arm",
    vuln: inServlet(`
      String name = request.getParameter("name");
      String who = false ? "guest" : name;
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + who + "'"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      String who = true ? "guest" : name;
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + who + "'"); // SINK
    `),
  },
]);

// ---- 8. private method of the same class: return value -----------------------------------

twins("same-class method return", [
  {
    name: "returns its parameter vs a constant",
    vuln: inServlet(
      `
      String name = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + normalize(name) + "'"); // SINK
    `,
      `
      private String normalize(String value) {
        return value;
      }
    `,
    ),
    safe: inServlet(
      `
      String name = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + normalize(name) + "'"); // SINK
    `,
      `
      private String normalize(String value) {
        return "guest";
      }
    `,
    ),
  },
]);

// ---- 9. a helper whose parameter reaches a sink ------------------------------------------

const RUN_QUERY = `
  private void runQuery(Statement st, String sql) throws SQLException {
    st.executeQuery(sql); // SINK
  }
`;

twins("sink inside a helper (parameter summary)", [
  {
    name: "called with tainted vs constant data",
    vuln: inServlet(
      `
      String name = request.getParameter("name");
      runQuery(stmt, "SELECT * FROM users WHERE name = '" + name + "'");
    `,
      RUN_QUERY,
    ),
    safe: inServlet(
      `
      String name = request.getParameter("name");
      runQuery(stmt, "SELECT * FROM users WHERE name = 'guest'");
    `,
      RUN_QUERY,
    ),
  },
]);

// ---- 10. other files: instance and static methods ----------------------------------------

const RUNNER = `${PKG}/CommandRunner.java`;
const RUNNER_SRC = dedent(`
  package com.example.web;

  import java.io.IOException;

  public class CommandRunner {
    public Process ping(String host) throws IOException {
      return Runtime.getRuntime().exec(new String[] {"ping", "-c", "1", host}); // SINK
    }
  }
`);
const SHELL = `${PKG}/Shell.java`;
const SHELL_SRC = dedent(`
  package com.example.web;

  import java.io.IOException;

  public final class Shell {
    private Shell() {}

    public static void run(String command) throws IOException {
      Runtime.getRuntime().exec("sh -c " + command); // SINK
    }
  }
`);

twins("cross-file call", [
  {
    name: "new Other().method(data)",
    vuln: { [MAIN]: servlet(`new CommandRunner().ping(request.getParameter("host"));`), [RUNNER]: RUNNER_SRC },
    safe: { [MAIN]: servlet(`String host = request.getParameter("host");\nnew CommandRunner().ping("localhost");`), [RUNNER]: RUNNER_SRC },
    expect: COMMAND,
  },
  {
    name: "instance held in a local variable",
    vuln: {
      [MAIN]: servlet(`CommandRunner runner = new CommandRunner();\nrunner.ping(request.getParameter("host"));`),
      [RUNNER]: RUNNER_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `CommandRunner runner = new CommandRunner();\nString host = request.getParameter("host");\nrunner.ping("localhost");`,
      ),
      [RUNNER]: RUNNER_SRC,
    },
    expect: COMMAND,
  },
  {
    name: "static method of another class",
    vuln: { [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nShell.run("ls " + cmd);`), [SHELL]: SHELL_SRC },
    safe: { [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nShell.run("ls /tmp");`), [SHELL]: SHELL_SRC },
    expect: COMMAND,
  },
]);

const DAO = `${PKG}/UserDao.java`;
function userDao(query: string): string {
  return dedent(`
    package com.example.web;

    import java.sql.*;

    public class UserDao {
      private Connection conn;

      public void update(String name) throws SQLException {
        ${query}
      }
    }
  `);
}

twins("cross-file call on an injected field", [
  {
    name: "repository method named like a sink (update): the repository's code decides",
    vuln: {
      [MAIN]: servlet(`userDao.update(request.getParameter("name"));`, `private final UserDao userDao = new UserDao();`),
      [DAO]: userDao(`conn.createStatement().executeUpdate("UPDATE users SET seen = 1 WHERE name = '" + name + "'"); // SINK`),
    },
    safe: {
      [MAIN]: servlet(`userDao.update(request.getParameter("name"));`, `private final UserDao userDao = new UserDao();`),
      [DAO]: userDao(
        `PreparedStatement ps = conn.prepareStatement("UPDATE users SET seen = 1 WHERE name = ?"); ps.setString(1, name); ps.executeUpdate(); // SINK`,
      ),
    },
  },
]);

/** A call chain `depth` calls deep: the servlet calls Layer1.handle, …, Layer<depth>.handle runs the command. */
function layers(depth: number, arg: string): Files {
  const files: Record<string, string> = { [MAIN]: servlet(`String host = request.getParameter("host");\nnew Layer1().handle(${arg});`) };
  for (let i = 1; i <= depth; i++) {
    const body = i === depth ? `Runtime.getRuntime().exec("ping -c 1 " + host); // SINK` : `new Layer${i + 1}().handle(host);`;
    files[`${PKG}/Layer${i}.java`] =
      `package com.example.web;\n\npublic class Layer${i} {\n  public void handle(String host) throws java.io.IOException {\n    ${body}\n  }\n}\n`;
  }
  return files;
}

twins("call chains", [
  { name: "four calls deep (Juliet _54 shape)", vuln: layers(4, "host"), safe: layers(4, `"localhost"`), expect: COMMAND },
  {
    name: "five calls deep",
    vuln: layers(5, "host"),
    safe: layers(5, `"localhost"`),
    expect: COMMAND,
  },
]);

// ---- 11. instance field written in one method, read in another ---------------------------

const SORT_MEMBERS = `
  private String sortColumn;

  private void listUsers() throws SQLException {
    conn.createStatement().executeQuery("SELECT * FROM users ORDER BY " + sortColumn); // SINK
  }
`;

twins("instance field across methods", [
  {
    name: "this.field = source; other method reads it",
    vuln: inServlet(`this.sortColumn = request.getParameter("sort");\nlistUsers();`, SORT_MEMBERS),
    safe: inServlet(`String sort = request.getParameter("sort");\nthis.sortColumn = "name";\nlistUsers();`, SORT_MEMBERS),
  },
  {
    name: "bare field name written",
    vuln: inServlet(`sortColumn = request.getParameter("sort");\nlistUsers();`, SORT_MEMBERS),
    safe: inServlet(`String sort = request.getParameter("sort");\nsortColumn = "name";\nlistUsers();`, SORT_MEMBERS),
  },
]);

const QUERY_OBJ = `${PKG}/UserQuery.java`;
const QUERY_OBJ_SRC = dedent(`
  package com.example.web;

  import java.sql.*;

  public class UserQuery {
    private final Connection conn;
    private String nameFilter;

    public UserQuery(Connection conn) {
      this.conn = conn;
    }

    public UserQuery(Connection conn, String nameFilter) {
      this.conn = conn;
      this.nameFilter = nameFilter;
    }

    public void setNameFilter(String nameFilter) {
      this.nameFilter = nameFilter;
    }

    public ResultSet run() throws SQLException {
      return conn.createStatement().executeQuery("SELECT * FROM users WHERE name = '" + nameFilter + "'"); // SINK
    }
  }
`);
const FORM = `${PKG}/UserForm.java`;
const FORM_SRC = dedent(`
  package com.example.web;

  public class UserForm {
    public String name;

    public String getName() {
      return name;
    }
  }
`);
twins("fields of another object", [
  {
    name: "setter, then a method reading the field",
    vuln: {
      [MAIN]: servlet(`UserQuery q = new UserQuery(conn);\nq.setNameFilter(request.getParameter("name"));\nq.run();`),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `String name = request.getParameter("name");\nUserQuery q = new UserQuery(conn);\nq.setNameFilter("guest");\nq.run();`,
      ),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
  },
  {
    name: "constructor argument stored in a field",
    vuln: { [MAIN]: servlet(`new UserQuery(conn, request.getParameter("name")).run();`), [QUERY_OBJ]: QUERY_OBJ_SRC },
    safe: {
      [MAIN]: servlet(`String name = request.getParameter("name");\nnew UserQuery(conn, "guest").run();`),
      [QUERY_OBJ]: QUERY_OBJ_SRC,
    },
  },
  {
    name: "public field written by the caller, read back through a getter",
    vuln: {
      [MAIN]: servlet(
        `UserForm form = new UserForm();\nform.name = request.getParameter("name");\nstmt.executeQuery("SELECT * FROM users WHERE name = '" + form.getName() + "'"); // SINK`,
      ),
      [FORM]: FORM_SRC,
    },
    safe: {
      [MAIN]: servlet(
        `String name = request.getParameter("name");\nUserForm form = new UserForm();\nform.name = "guest";\nstmt.executeQuery("SELECT * FROM users WHERE name = '" + form.getName() + "'"); // SINK`,
      ),
      [FORM]: FORM_SRC,
    },
    bug: {
      vuln:
        "interp.ts: `form.name = …` on a local object is kept in the local's keys, but the getter reads the field store " +
        "`UserForm.name` (source facts written via this/Class only) and the receiver's value is not passed to the callee",
    },
  },
  {
    name: "static field of another class (Juliet _68 shape)",
    vuln: {
      [MAIN]: servlet(`Holder.data = request.getParameter("cmd");\nnew Worker().work();`),
      [`${PKG}/Holder.java`]: `package com.example.web;\n\npublic class Holder {\n  public static String data;\n}\n`,
      [`${PKG}/Worker.java`]: `package com.example.web;\n\npublic class Worker {\n  public void work() throws java.io.IOException {\n    Runtime.getRuntime().exec(Holder.data); // SINK\n  }\n}\n`,
    },
    safe: {
      [MAIN]: servlet(`String cmd = request.getParameter("cmd");\nHolder.data = "uptime";\nnew Worker().work();`),
      [`${PKG}/Holder.java`]: `package com.example.web;\n\npublic class Holder {\n  public static String data;\n}\n`,
      [`${PKG}/Worker.java`]: `package com.example.web;\n\npublic class Worker {\n  public void work() throws java.io.IOException {\n    Runtime.getRuntime().exec(Holder.data); // SINK\n  }\n}\n`,
    },
    expect: COMMAND,
  },
]);

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
      `private boolean legacyMode = false;\n\npublic static UserServlet legacy() {\n  UserServlet s = new UserServlet();\n  s.legacyMode = true;\n  return s;\n}`,
    ),
    safe: inServlet(
      `${SOURCE}\nif (legacyMode) {\n  stmt.executeQuery("SELECT * FROM users"); // SINK\n}`,
      `private boolean legacyMode = false;\n\npublic static UserServlet legacy() {\n  UserServlet s = new UserServlet();\n  s.legacyMode = true;\n  return s;\n}`,
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

// ---- 14. one sink per rule of the table --------------------------------------------------

const SINKS: readonly { rule: string; cwe: string; stmt: string; setup?: string }[] = [
  { rule: "java-taint-sql", cwe: "CWE-89", stmt: `stmt.executeUpdate("DELETE FROM sessions WHERE token = '" + data + "'"); // SINK` },
  {
    rule: "java-taint-sql-template",
    cwe: "CWE-89",
    setup: `org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate();`,
    stmt: `jdbc.update("DELETE FROM sessions WHERE token = '" + data + "'"); // SINK`,
  },
  { rule: "java-taint-command", cwe: "CWE-78", stmt: `Runtime.getRuntime().exec("nslookup " + data); // SINK` },
  { rule: "java-taint-command-builder", cwe: "CWE-78", stmt: `new ProcessBuilder("sh", "-c", "nslookup " + data).start(); // SINK` },
  { rule: "java-taint-path", cwe: "CWE-22", stmt: `FileInputStream in = new FileInputStream("/var/uploads/" + data); // SINK` },
  { rule: "java-taint-path-nio", cwe: "CWE-22", stmt: `byte[] bytes = Files.readAllBytes(Paths.get("/var/uploads", data)); // SINK` },
  { rule: "java-taint-xss", cwe: "CWE-79", stmt: `response.getWriter().println("<h1>Hello " + data + "</h1>"); // SINK` },
  {
    rule: "java-taint-xss",
    cwe: "CWE-79",
    setup: `PrintWriter out = response.getWriter();`,
    stmt: `out.print("<h1>Hello " + data + "</h1>"); // SINK`,
  },
  { rule: "java-taint-xss-error", cwe: "CWE-81", stmt: `response.sendError(404, "No such user: " + data); // SINK` },
  {
    rule: "java-taint-ldap",
    cwe: "CWE-90",
    setup: `DirContext ctx = new InitialDirContext();`,
    stmt: `ctx.search("ou=people,dc=example,dc=com", "(uid=" + data + ")", new SearchControls()); // SINK`,
  },
  {
    rule: "java-taint-xpath",
    cwe: "CWE-643",
    setup: `XPath xpath = XPathFactory.newInstance().newXPath();`,
    stmt: `String role = xpath.evaluate("/users/user[@name='" + data + "']/role", new InputSource("users.xml")); // SINK`,
  },
  { rule: "java-taint-header", cwe: "CWE-113", stmt: `response.addHeader("X-Forwarded-User", data); // SINK` },
  { rule: "java-taint-cookie", cwe: "CWE-113", stmt: `response.addCookie(new Cookie("user", data)); // SINK` },
  { rule: "java-taint-redirect", cwe: "CWE-601", stmt: `response.sendRedirect(data); // SINK` },
  { rule: "java-taint-config", cwe: "CWE-15", stmt: `conn.setCatalog(data); // SINK` },
  { rule: "java-taint-reflection", cwe: "CWE-470", stmt: `Class<?> handler = Class.forName("com.example.handlers." + data); // SINK` },
  { rule: "java-taint-format", cwe: "CWE-134", stmt: `String message = String.format(data, "admin"); // SINK` },
  { rule: "java-taint-trust-boundary", cwe: "CWE-501", stmt: `request.getSession().setAttribute("user", data); // SINK` },
  {
    rule: "java-taint-trust-boundary",
    cwe: "CWE-501",
    setup: `HttpSession session = request.getSession(true);`,
    stmt: `session.setAttribute("user", data); // SINK`,
  },
  { rule: "java-taint-ssrf", cwe: "CWE-918", stmt: `InputStream remote = new URL(data).openStream(); // SINK` },
];

twins(
  "sink",
  SINKS.map(({ rule, cwe, stmt, setup }) => ({
    name: `${rule} (${cwe}): ${stmt.replace(" // SINK", "")}`,
    vuln: inServlet(`${setup ?? ""}\nString data = request.getParameter("q");\n${stmt}`),
    safe: inServlet(`${setup ?? ""}\nString q = request.getParameter("q");\nString data = "guest";\n${stmt}`),
    expect: { rule, cwe },
  })),
);

twins("XSS writer", [
  {
    name: "a PrintWriter on a log file is not the response",
    vuln: inServlet(`
      String name = request.getParameter("name");
      PrintWriter out = response.getWriter();
      out.println("Welcome " + name); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      PrintWriter audit = new PrintWriter(new FileWriter("/var/log/app/audit.log", true));
      audit.println("login attempt: " + name); // SINK
    `),
    expect: { rule: "java-taint-xss", cwe: "CWE-79" },
  },
  {
    name: "a PrintWriter over a StringWriter is not the response",
    vuln: inServlet(`
      String name = request.getParameter("name");
      ServletOutputStream body = response.getOutputStream();
      body.print(name); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      StringWriter buffer = new StringWriter();
      PrintWriter pw = new PrintWriter(buffer);
      pw.print(name); // SINK
    `),
    expect: { rule: "java-taint-xss", cwe: "CWE-79" },
  },
  {
    name: "System.out and request attributes are not sinks",
    vuln: inServlet(`
      String name = request.getParameter("name");
      response.getWriter().write(name); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      System.out.println("user " + name);
      request.setAttribute("name", name);
    `),
    expect: { rule: "java-taint-xss", cwe: "CWE-79" },
  },
  {
    name: "parameterised LDAP filter",
    vuln: inServlet(`
      String name = request.getParameter("name");
      DirContext ctx = new InitialDirContext();
      ctx.search("ou=people,dc=example,dc=com", "(uid=" + name + ")", new SearchControls()); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      DirContext ctx = new InitialDirContext();
      ctx.search("ou=people,dc=example,dc=com", "(uid={0})", new Object[] { name }, new SearchControls()); // SINK
    `),
    expect: { rule: "java-taint-ldap", cwe: "CWE-90" },
  },
]);

it("covers every sink rule of JAVA_SPEC", () => {
  expect(new Set(SINKS.map((s) => s.rule))).toEqual(new Set(JAVA_SPEC.sinks.map((s) => s.id)));
});

// ---- 15. findings: trace, status, confidence ---------------------------------------------

describe("finding", () => {
  it("carries a trace from the source line across files to the sink line", () => {
    const main = servlet(`
      String host = request.getParameter("host"); // SOURCE
      String target = host.trim();
      new CommandRunner().ping(target); // CALL
    `);
    const files = { [MAIN]: main, [RUNNER]: RUNNER_SRC };
    const findings = scan(files);
    expect(places(findings)).toEqual([{ ...COMMAND, file: RUNNER, line: lineOf(RUNNER_SRC, "// SINK") }]);
    const [f] = findings;
    expect(f?.dataflow?.status).toBe("confirmed");
    expect(f?.dataflow?.source_kind).toBe("remote");
    expect(f?.confidence).toBe("HIGH");
    expect(f?.severity).toBe("HIGH");
    const trace = f?.dataflow?.trace ?? [];
    expect(trace[0]).toMatchObject({ kind: "source", file: MAIN, line: lineOf(main, "// SOURCE"), label: "HTTP request parameter" });
    expect(trace.at(-1)).toMatchObject({ kind: "sink", file: RUNNER, line: lineOf(RUNNER_SRC, "// SINK") });
    expect(trace).toContainEqual(expect.objectContaining({ kind: "call", file: MAIN, line: lineOf(main, "// CALL") }));
    // Steps run forward through the files: everything in the servlet, then everything in the runner.
    const firstInRunner = trace.findIndex((s) => s.file === RUNNER);
    expect(trace.slice(0, firstInRunner).every((s) => s.file === MAIN)).toBe(true);
    expect(trace.slice(firstInRunner).every((s) => s.file === RUNNER)).toBe(true);
    expect(f?.message).toContain(`line ${lineOf(main, "// SOURCE")} of ${MAIN}`);
    expect(f?.snippet).toContain("Runtime.getRuntime().exec");
  });

  it("has a source-first, sink-last trace within one file", () => {
    const main = servlet(`
      String name = request.getParameter("name"); // SOURCE
      String sql = "SELECT * FROM users WHERE name = '" + name + "'";
      stmt.executeQuery(sql); // SINK
    `);
    const [f, ...rest] = scan({ [MAIN]: main });
    expect(rest).toEqual([]);
    const trace = f?.dataflow?.trace ?? [];
    expect(trace[0]).toMatchObject({ kind: "source", file: MAIN, line: lineOf(main, "// SOURCE") });
    expect(trace.at(-1)).toMatchObject({ kind: "sink", file: MAIN, line: lineOf(main, "// SINK") });
    expect(trace.every((s) => s.file === MAIN)).toBe(true);
    expect(trace.map((s) => s.line)).toEqual([...trace.map((s) => s.line)].sort((a, b) => a - b));
  });

  it("is MEDIUM confidence with a local source kind for System.getenv", () => {
    const main = servlet(`
      String tool = System.getenv("REPORT_TOOL"); // SOURCE
      Runtime.getRuntime().exec(tool + " --daily"); // SINK
    `);
    const findings = scan({ [MAIN]: main });
    expect(places(findings)).toEqual([{ ...COMMAND, file: MAIN, line: lineOf(main, "// SINK") }]);
    const [f] = findings;
    expect(f?.dataflow?.status).toBe("confirmed");
    expect(f?.dataflow?.source_kind).toBe("local");
    expect(f?.confidence).toBe("MEDIUM");
    expect(f?.dataflow?.trace[0]).toMatchObject({ kind: "source", line: lineOf(main, "// SOURCE"), label: "environment variable" });
  });

  it("prefers the request parameter when a remote and a local source reach the same sink", () => {
    const main = servlet(`
      String tool = System.getenv("REPORT_TOOL");
      String day = request.getParameter("day"); // SOURCE
      Runtime.getRuntime().exec(tool + " --day " + day); // SINK
    `);
    const findings = scan({ [MAIN]: main });
    expect(places(findings)).toEqual([{ ...COMMAND, file: MAIN, line: lineOf(main, "// SINK") }]);
    expect(findings[0]?.confidence).toBe("HIGH");
    expect(findings[0]?.dataflow?.trace[0]).toMatchObject({ kind: "source", line: lineOf(main, "// SOURCE") });
  });

  // BUG (engine.ts / values.ts): MAX_FACTS = 4 keeps the first four facts of a concatenation, so four
  // environment variables ahead of the request parameter push the remote fact out and the finding
  // drops to MEDIUM with an environment-variable trace.
  it("keeps the remote source when four local ones come first", () => {
    const main = servlet(`
      String a = System.getenv("A");
      String b = System.getenv("B");
      String c = System.getenv("C");
      String d = System.getenv("D");
      String day = request.getParameter("day"); // SOURCE
      Runtime.getRuntime().exec(a + b + c + d + " --day " + day); // SINK
    `);
    const findings = scan({ [MAIN]: main });
    expect(places(findings)).toEqual([{ ...COMMAND, file: MAIN, line: lineOf(main, "// SINK") }]);
    expect(findings[0]?.confidence).toBe("HIGH");
    expect(findings[0]?.dataflow?.trace[0]).toMatchObject({ kind: "source", line: lineOf(main, "// SOURCE") });
  });

  // BUG (interp.ts call()): a call matching a source rule returns only the new source fact and drops the
  // receiver's facts, so `request.getReader().readLine()` becomes a local "line read from a stream"
  // (MEDIUM) instead of keeping the remote request-body taint (HIGH).
  it("keeps the request body remote when it is read line by line", () => {
    const main = servlet(`
      String line = request.getReader().readLine(); // SOURCE
      Runtime.getRuntime().exec(line); // SINK
    `);
    const findings = scan({ [MAIN]: main });
    expect(places(findings)).toEqual([{ ...COMMAND, file: MAIN, line: lineOf(main, "// SINK") }]);
    expect(findings[0]?.dataflow?.source_kind).toBe("remote");
    expect(findings[0]?.confidence).toBe("HIGH");
  });

  it("traces a value returned from another file", () => {
    const validator = dedent(`
      package com.example.web;

      public final class Validator {
        public static String normalize(String s) {
          return s.trim(); // RETURN
        }
      }
    `);
    const main = servlet(`
      String host = Validator.normalize(request.getParameter("host")); // SOURCE
      Runtime.getRuntime().exec("ping -c 1 " + host); // SINK
    `);
    const file = `${PKG}/Validator.java`;
    const findings = scan({ [MAIN]: main, [file]: validator });
    expect(places(findings)).toEqual([{ ...COMMAND, file: MAIN, line: lineOf(main, "// SINK") }]);
    const trace = findings[0]?.dataflow?.trace ?? [];
    expect(trace[0]).toMatchObject({ kind: "source", file: MAIN, line: lineOf(main, "// SOURCE") });
    expect(trace).toContainEqual(expect.objectContaining({ kind: "call", file: MAIN }));
    expect(trace).toContainEqual(expect.objectContaining({ kind: "return", file, line: lineOf(validator, "// RETURN") }));
    expect(trace.at(-1)).toMatchObject({ kind: "sink", file: MAIN, line: lineOf(main, "// SINK") });
  });

  it("starts a Spring trace at the annotated parameter", () => {
    const src = dedent(`
      package com.example.web;

      import org.springframework.web.bind.annotation.*;

      @RestController
      public class PingController {
        @GetMapping("/ping/{host}")
        public String ping(@PathVariable String host) throws Exception { // SOURCE
          Runtime.getRuntime().exec("ping -c 1 " + host); // SINK
          return "ok";
        }
      }
    `);
    const file = `${PKG}/PingController.java`;
    const findings = scan({ [file]: src });
    expect(places(findings)).toEqual([{ ...COMMAND, file, line: lineOf(src, "// SINK") }]);
    expect(findings[0]?.confidence).toBe("HIGH");
    expect(findings[0]?.dataflow?.trace[0]).toMatchObject({ kind: "source", file, label: "Spring @PathVariable parameter `host`" });
  });
});

// ---- beyond the brief: flows through other constructs -------------------------------------

twins("other constructs", [
  {
    name: "try-with-resources reader",
    vuln: inServlet(`
      try (BufferedReader reader = request.getReader()) {
        String line = reader.readLine();
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + line + "'"); // SINK
      }
    `),
    safe: inServlet(`
      try (BufferedReader reader = request.getReader()) {
        String line = reader.readLine();
        stmt.executeQuery("SELECT * FROM users WHERE name = 'guest'"); // SINK
      }
    `),
  },
  {
    name: "try / catch / finally around the sink",
    vuln: inServlet(`
      String name = request.getParameter("name");
      try {
        stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
      } catch (SQLException e) {
        log("query failed", e);
      } finally {
        stmt.close();
      }
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      try {
        name = "guest";
      } finally {
        stmt.close();
      }
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `),
  },
]);

twins("lambdas and anonymous classes", [
  {
    name: "forEach with a lambda",
    vuln: inServlet(`
      List<String> names = Arrays.asList(request.getParameterValues("name"));
      names.forEach(n -> {
        try {
          stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    `),
    safe: inServlet(`
      String[] requested = request.getParameterValues("name");
      List<String> names = Arrays.asList("guest", "admin");
      names.forEach(n -> {
        try {
          stmt.executeQuery("SELECT * FROM users WHERE name = '" + n + "'"); // SINK
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      });
    `),
  },
  {
    name: "anonymous class capturing a local",
    vuln: inServlet(`
      final String name = request.getParameter("name");
      Runnable job = new Runnable() {
        @Override
        public void run() {
          try {
            stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
      job.run();
    `),
    safe: inServlet(`
      final String name = request.getParameter("name");
      final String fixed = "guest";
      Runnable job = new Runnable() {
        @Override
        public void run() {
          try {
            stmt.executeQuery("SELECT * FROM users WHERE name = '" + fixed + "'"); // SINK
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
      };
      job.run();
    `),
    bug: {
      vuln:
        "java.ts: the body of an anonymous class (`new Runnable() { … }`) is not lowered at all (object_creation_expression keeps " +
        "only type and arguments), and captured locals are not visible to lambdas or inner methods either",
    },
  },
]);

// ---- lowering never throws ---------------------------------------------------------------

const ODD_INPUTS: readonly [string, string][] = [
  ["empty file", ""],
  ["only whitespace and comments", "\n\n  // nothing here\n/* nor here */\n"],
  ["only a package declaration", "package com.example;\n"],
  ["unterminated class", 'public class Broken {\n  void f() {\n    String s = request.getParameter("x");\n'],
  ["garbage", "}}}{{{ ;;; @@@ class class ( ) -> :: <<>>"],
  ["syntax error inside a method", 'class A { void f( { int x = ; stmt.executeQuery("a" + ); } }'],
  ["unbalanced string", 'class A { String s = "abc; void f() {} }'],
  [
    "generics",
    dedent(`
      import java.util.*;
      import java.util.function.*;
      class Box<T extends Comparable<? super T>> implements Iterable<T> {
        private final Map<String, List<Map<Integer, T[]>>> nested = new HashMap<>();
        <R> List<R> map(Function<? super T, ? extends R> f) { return new ArrayList<R>(); }
        public Iterator<T> iterator() { return Collections.<T>emptyList().iterator(); }
        static <K, V extends List<? extends K>> V pick(Map<K, V> m, K k) { return m.get(k); }
      }
    `),
  ],
  [
    "lambdas and method references",
    dedent(`
      import java.util.*;
      class L {
        void f(List<String> xs) {
          Runnable r = () -> {};
          xs.forEach(x -> System.out.println(x));
          xs.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(System.out::println);
          java.util.function.BiFunction<Integer, Integer, Integer> add = (a, b) -> a + b;
          java.util.function.Function<String, String> id = (String s) -> { return s; };
          Comparator<String> c = Comparator.comparing((String s) -> s.length()).thenComparing(s -> s);
        }
      }
    `),
  ],
  [
    "anonymous classes",
    dedent(`
      class Anon {
        void f() {
          new Thread(new Runnable() {
            @Override public void run() { System.out.println("hi"); }
          }).start();
          Comparator<String> c = new Comparator<>() {
            public int compare(String a, String b) { return a.compareTo(b); }
          };
        }
      }
    `),
  ],
  [
    "try-with-resources and multi-catch",
    dedent(`
      class T {
        void f(javax.sql.DataSource ds) {
          try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
            ps.executeQuery();
          } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException(e);
          } finally {
            System.out.println("done");
          }
          try (var in = new FileInputStream("x"); in) { }
        }
      }
    `),
  ],
  [
    "enhanced for",
    dedent(`
      class E {
        void f(Map<String, String> m, int[][] grid) {
          for (Map.Entry<String, String> e : m.entrySet()) { System.out.println(e.getKey()); }
          for (final var row : grid) for (int cell : row) { continue; }
          outer: for (String k : m.keySet()) { if (k.isEmpty()) break outer; }
        }
      }
    `),
  ],
  [
    "nested, inner, local classes, enums, records, interfaces, annotations",
    dedent(`
      public class Outer {
        static class Nested { static final boolean ON = true; String get() { return "n"; } }
        class Inner { void g() { Outer.this.toString(); } }
        enum Color { RED("r"), GREEN("g") { @Override String code() { return "G"; } }; private final String c; Color(String c) { this.c = c; } String code() { return c; } }
        record Point(int x, int y) { Point { if (x < 0) throw new IllegalArgumentException(); } }
        interface Shape { default double area() { return 0; } static Shape unit() { return null; } }
        @interface Marker { String value() default ""; }
        void f() {
          class Local { int v = 1; }
          new Local();
          Outer.Nested n = new Outer.Nested();
          Outer.Inner i = this.new Inner();
        }
        static { System.out.println("static init"); }
        { System.out.println("instance init"); }
      }
    `),
  ],
  [
    "modern syntax: switch expressions, yield, text blocks, var, pattern instanceof",
    dedent(`
      class M {
        String f(Object o, int k) {
          var s = """
              multi
              line "text"
              """;
          int v = switch (k) { case 1, 2 -> 10; case 3 -> { yield 30; } default -> 0; };
          String w = switch (k) { case 1: yield "a"; default: yield "b"; };
          if (o instanceof String str && !str.isEmpty()) return str;
          synchronized (this) { do { k--; } while (k > 0); }
          int[] arr = new int[] {1, 2, 3};
          char ch = '\\n';
          long big = 0xFFFF_FFFFL;
          double d = 1.5e3;
          assert k == 0 : "k";
          return s + v + w + arr[0] + ch + big + d;
        }
      }
    `),
  ],
  ["long concatenation", `class C { String s = ${Array.from({ length: 2000 }, (_, i) => `"p${i}"`).join(" + ")}; }`],
  ["deeply nested parentheses", `class C { int x = ${"(".repeat(300)}1${")".repeat(300)}; }`],
  ["unicode identifiers", "class Ünïcode { void ƒ(String 名前) { String ß = 名前; } }"],
];

describe("lowerJava on odd input", () => {
  it.each(ODD_INPUTS)("does not throw on %s, and the engine runs on the result", (_name, source) => {
    const module = lowerJava("Odd.java", source);
    expect(module.file).toBe("Odd.java");
    expect(module.language).toBe("java");
    expect(() => scan({ "Odd.java": source })).not.toThrow();
  });

  it("lowers nested and local classes, initialisers and lambdas as their own units", () => {
    const source = ODD_INPUTS.find(([n]) => n.startsWith("nested"))?.[1] ?? "";
    const module = lowerJava("Outer.java", source);
    expect(module.classes.map((c) => c.name)).toEqual(
      expect.arrayContaining(["Outer", "Nested", "Inner", "Color", "Point", "Shape", "Local"]),
    );
    expect(module.functions.filter((f) => f.name === "<clinit>").length).toBeGreaterThanOrEqual(2);
    const lambdas = lowerJava("L.java", ODD_INPUTS.find(([n]) => n.startsWith("lambdas"))?.[1] ?? "").functions.filter((f) =>
      f.name.startsWith("<lambda"),
    );
    expect(lambdas.length).toBeGreaterThanOrEqual(5);
  });

  it("keeps imports by simple name and drops wildcard imports", () => {
    const module = lowerJava(MAIN, servlet('stmt.execute("SELECT 1");'));
    expect(module.imports).toMatchObject({
      URLEncoder: "java.net.URLEncoder",
      Paths: "java.nio.file.Paths",
      InputSource: "org.xml.sax.InputSource",
    });
    expect(Object.keys(module.imports)).not.toContain("*");
  });

  it("finds taint in a file that also contains syntax errors elsewhere", () => {
    const source = servlet(`
      String name = request.getParameter("name");
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `).replace("private Connection conn;", "private Connection conn;\n  private int broken = ;");
    expect(() => lowerJava(MAIN, source)).not.toThrow();
    expect(places(scan({ [MAIN]: source }))).toEqual([{ ...SQL, file: MAIN, line: lineOf(source, "// SINK") }]);
  });
});

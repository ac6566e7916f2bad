/**
 * The Java taint analysis end to end (see test/java-twins.ts): sources reaching sinks directly,
 * through assignments, concatenation, StringBuilder and string methods.
 */
import { JAVA_SPEC } from "./java-spec";
import { authFilter, FILTER, inServlet, lineOf, MAIN, places, scan, servlet, springController, SQL, twins } from "../test/java-twins";

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
  {
    rule: "webflux-request",
    setup: `org.springframework.web.reactive.function.server.ServerRequest serverRequest = null;`,
    expr: `serverRequest.queryParam("name").orElse("")`,
    kind: "remote",
    label: "Spring WebFlux request input",
  },
  {
    rule: "archive-entry",
    setup: `java.util.zip.ZipEntry entry = new java.util.zip.ZipInputStream(request.getInputStream()).getNextEntry();`,
    expr: `entry.getName()`,
    kind: "remote",
    label: "archive entry name (it comes from the archive)",
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

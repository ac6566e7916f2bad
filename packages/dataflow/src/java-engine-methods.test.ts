/**
 * The Java taint analysis end to end (see test/java-twins.ts): collections and arrays, the
 * ternary, and calls to methods of the same class (their return values and the sinks inside
 * them).
 */
import { inServlet, twins } from "../test/java-twins";

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

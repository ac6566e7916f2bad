/**
 * Class identity and call resolution (Java): classes keyed by package and enclosing class,
 * calls resolved by the receiver's declared type (interfaces dispatch to their implementers,
 * library types bind to no repository method), package-qualified static calls, sink receivers
 * matched by declared type, and one trace per entry point for a helper's sink.
 */
import { lowerJava } from "./java";
import { dedent, IMPORTS, inServlet, lineOf, MAIN, scan, servlet, twins, type Files } from "../test/java-twins";

const LDAP = { rule: "java-taint-ldap", cwe: "CWE-90" };

/** A class file of package `pkg` (under src/main/java) holding `body`. */
function javaFile(pkg: string, body: string): [string, string] {
  return [`src/main/java/${pkg.replace(/\./g, "/")}/${/(?:class|interface)\s+(\w+)/.exec(body)?.[1] ?? "X"}.java`, dedent(body)];
}

/** The servlet with an extra import line after the package line. */
function servletImporting(imports: string, body: string, members = ""): string {
  return servlet(body, members).replace(IMPORTS, `${IMPORTS}\n${imports}`);
}

// Two packages each declare a `Helper`: one hands its argument back, one a constant.
const PASSING = javaFile(
  "com.example.raw",
  `
  package com.example.raw;
  public class Helper {
    public static String value;
    public static String prepare(String s) { return s; }
    public static void keep(String s) { value = s; }
  }
`,
);
const CLEANING = javaFile(
  "com.example.clean",
  `
  package com.example.clean;
  public class Helper {
    public static String value = "guest";
    public static String prepare(String s) { return "guest"; }
    public static void keep(String s) { System.out.println(s.length()); }
  }
`,
);
const HELPERS = Object.fromEntries([PASSING, CLEANING]);

function withHelper(pkg: string, body: string): Files {
  return { ...HELPERS, [MAIN]: servletImporting(`import com.example.${pkg}.Helper;`, body) };
}

twins("class identity", [
  {
    name: "two packages each declaring Helper: methods resolved through the import",
    vuln: withHelper(
      "raw",
      `
      String name = Helper.prepare(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `,
    ),
    safe: withHelper(
      "clean",
      `
      String name = Helper.prepare(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `,
    ),
  },
  {
    name: "two packages each declaring Helper: static fields kept apart",
    vuln: withHelper(
      "raw",
      `
      Helper.keep(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + Helper.value + "'"); // SINK
    `,
    ),
    safe: withHelper(
      "clean",
      `
      Helper.keep(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + Helper.value + "'"); // SINK
    `,
    ),
  },
  {
    name: "a static import picks the class: import static com.example.raw.Helper.prepare",
    vuln: {
      ...HELPERS,
      [MAIN]: servletImporting(
        "import static com.example.raw.Helper.prepare;",
        `stmt.executeQuery("SELECT * FROM users WHERE name = '" + prepare(request.getParameter("name")) + "'"); // SINK`,
      ),
    },
    safe: {
      ...HELPERS,
      [MAIN]: servletImporting(
        "import static com.example.clean.Helper.prepare;",
        `stmt.executeQuery("SELECT * FROM users WHERE name = '" + prepare(request.getParameter("name")) + "'"); // SINK`,
      ),
    },
  },
  {
    name: "nested classes of the same simple name: Outer.Inner and Outer.Other.Inner",
    vuln: inServlet(
      `
      String name = Inner.get(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `,
      `
      static class Inner { static String get(String s) { return s; } }
      static class Other { static class Inner { static String get(String s) { return "guest"; } } }
    `,
    ),
    safe: inServlet(
      `
      String name = Other.Inner.get(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    `,
      `
      static class Inner { static String get(String s) { return s; } }
      static class Other { static class Inner { static String get(String s) { return "guest"; } } }
    `,
    ),
  },
]);

it("keys nested and local classes by package and enclosing class", () => {
  const module = lowerJava(
    "src/Outer.java",
    dedent(`
      package com.acme;
      public class Outer {
        static class Inner { String f; void m() {} }
        void run() { class Local { void n() {} } }
      }
    `),
  );
  expect(module.package).toBe("com.acme");
  expect(module.classes.map((c) => c.name)).toEqual(["com.acme.Outer", "com.acme.Outer$Inner", "com.acme.Outer$Local"]);
  expect(module.functions.map((f) => `${f.cls}.${f.name}`)).toEqual(
    expect.arrayContaining(["com.acme.Outer$Inner.m", "com.acme.Outer$Local.n", "com.acme.Outer.run"]),
  );
  expect(module.classes[1]?.fields[0]).toMatchObject({ name: "f", type: "String" });
});

// ---- type-aware call resolution ----------------------------------------------------------

const STORES: Files = Object.fromEntries([
  javaFile("com.example.store", `package com.example.store;\npublic interface Store { void save(String s) throws Exception; }`),
  javaFile(
    "com.example.store",
    `
    package com.example.store;
    import java.sql.*;
    public class SqlStore implements Store {
      private Statement stmt;
      public void save(String s) throws Exception {
        stmt.executeUpdate("INSERT INTO log VALUES ('" + s + "')"); // SINK
      }
    }
  `,
  ),
  javaFile(
    "com.example.store",
    `
    package com.example.store;
    public class LogStore implements Store {
      public void save(String s) { System.out.println(s.length()); }
    }
  `,
  ),
]);

function storeServlet(declared: string): Files {
  return {
    ...STORES,
    [MAIN]: servletImporting(
      "import com.example.store.*;",
      `
      ${declared} store = pick();
      store.save(request.getParameter("name"));
    `,
      `
      private ${declared} pick() { return null; }
    `,
    ),
  };
}

// An application class whose methods share names with library methods.
const MASKED = `
  static class Masked {
    Masked(String s) {}
    public String toString() { return "***"; }
    public String trim() { return "guest"; }
  }
`;

twins("call resolution by declared type", [
  {
    name: "interface receiver dispatches to every implementer; a class receiver to its own method",
    vuln: storeServlet("Store"),
    safe: storeServlet("LogStore"),
  },
  {
    name: "StringBuilder.toString() next to an application class with a unique toString",
    vuln: inServlet(
      `
      StringBuilder sb = new StringBuilder();
      sb.append(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + sb.toString() + "'"); // SINK
    `,
      MASKED,
    ),
    safe: inServlet(
      `
      Masked sb = new Masked(request.getParameter("name"));
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + sb.toString() + "'"); // SINK
    `,
      MASKED,
    ),
  },
  {
    name: "String.trim() on a declared String parameter next to an application class with a unique trim",
    vuln: inServlet(
      `
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + tidy(request.getParameter("name")) + "'"); // SINK
    `,
      `${MASKED}\nprivate String tidy(String raw) { return raw.trim(); }`,
    ),
    safe: inServlet(
      `
      stmt.executeQuery("SELECT * FROM users WHERE name = '" + tidy(request.getParameter("name")) + "'"); // SINK
    `,
      `${MASKED}\nprivate String tidy(String raw) { Masked m = new Masked(raw); return m.trim(); }`,
    ),
  },
  {
    name: "package-qualified static call: com.example.util.Db.run vs com.example.safe.Db.run",
    vuln: {
      ...Object.fromEntries([
        javaFile(
          "com.example.util",
          `
          package com.example.util;
          import java.sql.*;
          public class Db {
            public static void run(Statement st, String s) throws SQLException {
              st.executeQuery("SELECT * FROM users WHERE name = '" + s + "'"); // SINK
            }
          }
        `,
        ),
        javaFile(
          "com.example.safe",
          `
          package com.example.safe;
          import java.sql.*;
          public class Db {
            public static void run(Statement st, String s) throws SQLException { st.executeQuery("SELECT 1"); }
          }
        `,
        ),
      ]),
      [MAIN]: servlet(`com.example.util.Db.run(stmt, request.getParameter("name"));`),
    },
    safe: {
      ...Object.fromEntries([
        javaFile(
          "com.example.util",
          `
          package com.example.util;
          import java.sql.*;
          public class Db {
            public static void run(Statement st, String s) throws SQLException {
              st.executeQuery("SELECT * FROM users WHERE name = '" + s + "'"); // SINK
            }
          }
        `,
        ),
        javaFile(
          "com.example.safe",
          `
          package com.example.safe;
          import java.sql.*;
          public class Db {
            public static void run(Statement st, String s) throws SQLException { st.executeQuery("SELECT 1"); }
          }
        `,
        ),
      ]),
      [MAIN]: servlet(`com.example.safe.Db.run(stmt, request.getParameter("name"));`),
    },
  },
]);

// A directory context under a name the LDAP rule does not know (`people`): its declared type does.
const PEOPLE_INDEX = `
  static class PeopleIndex {
    void search(String base, String filter, Object controls) { System.out.println(base.length()); }
  }
`;

twins("sink receivers matched by declared type", [
  {
    name: "field declared DirContext vs field of an application class",
    expect: LDAP,
    vuln: inServlet(
      `people.search("ou=people", "(uid=" + request.getParameter("uid") + ")", new SearchControls()); // SINK`,
      `private DirContext people;`,
    ),
    safe: inServlet(
      `people.search("ou=people", "(uid=" + request.getParameter("uid") + ")", new SearchControls()); // SINK`,
      `private PeopleIndex people;\n${PEOPLE_INDEX}`,
    ),
  },
  {
    name: "local declared javax.naming.directory.DirContext (qualified) vs local of an application class",
    expect: LDAP,
    vuln: inServlet(
      `
      javax.naming.directory.DirContext people = open();
      people.search("ou=people", "(uid=" + request.getParameter("uid") + ")", new SearchControls()); // SINK
    `,
      `private DirContext open() { return null; }`,
    ),
    safe: inServlet(
      `
      PeopleIndex people = open();
      people.search("ou=people", "(uid=" + request.getParameter("uid") + ")", new SearchControls()); // SINK
    `,
      `private PeopleIndex open() { return null; }\n${PEOPLE_INDEX}`,
    ),
  },
]);

// ---- one trace per entry point -----------------------------------------------------------

const USERS = javaFile(
  "com.example.web",
  `
  package com.example.web;
  import java.sql.*;
  public class Users {
    public static void find(Statement st, String name) throws SQLException {
      st.executeQuery("SELECT * FROM users WHERE name = '" + name + "'"); // SINK
    }
  }
`,
);

function routeServlet(name: string, arg: string): [string, string] {
  const source = servlet(`Users.find(stmt, ${arg});`).replace("class UserServlet", `class ${name}`);
  return [`src/main/java/com/example/web/${name}.java`, source];
}

describe("one trace per entry point", () => {
  const sinkLine = lineOf(USERS[1], "// SINK");

  it("reports a helper's sink once for each servlet that reaches it, each trace starting in its servlet", () => {
    const files = Object.fromEntries([
      USERS,
      routeServlet("SearchServlet", `request.getParameter("q")`),
      routeServlet("LookupServlet", `request.getHeader("X-User")`),
    ]);
    const traces = scan(files);
    expect(traces.map((t) => [t.file, t.start_line, t.rule_id])).toEqual([
      [USERS[0], sinkLine, "java-taint-sql"],
      [USERS[0], sinkLine, "java-taint-sql"],
    ]);
    expect(traces.map((t) => t.dataflow.trace[0]?.file).sort()).toEqual([
      "src/main/java/com/example/web/LookupServlet.java",
      "src/main/java/com/example/web/SearchServlet.java",
    ]);
  });

  it("reports one trace when only one of the servlets passes input", () => {
    const files = Object.fromEntries([
      USERS,
      routeServlet("SearchServlet", `request.getParameter("q")`),
      routeServlet("LookupServlet", `"guest"`),
    ]);
    const traces = scan(files);
    expect(traces.map((t) => [t.file, t.start_line, t.dataflow.trace[0]?.file])).toEqual([
      [USERS[0], sinkLine, "src/main/java/com/example/web/SearchServlet.java"],
    ]);
  });

  it("keeps one trace per entry function when it passes two inputs to the same sink", () => {
    const files = Object.fromEntries([USERS, routeServlet("SearchServlet", `request.getParameter("q") + request.getParameter("r")`)]);
    expect(scan(files).length).toBe(1);
  });
});

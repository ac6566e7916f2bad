/**
 * Java request inputs beyond servlets and Spring MVC annotations (JAX-RS entities, WebFlux, a
 * main method's arguments, Struts properties, archive entry names) and more sink APIs (SQL
 * beyond JDBC/JPA, format strings): vulnerable and safe twins.
 */
import { dedent, inServlet, lineOf, PKG, places, scan, twins, type Files } from "../test/java-twins";
import { spring } from "../test/java-styles";

const PATH = { rule: "java-taint-path", cwe: "CWE-22" };

twins("request inputs beyond servlets and Spring MVC annotations", [
  {
    name: "the unannotated entity parameter of a JAX-RS @POST method",
    vuln: {
      [`${PKG}/Res.java`]: dedent(`
        package com.example.web;

        import javax.ws.rs.*;

        @Path("/jobs")
        public class Res {
          @POST
          public String run(String script) throws Exception {
            Runtime.getRuntime().exec(script); // SINK
            return "queued";
          }
        }
      `),
    },
    safe: {
      [`${PKG}/Res.java`]: dedent(`
        package com.example.web;

        public class Res {
          public String run(String script) throws Exception {
            Runtime.getRuntime().exec(script); // SINK
            return "queued";
          }
        }
      `),
    },
    expect: { rule: "java-taint-command", cwe: "CWE-78" },
  },
  {
    name: "a WebFlux functional handler's query parameter",
    vuln: {
      [`${PKG}/Handler.java`]: dedent(`
        package com.example.web;

        import org.springframework.web.reactive.function.server.ServerRequest;

        public class Handler {
          public Object ping(ServerRequest request) throws Exception {
            String host = request.queryParam("host").orElse("localhost");
            return Runtime.getRuntime().exec("ping -c 1 " + host); // SINK
          }
        }
      `),
    },
    safe: {
      [`${PKG}/Handler.java`]: dedent(`
        package com.example.web;

        import org.springframework.web.reactive.function.server.ServerRequest;

        public class Handler {
          public Object ping(ServerRequest request) throws Exception {
            String host = request.queryParam("host").orElse("localhost");
            return Runtime.getRuntime().exec("ping -c 1 localhost"); // SINK
          }
        }
      `),
    },
    expect: { rule: "java-taint-command", cwe: "CWE-78" },
  },
]);

describe("a main method's arguments", () => {
  const tool = (signature: string, use: string): Files => ({
    [`${PKG}/Tool.java`]: dedent(`
      package com.example.web;

      public class Tool {
        ${signature} throws Exception {
          String input = args.length > 0 ? args[0] : "report.txt";
          ${use} // SINK
        }
      }
    `),
  });
  it("are a local source (MEDIUM confidence) for String[] and varargs", () => {
    for (const signature of ["public static void main(String[] args)", "public static void main(final String... args)"]) {
      const files = tool(signature, "new java.io.FileInputStream(input).close();");
      const findings = scan(files);
      expect(places(findings)).toEqual([{ ...PATH, file: `${PKG}/Tool.java`, line: lineOf(Object.values(files)[0] ?? "", "// SINK") }]);
      expect(findings[0]?.dataflow?.source_kind).toBe("local");
      expect(findings[0]?.confidence).toBe("MEDIUM");
    }
  });
  it("are not a source in an instance method or another method named main", () => {
    expect(places(scan(tool("public void main(String[] args)", "new java.io.FileInputStream(input).close();")))).toEqual([]);
    expect(places(scan(tool("public static void run(String[] args)", "new java.io.FileInputStream(input).close();")))).toEqual([]);
  });
});

function strutsAction(header: string): Files {
  return {
    [`${PKG}/ReportAction.java`]: dedent(`
      package com.example.web;

      import java.io.File;

      ${header} {
        private String report;

        public void setReport(String report) {
          this.report = report;
        }

        public String execute() throws Exception {
          File f = new File("/var/reports/" + report); // SINK
          return f.exists() ? "success" : "error";
        }
      }
    `),
  };
}

twins("Struts", [
  {
    name: "an ActionSupport's request-populated property reaches a file path",
    vuln: strutsAction("public class ReportAction extends com.opensymphony.xwork2.ActionSupport"),
    safe: strutsAction("public class ReportAction"),
    expect: PATH,
  },
  {
    name: "Action is a Struts action only when imported from XWork",
    vuln: strutsAction("import com.opensymphony.xwork2.Action;\n\npublic class ReportAction implements Action"),
    safe: strutsAction("import javax.swing.Action;\n\npublic abstract class ReportAction implements Action"),
    expect: PATH,
  },
]);

twins("SQL APIs beyond JDBC and JPA", [
  {
    name: "Spring JdbcClient.sql on a constructor-injected field",
    vuln: spring(
      "import org.springframework.jdbc.core.simple.JdbcClient;",
      "  private final JdbcClient jdbcClient;\n  public Api(JdbcClient jdbcClient) { this.jdbcClient = jdbcClient; }",
      `    return jdbcClient.sql("SELECT * FROM notes WHERE owner = '" + q + "'").query().listOfRows(); // SINK`,
    ),
    safe: spring(
      "import org.springframework.jdbc.core.simple.JdbcClient;",
      "  private final JdbcClient jdbcClient;\n  public Api(JdbcClient jdbcClient) { this.jdbcClient = jdbcClient; }",
      `    return jdbcClient.sql("SELECT * FROM notes WHERE owner = :owner").param("owner", q).query().listOfRows(); // SINK`,
    ),
  },
  {
    name: "jOOQ plain SQL",
    vuln: spring(
      "import org.jooq.DSLContext;",
      "  private final DSLContext dsl;\n  public Api(DSLContext dsl) { this.dsl = dsl; }",
      `    return dsl.fetch(String.format("SELECT * FROM notes WHERE tag = '%s'", q)); // SINK`,
    ),
    safe: spring(
      "import org.jooq.DSLContext;",
      "  private final DSLContext dsl;\n  public Api(DSLContext dsl) { this.dsl = dsl; }",
      `    return dsl.fetch("SELECT * FROM notes WHERE tag = ?", q); // SINK`,
    ),
  },
  {
    name: "Android SQLiteDatabase.rawQuery",
    vuln: spring(
      "import android.database.sqlite.SQLiteDatabase;",
      "  private SQLiteDatabase database;",
      `    var sql = new StringBuilder("SELECT * FROM notes WHERE id = ").append(q).toString();\n    return database.rawQuery(sql, null); // SINK`,
    ),
    safe: spring(
      "import android.database.sqlite.SQLiteDatabase;",
      "  private SQLiteDatabase database;",
      `    var sql = "SELECT * FROM notes WHERE id = ?";\n    return database.rawQuery(sql, new String[] { q }); // SINK`,
    ),
  },
]);

function unzip(guard: string): Files {
  return {
    [`${PKG}/Unzip.java`]: dedent(`
      package com.example.web;

      import java.io.*;
      import java.nio.file.*;
      import java.util.zip.*;

      public class Unzip {
        public void extract(InputStream in, Path dest) throws IOException {
          try (ZipInputStream zis = new ZipInputStream(in)) {
            ZipEntry entry;
            while ((entry = zis.getNextEntry()) != null) {
              Path target = dest.resolve(entry.getName()).normalize();
              ${guard}
              Files.copy(zis, target); // SINK
            }
          }
        }
      }
    `),
  };
}

twins("zip slip", [
  {
    name: "an entry name joined to the destination without a containment check",
    vuln: unzip(""),
    safe: unzip(`if (!target.startsWith(dest.normalize())) throw new IOException("entry outside the destination");`),
    expect: { rule: "java-taint-path-files", cwe: "CWE-22" },
  },
]);

twins("format strings", [
  {
    name: "MessageFormat.format with a pattern from the request; a java.time formatter formats a value",
    vuln: inServlet(`
      String pattern = request.getParameter("pattern");
      String text = java.text.MessageFormat.format(pattern, "admin"); // SINK
    `),
    safe: inServlet(`
      java.time.LocalDate day = java.time.LocalDate.parse(request.getParameter("day"));
      java.time.format.DateTimeFormatter iso = java.time.format.DateTimeFormatter.ISO_LOCAL_DATE;
      String text = iso.format(day) + new java.text.SimpleDateFormat("yyyy").format(java.sql.Date.valueOf(day)); // SINK
    `),
    expect: { rule: "java-taint-format", cwe: "CWE-134" },
  },
  {
    name: "java.util.Formatter and System.out.format take the format first",
    vuln: inServlet(`
      java.util.Formatter formatter = new java.util.Formatter();
      formatter.format(request.getParameter("f"), 42); // SINK
    `),
    safe: inServlet(`
      java.util.Formatter formatter = new java.util.Formatter();
      formatter.format("%s", request.getParameter("f")); // SINK
    `),
    expect: { rule: "java-taint-format", cwe: "CWE-134" },
  },
]);

twins("sanitizers by API", [
  {
    name: "a header value with its line breaks removed",
    vuln: inServlet(`
      String lang = request.getParameter("lang");
      response.setHeader("Content-Language", lang.trim()); // SINK
    `),
    safe: inServlet(`
      String lang = request.getParameter("lang");
      response.setHeader("Content-Language", lang.replaceAll("[\\r\\n]", "")); // SINK
    `),
    expect: { rule: "java-taint-header", cwe: "CWE-113" },
  },
  {
    name: "OWASP Encoder forJavaScript inside a script block",
    vuln: inServlet(`
      String name = request.getParameter("name");
      response.getWriter().println("<script>var user = '" + name + "';</script>"); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      response.getWriter().println("<script>var user = '" + org.owasp.encoder.Encode.forJavaScript(name) + "';</script>"); // SINK
    `),
    expect: { rule: "java-taint-xss", cwe: "CWE-79" },
  },
  {
    name: "a UUID or a date parsed from the request cannot carry SQL",
    vuln: inServlet(`
      String id = request.getParameter("id");
      stmt.executeQuery("SELECT * FROM orders WHERE id = '" + id + "'"); // SINK
    `),
    safe: inServlet(`
      java.util.UUID id = java.util.UUID.fromString(request.getParameter("id"));
      java.time.LocalDate day = java.time.LocalDate.parse(request.getParameter("day"));
      stmt.executeQuery("SELECT * FROM orders WHERE id = '" + id + "' AND day = '" + day + "'"); // SINK
    `),
  },
  {
    name: "Jsoup.clean reduces markup to an allowlist",
    vuln: inServlet(`
      String bio = request.getParameter("bio");
      response.getWriter().write("<div>" + bio + "</div>"); // SINK
    `),
    safe: inServlet(`
      String bio = org.jsoup.Jsoup.clean(request.getParameter("bio"), org.jsoup.safety.Safelist.basic());
      response.getWriter().write("<div>" + bio + "</div>"); // SINK
    `),
    expect: { rule: "java-taint-xss", cwe: "CWE-79" },
  },
]);

twins("builder chains", [
  {
    name: "the input appended second in a chain taints the builder",
    vuln: inServlet(`
      String host = request.getParameter("host");
      StringBuilder cmd = new StringBuilder();
      cmd.append("ping -c 1 ").append(host);
      Runtime.getRuntime().exec(cmd.toString()); // SINK
    `),
    safe: inServlet(`
      String host = request.getParameter("host");
      StringBuilder cmd = new StringBuilder();
      cmd.append("ping -c 1 ").append("localhost");
      Runtime.getRuntime().exec(cmd.toString()); // SINK
    `),
    expect: { rule: "java-taint-command", cwe: "CWE-78" },
  },
]);

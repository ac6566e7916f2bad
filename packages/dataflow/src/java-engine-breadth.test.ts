/**
 * Java sinks by API breadth (java-api-sinks.ts): each family in the styles application code
 * uses besides servlets (Spring MVC, JAX-RS, fields set in constructors, `var`, fully qualified
 * names, builder chains), a vulnerable twin and a safe one (constant, parameterised, allowlisted).
 */
import { dedent, inServlet, lineOf, PKG, places, scan, twins, type Files } from "../test/java-twins";

const PATH = { rule: "java-taint-path", cwe: "CWE-22" };
const SSRF = { rule: "java-taint-ssrf-client", cwe: "CWE-918" };

/** A Spring @RestController `Api` with `members` (fields, constructor) and one handler `body` taking `@RequestParam String q`. */
function spring(imports: string, members: string, body: string): Files {
  const src = dedent(`
    package com.example.web;

    import org.springframework.web.bind.annotation.*;
    ${imports}

    @RestController
    public class Api {
    ${members}

      @GetMapping("/api")
      public Object handle(@RequestParam("q") String q) throws Exception {
    ${body}
      }
    }
  `);
  return { [`${PKG}/Api.java`]: src };
}

/** A JAX-RS resource whose GET method takes `@QueryParam("q") String q`. */
function jaxrs(imports: string, body: string): Files {
  const src = dedent(`
    package com.example.web;

    import javax.ws.rs.*;
    ${imports}

    @Path("/res")
    public class Res {
      @GET
      @Produces("application/json")
      public String get(@QueryParam("q") String q) throws Exception {
    ${body}
      }
    }
  `);
  return { [`${PKG}/Res.java`]: src };
}

twins("API breadth", [
  {
    name: "JNDI lookup of a request parameter (javax.naming.InitialContext)",
    vuln: inServlet(`
      javax.naming.Context ctx = new javax.naming.InitialContext();
      Object bean = ctx.lookup(request.getParameter("name")); // SINK
    `),
    safe: inServlet(`
      String name = request.getParameter("name");
      javax.naming.Context ctx = new javax.naming.InitialContext();
      Object bean = ctx.lookup("java:comp/env/jdbc/main"); // SINK
    `),
    expect: { rule: "java-taint-jndi", cwe: "CWE-74" },
  },
  {
    name: "RequestDispatcher forward chosen by the request",
    vuln: inServlet(`
      String page = request.getParameter("page");
      request.getRequestDispatcher("/WEB-INF/views/" + page).forward(request, response); // SINK
    `),
    safe: inServlet(`
      String page = request.getParameter("page");
      String view = "help".equals(page) ? "/WEB-INF/views/help.jsp" : "/WEB-INF/views/home.jsp";
      request.getRequestDispatcher(view).forward(request, response); // SINK
    `),
    expect: PATH,
  },
  {
    name: "commons-io FileUtils in a Spring controller",
    vuln: spring(
      "import org.apache.commons.io.FileUtils;\nimport java.io.File;",
      "",
      `    return FileUtils.readFileToString(FileUtils.getFile("/srv/reports", q), "UTF-8"); // SINK`,
    ),
    safe: spring(
      "import org.apache.commons.io.FileUtils;\nimport java.io.File;",
      "",
      `    return FileUtils.readFileToString(FileUtils.getFile("/srv/reports", "daily.csv"), "UTF-8"); // SINK`,
    ),
    expect: PATH,
  },
  {
    name: "Spring FileSystemResource from a request parameter",
    vuln: spring(
      "import org.springframework.core.io.*;",
      "",
      `    Resource r = new FileSystemResource("/srv/files/" + q); // SINK\n    return r.getFilename();`,
    ),
    safe: spring(
      "import org.springframework.core.io.*;",
      "",
      `    Resource r = new FileSystemResource("/srv/files/readme.txt"); // SINK\n    return r.getFilename();`,
    ),
    expect: PATH,
  },
  {
    name: "getResourceAsStream of a name from the request",
    vuln: spring(
      "import java.io.InputStream;",
      "",
      `    InputStream in = getClass().getResourceAsStream("/help/" + q); // SINK\n    return in.available();`,
    ),
    safe: spring(
      "import java.io.InputStream;",
      "",
      `    InputStream in = getClass().getResourceAsStream("/help/index.txt"); // SINK\n    return in.available();`,
    ),
    expect: PATH,
  },
  {
    name: "Hibernate sqlRestriction on a field set in the constructor",
    vuln: spring(
      "import org.hibernate.Session;\nimport org.hibernate.criterion.Restrictions;",
      "  private final Session session;\n  public Api(Session session) { this.session = session; }",
      `    return session.createCriteria(Object.class).add(Restrictions.sqlRestriction("owner = '" + q + "'")).list(); // SINK`,
    ),
    safe: spring(
      "import org.hibernate.Session;\nimport org.hibernate.criterion.Restrictions;",
      "  private final Session session;\n  public Api(Session session) { this.session = session; }",
      `    return session.createCriteria(Object.class).add(Restrictions.eq("owner", q)).list(); // SINK`,
    ),
  },
  {
    name: "mail subject from a request parameter (SMTP header injection)",
    vuln: inServlet(`
      String subject = request.getParameter("subject");
      javax.mail.internet.MimeMessage message = new javax.mail.internet.MimeMessage((javax.mail.Session) null);
      message.setSubject("Support: " + subject); // SINK
    `),
    safe: inServlet(`
      String subject = request.getParameter("subject");
      javax.mail.internet.MimeMessage message = new javax.mail.internet.MimeMessage((javax.mail.Session) null);
      message.setSubject("Support request received"); // SINK
    `),
    expect: { rule: "java-taint-smtp-header", cwe: "CWE-93" },
  },
  {
    name: "java.net.http request built from a JAX-RS query parameter",
    vuln: jaxrs(
      "import java.net.http.*;\nimport java.net.URI;",
      `    var req = HttpRequest.newBuilder().uri(new URI(q).resolve("/status")).GET().build(); // SINK\n    return req.method();`,
    ),
    safe: jaxrs(
      "import java.net.http.*;\nimport java.net.URI;",
      `    var req = HttpRequest.newBuilder().uri(new URI("https://status.example.com/")).GET().build(); // SINK\n    return req.method();`,
    ),
    expect: { rule: "java-taint-ssrf", cwe: "CWE-918" },
  },
  {
    name: "OkHttp Request.Builder url",
    vuln: jaxrs("import okhttp3.Request;", `    Request r = new Request.Builder().url(q).build(); // SINK\n    return r.method();`),
    safe: jaxrs(
      "import okhttp3.Request;",
      `    Request r = new Request.Builder().url("https://api.example.com/v1").build(); // SINK\n    return r.method();`,
    ),
    expect: SSRF,
  },
  {
    name: "Spring WebClient uri on a field",
    vuln: spring(
      "import org.springframework.web.reactive.function.client.WebClient;",
      "  private final WebClient webClient = WebClient.create();",
      `    webClient.get().uri(q).retrieve(); // SINK\n    return "ok";`,
    ),
    safe: spring(
      "import org.springframework.web.reactive.function.client.WebClient;",
      "  private final WebClient webClient = WebClient.create();",
      `    webClient.get().uri("https://api.example.com/items").retrieve(); // SINK\n    return "ok";`,
    ),
    expect: SSRF,
  },
  {
    name: "ResponseEntity header from a request parameter",
    vuln: spring(
      "import org.springframework.http.ResponseEntity;",
      "",
      `    ResponseEntity<String> r = ResponseEntity.ok().header("X-Lang", q).body("{}"); // SINK\n    return r;`,
    ),
    safe: spring(
      "import org.springframework.http.ResponseEntity;",
      "",
      `    ResponseEntity<String> r = ResponseEntity.ok().header("X-Lang", "en").body("{}"); // SINK\n    return r;`,
    ),
    expect: { rule: "java-taint-header", cwe: "CWE-113" },
  },
]);

twins("API breadth, more families", [
  {
    name: "Spring ModelAndView named by the request (file disclosure)",
    vuln: spring("import org.springframework.web.servlet.ModelAndView;", "", `    return new ModelAndView("help/" + q); // SINK`),
    safe: spring("import org.springframework.web.servlet.ModelAndView;", "", `    return new ModelAndView("help/index"); // SINK`),
    expect: PATH,
  },
  {
    name: "Spring LDAP searchForObject with a concatenated filter",
    vuln: spring(
      "import org.springframework.ldap.core.LdapTemplate;",
      "  private final LdapTemplate ldap;\n  public Api(LdapTemplate ldap) { this.ldap = ldap; }",
      `    return ldap.searchForObject("ou=people", "(uid=" + q + ")", ctx -> ctx); // SINK`,
    ),
    safe: spring(
      "import org.springframework.ldap.core.LdapTemplate;",
      "  private final LdapTemplate ldap;\n  public Api(LdapTemplate ldap) { this.ldap = ldap; }",
      `    return ldap.searchForObject("ou=people", "(uid=admin)", ctx -> ctx); // SINK`,
    ),
    expect: { rule: "java-taint-ldap", cwe: "CWE-90" },
  },
  {
    name: "dom4j selectNodes with a concatenated XPath",
    vuln: spring(
      "import org.dom4j.Document;",
      "  private Document document;",
      `    return document.selectNodes("//user[@name='" + q + "']"); // SINK`,
    ),
    safe: spring(
      "import org.dom4j.Document;",
      "  private Document document;",
      `    return document.selectNodes("//user[@active='true']"); // SINK`,
    ),
    expect: { rule: "java-taint-xpath", cwe: "CWE-643" },
  },
  {
    name: "commons-exec CommandLine.parse",
    vuln: jaxrs(
      "import org.apache.commons.exec.*;",
      `    CommandLine cl = CommandLine.parse("convert " + q + " out.png"); // SINK\n    return cl.getExecutable();`,
    ),
    safe: jaxrs(
      "import org.apache.commons.exec.*;",
      `    CommandLine cl = CommandLine.parse("convert in.png out.png"); // SINK\n    return cl.getExecutable();`,
    ),
    expect: { rule: "java-taint-command", cwe: "CWE-78" },
  },
]);

describe("JAX-RS redirect", () => {
  const files = (target: string): Files =>
    jaxrs(
      "import javax.ws.rs.core.Response;\nimport java.net.URI;",
      `    URI to = ${target};\n    return Response.seeOther(to).build().toString(); // SINK`,
    );
  it("reports Response.seeOther to a URI from the request", () => {
    const f = files("URI.create(q)");
    const src = Object.values(f)[0] ?? "";
    expect(places(scan(f))).toContainEqual(
      expect.objectContaining({ rule: "java-taint-redirect", cwe: "CWE-601", line: lineOf(src, "// SINK") }),
    );
  });
  it("does not report a constant destination", () => {
    expect(places(scan(files(`URI.create("/home")`)))).toEqual([]);
  });
});

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

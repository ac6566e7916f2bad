/**
 * Java sinks by API breadth (java-api-sinks.ts): each family in the styles application code
 * uses besides servlets (Spring MVC, JAX-RS, fields set in constructors, `var`, fully qualified
 * names, builder chains), a vulnerable twin and a safe one (constant, parameterised, allowlisted).
 */
import { inServlet, lineOf, places, scan, twins, type Files } from "../test/java-twins";
import { jaxrs, spring } from "../test/java-styles";

const PATH = { rule: "java-taint-path", cwe: "CWE-22" };
const SSRF = { rule: "java-taint-ssrf-client", cwe: "CWE-918" };

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

twins("URL constructors and redirect builders", [
  {
    name: "new URL(context, spec): an absolute spec replaces the host",
    vuln: inServlet(`
      java.net.URL base = new java.net.URL("https://api.example.com/v1/");
      java.net.URL target = new java.net.URL(base, request.getParameter("path")); // SINK
    `),
    safe: inServlet(`
      String path = request.getParameter("path");
      java.net.URL base = new java.net.URL("https://api.example.com/v1/");
      java.net.URL target = new java.net.URL(base, "status"); // SINK
    `),
    expect: { rule: "java-taint-ssrf", cwe: "CWE-918" },
  },
  {
    name: "Spring HttpHeaders.setLocation from the request",
    vuln: spring(
      "import org.springframework.http.*;",
      "",
      `    HttpHeaders headers = new HttpHeaders();\n    java.net.URI next = java.net.URI.create("/").resolve(q);\n    headers.setLocation(next); // SINK\n    return new ResponseEntity<>(headers, HttpStatus.FOUND);`,
    ),
    safe: spring(
      "import org.springframework.http.*;",
      "",
      `    HttpHeaders headers = new HttpHeaders();\n    java.net.URI next = java.net.URI.create("/").resolve("home");\n    headers.setLocation(next); // SINK\n    return new ResponseEntity<>(headers, HttpStatus.FOUND);`,
    ),
    expect: { rule: "java-taint-redirect", cwe: "CWE-601" },
  },
]);

twins("more library entry points", [
  {
    name: "UnboundID Filter.create with a concatenated filter",
    vuln: jaxrs(
      "import com.unboundid.ldap.sdk.Filter;",
      `    Filter f = Filter.create("(uid=" + q + ")"); // SINK\n    return f.toString();`,
    ),
    safe: jaxrs(
      "import com.unboundid.ldap.sdk.Filter;",
      `    Filter f = Filter.createEqualityFilter("uid", q); // SINK\n    return f.toString();`,
    ),
    expect: { rule: "java-taint-ldap", cwe: "CWE-90" },
  },
  {
    name: "commons-exec CommandLine naming the program",
    vuln: jaxrs("import org.apache.commons.exec.*;", `    CommandLine cl = new CommandLine(q); // SINK\n    return cl.toString();`),
    safe: jaxrs(
      "import org.apache.commons.exec.*;",
      `    CommandLine cl = new CommandLine("/usr/bin/convert"); // SINK\n    cl.addArgument("--version");\n    return cl.toString();`,
    ),
    expect: { rule: "java-taint-command", cwe: "CWE-78" },
  },
  {
    name: "a WebClient built with a base URL from the request",
    vuln: spring(
      "import org.springframework.web.reactive.function.client.WebClient;",
      "",
      `    WebClient client = WebClient.builder().baseUrl(q).build(); // SINK\n    return client;`,
    ),
    safe: spring(
      "import org.springframework.web.reactive.function.client.WebClient;",
      "",
      `    WebClient client = WebClient.builder().baseUrl("https://api.example.com").build(); // SINK\n    return client;`,
    ),
    expect: SSRF,
  },
]);

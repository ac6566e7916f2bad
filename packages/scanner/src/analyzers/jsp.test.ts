// The JSP analyzer on real pages written to a temp checkout: each check has a vulnerable page
// and its nearest safe twin, which must stay silent.
import type { NormalizedFinding } from "@ax/contracts";
import { runAnalyzers } from "../run";
import { jspAnalyzer } from "./jsp";
import { analyzerContext, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

let n = 0;
async function scan(files: Record<string, string>): Promise<NormalizedFinding[]> {
  const dir = writeCheckout(root, `repo-${n++}`, files);
  return jspAnalyzer().run(analyzerContext(root, dir, Object.keys(files)));
}
const found = (findings: NormalizedFinding[]) => findings.map((f) => [f.start_line, f.rule_id, f.cwe_id]);

const TAGLIBS = [
  '<%@ page contentType="text/html;charset=UTF-8" %>',
  '<%@ taglib prefix="c" uri="http://java.sun.com/jsp/jstl/core" %>',
  '<%@ taglib prefix="fn" uri="http://java.sun.com/jsp/jstl/functions" %>',
].join("\n");

describe("XSS", () => {
  it("reports request data in expressions, EL output, unescaped <c:out> and out.print", async () => {
    const page = [
      TAGLIBS,
      '<% String name = request.getParameter("name"); %>',
      "<p>Hello <%= name %></p>",
      "<p>You searched for ${param.q}</p>",
      '<a href="${header.referer}">back</a>',
      '<c:out value="${cookie.theme.value}" escapeXml="false"/>',
      '<% out.println("<b>" + name + "</b>"); %>',
      '<c:set var="who" value="${param.who}"/>',
      "<div>${who}</div>",
      '<p><%= request.getParameter("id") %></p>',
    ].join("\n");
    expect(found(await scan({ "web/hello.jsp": page }))).toEqual([
      [5, "jsp.xss-expression", "CWE-79"],
      [6, "jsp.xss-el", "CWE-79"],
      [7, "jsp.xss-el", "CWE-79"],
      [8, "jsp.xss-c-out-unescaped", "CWE-79"],
      [9, "jsp.xss-scriptlet-write", "CWE-79"],
      [11, "jsp.xss-el", "CWE-79"],
      [12, "jsp.xss-expression", "CWE-79"],
    ]);
  });

  it("stays silent when the same values are encoded, tested or passed to tags", async () => {
    const page = [
      TAGLIBS,
      '<% String name = ESAPI.encoder().encodeForHTML(request.getParameter("name")); %>',
      "<p>Hello <%= name %></p>",
      "<p>You searched for ${fn:escapeXml(param.q)}</p>",
      '<a href="<c:out value="${header.referer}"/>">back</a>',
      '<c:out value="${cookie.theme.value}"/>',
      '<% out.println("<b>" + StringEscapeUtils.escapeHtml4(request.getParameter("n")) + "</b>"); %>',
      '<c:set var="who" value="${fn:escapeXml(param.who)}"/>',
      "<div>${who}</div>",
      "<c:if test=\"${param.mode == 'admin'}\">admin</c:if>",
      "<option ${param.sel == 'a' ? 'selected' : ''}>a</option>",
      "<p>${user.displayName}</p>",
      "<p>\\${param.literal}</p>",
      '<%-- <%= request.getParameter("x") %> --%>',
      '<% if ("yes".equals(request.getParameter("ok"))) { %><p>ok</p><% } %>',
    ].join("\n");
    expect(found(await scan({ "web/hello.jsp": page }))).toEqual([]);
  });

  it("reads the XML syntax of .jspx pages", async () => {
    const page = [
      '<jsp:root xmlns:jsp="http://java.sun.com/JSP/Page" version="2.0">',
      '<jsp:scriptlet>String q = request.getParameter("q");</jsp:scriptlet>',
      "<p><jsp:expression>q</jsp:expression></p>",
      '<p><jsp:expression>org.owasp.encoder.Encode.forHtml(request.getParameter("q"))</jsp:expression></p>',
      "</jsp:root>",
    ].join("\n");
    expect(found(await scan({ "web/search.jspx": page }))).toEqual([[3, "jsp.xss-expression", "CWE-79"]]);
  });

  it("leaves EL alone in a page that turns EL off", async () => {
    const page = '<%@ page isELIgnored="true" %>\n<p>${param.q}</p>\n';
    expect(found(await scan({ "raw.jsp": page, "on.jsp": page.replace("true", "false") }))).toEqual([[2, "jsp.xss-el", "CWE-79"]]);
  });
});

describe("scriptlet sinks", () => {
  it("reports SQL, command and path sinks built from request data, includes, redirects and weak crypto", async () => {
    const page = [
      "<%",
      '  String id = request.getParameter("id");',
      '  String sql = "SELECT * FROM users WHERE id = \'" + id + "\'";',
      "  java.sql.ResultSet rs = conn.createStatement().executeQuery(sql);",
      '  Runtime.getRuntime().exec("ping -c 1 " + request.getParameter("host"));',
      '  java.io.File f = new java.io.File("/var/reports", request.getParameter("file"));',
      '  response.sendRedirect(request.getParameter("next"));',
      '  java.security.MessageDigest md = java.security.MessageDigest.getInstance("MD5");',
      '  javax.crypto.Cipher c = javax.crypto.Cipher.getInstance("DES/ECB/PKCS5Padding");',
      "%>",
      '<jsp:include page="<%= request.getParameter("page") %>"/>',
      '<c:import url="${param.template}"/>',
      '<c:redirect url="${param.to}"/>',
      '<spring:eval expression="${param.formula}" var="result"/>',
    ].join("\n");
    expect(found(await scan({ "admin/report.jsp": page }))).toEqual([
      [4, "jsp.sql-injection", "CWE-89"],
      [5, "jsp.command-injection", "CWE-78"],
      [6, "jsp.path-traversal", "CWE-22"],
      [7, "jsp.open-redirect", "CWE-601"],
      [8, "jsp.weak-hash", "CWE-328"],
      [9, "jsp.weak-cipher", "CWE-327"],
      [11, "jsp.file-inclusion", "CWE-98"],
      [12, "jsp.file-inclusion", "CWE-98"],
      [13, "jsp.open-redirect", "CWE-601"],
      [14, "jsp.el-injection", "CWE-917"],
    ]);
  });

  it("stays silent on parameterized queries, fixed commands, file names, fixed includes and strong crypto", async () => {
    const page = [
      "<%",
      '  String id = request.getParameter("id");',
      '  java.sql.PreparedStatement ps = conn.prepareStatement("SELECT * FROM users WHERE id = ?");',
      "  ps.setString(1, id);",
      "  java.sql.ResultSet rs = ps.executeQuery();",
      '  Runtime.getRuntime().exec(new String[] {"/usr/bin/uptime"});',
      '  java.io.File f = new java.io.File("/var/reports", FilenameUtils.getName(request.getParameter("file")));',
      '  response.sendRedirect(request.getContextPath() + "/home");',
      '  java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");',
      '  javax.crypto.Cipher c = javax.crypto.Cipher.getInstance("AES/GCM/NoPadding");',
      '  int page = Integer.parseInt(request.getParameter("page"));',
      '  rs = conn.createStatement().executeQuery("SELECT * FROM items LIMIT 10 OFFSET " + page);',
      "%>",
      '<jsp:include page="/WEB-INF/header.jsp"/>',
      '<c:import url="/WEB-INF/footer.jsp"/>',
      '<c:redirect url="/login"/>',
      '<spring:eval expression="@priceService.total(cart)" var="total"/>',
      '<spring:message code="greeting" arguments="${fn:escapeXml(param.name)}"/>',
    ].join("\n");
    expect(found(await scan({ "admin/report.jsp": page }))).toEqual([]);
  });

  it("follows a variable until it is reassigned from an encoder", async () => {
    const page = ['<% String q = request.getParameter("q"); %>', "<p><%= q %></p>", "<% q = Encode.forHtml(q); %>", "<p><%= q %></p>"].join(
      "\n",
    );
    expect(found(await scan({ "search.jsp": page }))).toEqual([[2, "jsp.xss-expression", "CWE-79"]]);
  });
});

describe("page variables, tag bodies and tag arguments", () => {
  it("follows c:set bodies, c:url and c:forEach variables and reads spring:message htmlEscape", async () => {
    const page = [
      TAGLIBS,
      '<%@ taglib prefix="spring" uri="http://www.springframework.org/tags" %>',
      '<c:set var="body">${param.body}</c:set>',
      "<div>${body}</div>",
      '<c:url var="back" value="${param.back}"/>',
      '<a href="${back}">back</a>',
      '<c:forEach items="${paramValues.item}" var="it">',
      "  <li>${it}</li>",
      "</c:forEach>",
      '<spring:message code="greeting" arguments="${param.name}" htmlEscape="false"/>',
      '<jsp:include page="${view}"/>',
      '<spring:eval expression="${formula}"/>',
      '<c:out value="${user.bio}" escapeXml="false"/>',
      '<c:out value="${param.q}" escapeXml="${false}"/>',
      '<p><%= pageContext.getRequest().getParameter("q") %></p>',
      '<spring:url var="next" value="${param.next}"/>',
      '<a href="${next}">next</a>',
    ].join("\n");
    expect(found(await scan({ "web/vars.jsp": page }))).toEqual([
      [6, "jsp.xss-el", "CWE-79"],
      [8, "jsp.xss-el", "CWE-79"],
      [10, "jsp.xss-el", "CWE-79"],
      [12, "jsp.xss-el", "CWE-79"],
      [13, "jsp.file-inclusion", "CWE-98"],
      [14, "jsp.el-injection", "CWE-917"],
      [15, "jsp.xss-c-out-unescaped", "CWE-79"],
      [16, "jsp.xss-c-out-unescaped", "CWE-79"],
      [17, "jsp.xss-expression", "CWE-79"],
      [19, "jsp.xss-el", "CWE-79"],
    ]);
  });

  it("stays silent on escaped bodies, escaped loop variables, tests of request data and fixed tag arguments", async () => {
    const page = [
      TAGLIBS,
      '<%@ taglib prefix="spring" uri="http://www.springframework.org/tags" %>',
      '<c:set var="body">${fn:escapeXml(param.body)}</c:set>',
      "<div>${body}</div>",
      '<spring:escapeBody htmlEscape="true">${param.x}</spring:escapeBody>',
      '<c:out value="${param.a}">${param.fallback}</c:out>',
      '<c:forEach items="${paramValues.item}" var="it"><li><c:out value="${it}"/></li></c:forEach>',
      '<spring:message code="greeting" arguments="${param.name}"/>',
      '<p><%= request.getParameter("id") != null ? "yes" : "no" %></p>',
      '<p><%= policy.sanitize(request.getParameter("bio")) %></p>',
      '<jsp:include page="${pageContext.request.contextPath}/header.jsp"/>',
      '<jsp:include page="<%= "/WEB-INF/footer.jsp" %>"/>',
      '<c:set var="layout" value="/WEB-INF/layout.jsp"/>',
      '<jsp:include page="${layout}"/>',
      '<% String footer = "/WEB-INF/" + "footer.jsp"; %>',
      '<jsp:include page="<%= footer %>"/>',
      '<c:out value="${user.bio}"/>',
    ].join("\n");
    expect(found(await scan({ "web/vars.jsp": page }))).toEqual([]);
  });
});

describe("JSTL sql and fmt tags", () => {
  it("reports request data in sql:query text and fmt:param values, not in sql:param", async () => {
    const page = [
      '<%@ taglib prefix="sql" uri="http://java.sun.com/jsp/jstl/sql" %>',
      '<%@ taglib prefix="fmt" uri="http://java.sun.com/jsp/jstl/fmt" %>',
      '<sql:query var="users" dataSource="${ds}">',
      "  SELECT * FROM users WHERE name = '${param.name}'",
      "</sql:query>",
      '<sql:update dataSource="${ds}" sql="DELETE FROM t WHERE id = ${param.id}"/>',
      '<sql:query var="safe" dataSource="${ds}">',
      "  SELECT * FROM users WHERE name = ?",
      '  <sql:param value="${param.name}"/>',
      "</sql:query>",
      '<fmt:message key="welcome"><fmt:param value="${param.who}"/></fmt:message>',
      '<fmt:message key="welcome"><fmt:param value="${fn:escapeXml(param.who)}"/></fmt:message>',
    ].join("\n");
    expect(found(await scan({ "report.jsp": page }))).toEqual([
      [4, "jsp.sql-injection", "CWE-89"],
      [6, "jsp.sql-injection", "CWE-89"],
      [11, "jsp.xss-el", "CWE-79"],
    ]);
  });
});

describe("more scriptlet sinks", () => {
  it("reports headers, cookies, session attributes, reflection, script evaluation and URLs from request data", async () => {
    const page = [
      "<%",
      '  response.setHeader("X-Name", request.getParameter("h"));',
      '  Cookie ck = new Cookie("pref", request.getParameter("pref"));',
      '  session.setAttribute("user", request.getParameter("user"));',
      '  Class.forName(request.getParameter("cls"));',
      '  javax.script.ScriptEngine engine = new javax.script.ScriptEngineManager().getEngineByName("js");',
      '  engine.eval(request.getParameter("code"));',
      '  java.io.InputStream in = new java.net.URL(request.getParameter("u")).openStream();',
      "%>",
    ].join("\n");
    expect(found(await scan({ "tools.jsp": page }))).toEqual([
      [2, "jsp.header-injection", "CWE-113"],
      [3, "jsp.header-injection", "CWE-113"],
      [4, "jsp.trust-boundary", "CWE-501"],
      [5, "jsp.unsafe-reflection", "CWE-470"],
      [7, "jsp.script-injection", "CWE-95"],
      [8, "jsp.ssrf", "CWE-918"],
    ]);
  });

  it("stays silent on fixed values and validated ones", async () => {
    const page = [
      "<%",
      '  response.setHeader("Cache-Control", "no-store");',
      '  Cookie ck = new Cookie("theme", "dark");',
      '  session.setAttribute("page", Integer.parseInt(request.getParameter("page")));',
      '  Class.forName("org.h2.Driver");',
      '  new javax.script.ScriptEngineManager().getEngineByName("js").eval("1 + 1");',
      '  java.io.InputStream in = new java.net.URL("https://example.com/feed").openStream();',
      "%>",
    ].join("\n");
    expect(found(await scan({ "tools.jsp": page }))).toEqual([]);
  });
});

it("lowers confidence for request attributes and in test paths, and reports each check once per line", async () => {
  const findings = await scan({
    "web/a.jsp": "<p>${requestScope.msg}</p>\n<p>${param.a} ${param.b}</p>\n",
    "src/test/webapp/b.jsp": "<p>${param.a}</p>\n",
  });
  expect(findings.map((f) => [f.file, f.start_line, f.confidence])).toEqual([
    ["web/a.jsp", 1, "MEDIUM"],
    ["web/a.jsp", 2, "HIGH"],
    ["src/test/webapp/b.jsp", 1, "MEDIUM"],
  ]);
  expect(findings[1]).toMatchObject({ analyzer: "jsp", severity: "HIGH", cwe_name: expect.stringContaining("Cross-site Scripting") });
});

it("runs in the normal pipeline: selected by extension, fingerprinted, merged", async () => {
  const dir = writeCheckout(root, "pipeline", {
    "src/main/webapp/index.jsp": "<html><body>\n<h1>${param.title}</h1>\n</body></html>\n",
    "src/main/webapp/WEB-INF/tags/box.tag": '<%@ tag body-content="scriptless" %>\n<div><%= request.getParameter("c") %></div>\n',
    "src/main/webapp/static/app.css": "body { color: red }\n",
  });
  const result = await runAnalyzers({ dir, timeoutMs: 60_000, maxOutputBytes: 1 << 24, analyzers: [jspAnalyzer()] });
  expect(result.analyzers.map((a) => [a.name, a.status])).toEqual([["jsp", "completed"]]);
  expect(result.findings.map((f) => [f.file, f.start_line, f.rule_id]).sort()).toEqual([
    ["src/main/webapp/WEB-INF/tags/box.tag", 2, "jsp.xss-expression"],
    ["src/main/webapp/index.jsp", 2, "jsp.xss-el"],
  ]);
  expect(result.findings.every((f) => /^[0-9a-f]{64}$/.test(f.fingerprint))).toBe(true);
});

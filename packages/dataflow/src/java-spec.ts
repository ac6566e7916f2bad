/**
 * Java sources, sinks and sanitizers for the taint analysis: the Servlet API, Spring's
 * request binding, JDBC/JPA, java.io/nio, JNDI/LDAP, javax.xml.xpath, reflection.
 */
import { JAVA_CONFIG_SINKS, JAVA_STATES } from "./config-states";
import { RESPONSE_BODY } from "./java-routes";
import { JAVA_API_SANITIZERS, JAVA_API_SINKS, JAVA_API_SOURCES } from "./java-api-sinks";
import { JAVA_CLIENT_AND_LOG_SINKS, sink } from "./java-client-sinks";
import type { LanguageSpec } from "./spec";

const REQUEST = /^(request|req|httpRequest|servletRequest|HttpServletRequest|ServletRequest)$/i;
// The response's own writer; a PrintWriter over a file or a StringWriter is not a page.
const WRITER = /getWriter\(\)|getOutputStream\(\)|^(ServletOutputStream|JspWriter)$/;
const SESSION = /session|getSession\(|^HttpSession$/i;
/** A Path made by `Paths.get(…)`/`Path.of(…)` itself (not `Paths.get(base).resolve(name)`): that call is the path sink. */
const MADE_BY_PATHS_GET = /^(java\.nio\.file\.)?(Paths\.get|Path\.of)\(([^()]|\([^()]*\))*\)$/;
/** Receivers whose `format(…)` takes the format string first (not java.time / java.text value formatters). */
const FORMATS_FIRST =
  /^((java\.lang\.)?String|(java\.text\.)?MessageFormat|(java\.util\.)?Formatter|(java\.io\.)?(PrintStream|PrintWriter|Console)|System\.(out|err)|System\.console\(\)|out|err|fmt)$/;
/** java.nio.file.Files calls whose first argument is the file (or directory) they act on. */
const NIO_FILE_CALLS = [
  "newInputStream",
  "newOutputStream",
  "newBufferedReader",
  "newBufferedWriter",
  "newByteChannel",
  "readAllBytes",
  "readAllLines",
  "readString",
  "lines",
  "write",
  "writeString",
  "delete",
  "deleteIfExists",
  "createFile",
  "createDirectory",
  "createDirectories",
  "list",
  "walk",
  "newDirectoryStream",
  "setPosixFilePermissions",
];

export const JAVA_SPEC: LanguageSpec = {
  language: "java",
  sources: [
    {
      id: "servlet-parameter",
      call: { names: ["getParameter", "getParameterValues", "getParameterMap", "getParameterNames"] },
      kind: "remote",
      label: "HTTP request parameter",
    },
    {
      id: "servlet-query",
      call: { names: ["getQueryString", "getRequestURI", "getRequestURL", "getPathInfo", "getServletPath"], receiver: REQUEST },
      kind: "remote",
      label: "HTTP request URL",
    },
    {
      id: "servlet-header",
      call: { names: ["getHeader", "getHeaders", "getHeaderNames"], receiver: REQUEST },
      kind: "remote",
      label: "HTTP request header",
    },
    { id: "servlet-cookie", call: { names: ["getCookies"] }, kind: "remote", label: "HTTP cookie" },
    { id: "servlet-body", call: { names: ["getInputStream", "getReader"], receiver: REQUEST }, kind: "remote", label: "HTTP request body" },
    { id: "stream-line", call: { names: ["readLine"] }, kind: "local", label: "line read from a stream (socket, console, file or URL)" },
    { id: "env", call: { names: ["getenv"], path: /^System\.getenv$/ }, kind: "local", label: "environment variable" },
    { id: "system-property", call: { names: ["getProperty"], path: /^System\.getProperty$/ }, kind: "local", label: "system property" },
    { id: "properties-file", call: { names: ["getProperty"], receiver: /propert/i }, kind: "local", label: "value from a properties file" },
    {
      id: "jdbc-result",
      call: { names: ["getString", "getNString", "getObject"], receiver: /result|^rs$|ResultSet/i },
      kind: "local",
      label: "database value",
    },
    ...JAVA_API_SOURCES,
  ],
  sinks: [
    sink(
      "sql",
      "CWE-89",
      "SQL injection",
      {
        names: [
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "addBatch",
          "prepareStatement",
          "prepareCall",
          "createQuery",
          "createNativeQuery",
          "nativeQuery",
        ],
      },
      {
        message: "Untrusted data is built into an SQL statement.",
        remediation:
          "Use a PreparedStatement with `?` placeholders and bind the value with setString/setInt; never concatenate input into SQL.",
        args: [0],
      },
    ),
    sink(
      "sql-template",
      "CWE-89",
      "SQL injection",
      {
        names: ["query", "queryForList", "queryForObject", "queryForMap", "queryForRowSet", "update", "batchUpdate"],
        receiver: /jdbc|template/i,
      },
      {
        message: "Untrusted data is built into an SQL statement.",
        remediation:
          'Pass values as arguments for `?` placeholders (`jdbc.query("… where name = ?", mapper, name)`); never concatenate input into SQL.',
        args: [0],
      },
    ),
    sink(
      "command",
      "CWE-78",
      "OS command injection",
      { names: ["exec"] },
      {
        message: "Untrusted data reaches an operating-system command.",
        remediation:
          "Do not build commands from input; call the program with a fixed argument array and validate each argument against an allowlist.",
        // Runtime.exec(command, envp, dir): the command and its environment; the working directory is not a command.
        args: [0, 1],
      },
    ),
    sink(
      "command-builder",
      "CWE-78",
      "OS command injection",
      { names: ["ProcessBuilder"], isNew: true },
      {
        message: "Untrusted data reaches an operating-system command.",
        remediation: "Do not build commands from input; use a fixed program and validate each argument against an allowlist.",
        args: "all",
      },
    ),
    // `pb.command(list)` replaces the command of a ProcessBuilder; `pb.directory(dir)` is not a command.
    sink(
      "command-builder",
      "CWE-78",
      "OS command injection",
      { names: ["command"], receiver: /ProcessBuilder|^(pb|processBuilder)$/ },
      {
        message: "Untrusted data reaches an operating-system command.",
        remediation: "Do not build commands from input; use a fixed program and validate each argument against an allowlist.",
        args: "all",
      },
    ),
    sink(
      "path",
      "CWE-22",
      "Path traversal",
      { names: ["File"], isNew: true },
      {
        message: "Untrusted data is used as a file path.",
        remediation:
          "Resolve the path against a fixed base directory, normalise it and check that it stays inside; or map input to an allowlist of names.",
        // new File(parent, child): both name the file.
        args: [0, 1],
        severity: "HIGH",
      },
    ),
    // The file is the first argument; the rest is a mode, an append flag or a charset.
    sink(
      "path",
      "CWE-22",
      "Path traversal",
      { names: ["FileInputStream", "FileOutputStream", "FileReader", "FileWriter", "RandomAccessFile", "PrintWriter"], isNew: true },
      {
        message: "Untrusted data is used as a file path.",
        remediation:
          "Resolve the path against a fixed base directory, normalise it and check that it stays inside; or map input to an allowlist of names.",
        args: [0],
        severity: "HIGH",
      },
    ),
    sink(
      "path-nio",
      "CWE-22",
      "Path traversal",
      { names: ["get", "of"], path: /^(Paths\.get|Path\.of)$/ },
      {
        message: "Untrusted data is used as a file path.",
        remediation: "Resolve the path against a fixed base directory, normalise it and check that it stays inside.",
        args: "all",
      },
    ),
    // java.nio.file.Files: the path it reads, writes, lists or deletes (a Path from `Paths.get`, `Path.of` or `base.resolve(name)`).
    sink(
      "path-files",
      "CWE-22",
      "Path traversal",
      { names: NIO_FILE_CALLS, path: /^Files\.\w+$/ },
      {
        message: "Untrusted data is used as a file path.",
        remediation: "Resolve the path against a fixed base directory, normalise it and check that it stays inside.",
        args: [0],
        unless: { arg: 0, text: MADE_BY_PATHS_GET },
      },
    ),
    // `Files.copy(in, target)` and `Files.move(source, target)`: the target (the source of a copy may be a stream of input).
    sink(
      "path-files",
      "CWE-22",
      "Path traversal",
      { names: ["copy", "move", "createLink", "createSymbolicLink"], path: /^Files\.(copy|move|createLink|createSymbolicLink)$/ },
      {
        message: "Untrusted data is used as a file path.",
        remediation: "Resolve the path against a fixed base directory, normalise it and check that it stays inside.",
        args: [1],
        unless: { arg: 1, text: MADE_BY_PATHS_GET },
      },
    ),
    // What a Spring `@ResponseBody`/`@RestController` handler or a JAX-RS resource method returns as HTML
    // (java-routes.ts lowers each such return as this call).
    sink(
      "xss-response-body",
      "CWE-79",
      "Cross-site scripting",
      { names: [RESPONSE_BODY], path: /^@ResponseBody$/ },
      {
        message: "Untrusted data is returned as the body of an HTML response without encoding.",
        remediation:
          "Encode for HTML (`HtmlUtils.htmlEscape`, OWASP Java Encoder `Encode.forHtml`), render through an escaping template, or declare a non-HTML " +
          "type (`produces = MediaType.APPLICATION_JSON_VALUE`, `@Produces(MediaType.APPLICATION_JSON)`).",
        args: [0],
        severity: "MEDIUM",
      },
    ),
    sink(
      "xss",
      "CWE-79",
      "Cross-site scripting",
      { names: ["println", "print", "write", "append", "format", "printf"], receiver: WRITER },
      {
        message: "Untrusted data is written into an HTML response without encoding.",
        remediation: "Encode for the HTML context (OWASP Java Encoder `Encode.forHtml`, or a templating engine that escapes by default).",
        args: "all",
      },
    ),
    sink(
      "xss-error",
      "CWE-81",
      "Cross-site scripting in an error page",
      { names: ["sendError"] },
      {
        message: "Untrusted data is written into an error page.",
        remediation: "Do not echo input in error messages; or encode it for HTML.",
        args: [1],
      },
    ),
    sink(
      "ldap",
      "CWE-90",
      "LDAP injection",
      { names: ["search"], receiver: /ctx|context|dir|ldap/i },
      {
        message: "Untrusted data is built into an LDAP query.",
        remediation:
          'Escape the value for LDAP filters (RFC 4515) or use a parameterised filter (`search(base, "(cn={0})", new Object[]{value}, …)`).',
        args: [0, 1],
      },
    ),
    sink(
      "xpath",
      "CWE-643",
      "XPath injection",
      { names: ["evaluate", "compile"], receiver: /xpath/i },
      {
        message: "Untrusted data is built into an XPath expression.",
        remediation: "Use XPath variables (XPathVariableResolver) instead of concatenating input, or validate it against an allowlist.",
        args: [0],
      },
    ),
    sink(
      "header",
      "CWE-113",
      "HTTP response splitting",
      { names: ["addHeader", "setHeader"] },
      {
        message: "Untrusted data is written into an HTTP response header.",
        remediation: "Reject or encode CR and LF in header values (URLEncoder.encode for values that are URLs or parameters).",
        args: [0, 1],
        severity: "MEDIUM",
      },
    ),
    sink(
      "cookie",
      "CWE-113",
      "HTTP response splitting",
      { names: ["Cookie"], isNew: true },
      {
        message: "Untrusted data is written into a cookie.",
        remediation: "Encode the cookie value (URLEncoder.encode) and validate it.",
        args: [1],
        severity: "MEDIUM",
      },
    ),
    sink(
      "redirect",
      "CWE-601",
      "Open redirect",
      { names: ["sendRedirect"] },
      {
        message: "Untrusted data decides where the user is redirected.",
        remediation: "Redirect only to relative paths or to an allowlist of destinations.",
        args: [0],
        severity: "MEDIUM",
      },
    ),
    sink(
      "config",
      "CWE-15",
      "External control of a configuration setting",
      { names: ["setCatalog", "setSchema"] },
      {
        message: "Untrusted data changes a database connection setting.",
        remediation: "Choose the catalog from a fixed allowlist.",
        args: [0],
        severity: "MEDIUM",
      },
    ),
    sink(
      "reflection",
      "CWE-470",
      "Unsafe reflection",
      { names: ["forName", "loadClass"] },
      {
        message: "Untrusted data selects a class to load.",
        remediation: "Map input to an allowlist of classes instead of loading a class by name.",
        args: [0],
      },
    ),
    // `format` takes the format string first on String, MessageFormat, Formatter and the print streams; on a
    // DateTimeFormatter, DateFormat or NumberFormat it takes the value to format (the pattern is fixed earlier).
    sink(
      "format",
      "CWE-134",
      "Externally controlled format string",
      { names: ["format"], receiver: FORMATS_FIRST },
      {
        message: "Untrusted data is used as a format string.",
        remediation: 'Use a constant format string and pass the data as an argument (`String.format("%s", data)`).',
        args: [0],
        severity: "MEDIUM",
      },
    ),
    sink(
      "format",
      "CWE-134",
      "Externally controlled format string",
      { names: ["printf"] },
      {
        message: "Untrusted data is used as a format string.",
        remediation: 'Use a constant format string and pass the data as an argument (`String.format("%s", data)`).',
        args: [0],
        severity: "MEDIUM",
      },
    ),
    sink(
      "trust-boundary",
      "CWE-501",
      "Trust boundary violation",
      { names: ["setAttribute", "putValue"], receiver: SESSION },
      {
        message: "Untrusted data is stored in the session next to trusted data.",
        remediation: "Validate the data before storing it in the session, or keep untrusted data out of it.",
        // The attribute's name as well as its value: input choosing the name can overwrite a trusted attribute.
        args: [0, 1],
        severity: "MEDIUM",
      },
    ),
    sink(
      "ssrf",
      "CWE-918",
      "Server-side request forgery",
      { names: ["URL", "URI"], isNew: true },
      {
        message: "Untrusted data decides which URL the server requests.",
        remediation: "Allow only known hosts and schemes; resolve and reject internal addresses.",
        // new URL(spec), new URL(context, spec) (an absolute spec replaces the host), new URL(protocol, host, …).
        args: [0, 1],
        severity: "MEDIUM",
      },
    ),
    // Java serialization runs gadget chains from the bytes it reads: the stream is the input.
    sink(
      "deserialization",
      "CWE-502",
      "Deserialization of untrusted data",
      { names: ["ObjectInputStream", "XMLDecoder"], isNew: true },
      {
        message: "Untrusted data is deserialized with Java serialization, which can run code.",
        remediation: "Exchange data as JSON or protobuf with explicit types, or restrict classes with an ObjectInputFilter allowlist.",
        args: [0],
      },
    ),
    sink(
      "deserialization",
      "CWE-502",
      "Deserialization of untrusted data",
      { names: ["deserialize"], path: /^SerializationUtils\.deserialize$/ },
      {
        message: "Untrusted data is deserialized with Java serialization, which can run code.",
        remediation: "Exchange data as JSON or protobuf with explicit types, or restrict classes with an ObjectInputFilter allowlist.",
        args: [0],
      },
    ),
    ...JAVA_CLIENT_AND_LOG_SINKS,
    ...JAVA_API_SINKS,
    ...JAVA_CONFIG_SINKS,
  ],
  states: JAVA_STATES,
  sanitizers: [
    {
      id: "number",
      call: {
        names: ["parseInt", "parseLong", "parseDouble", "parseFloat", "parseShort", "parseByte", "parseBoolean", "valueOf"],
        path: /^(Integer|Long|Double|Float|Short|Byte|Boolean)\./,
      },
      cwes: "*",
    },
    {
      id: "url-encode",
      call: { names: ["encode"], path: /^URLEncoder\.encode$/ },
      cwes: ["CWE-113", "CWE-79", "CWE-80", "CWE-81", "CWE-83", "CWE-601", "CWE-78", "CWE-89", "CWE-90", "CWE-643"],
    },
    {
      id: "html-encode",
      call: {
        names: [
          "escapeHtml",
          "escapeHtml4",
          "escapeXml",
          "escapeXml10",
          "escapeXml11",
          "forHtml",
          "forHtmlContent",
          "forHtmlAttribute",
          "encodeForHTML",
          "encodeForHTMLAttribute",
          "htmlEscape",
        ],
      },
      cwes: ["CWE-79", "CWE-80", "CWE-81", "CWE-83", "CWE-643"],
    },
    { id: "ldap-encode", call: { names: ["encodeForLDAP", "encodeForDN", "escapeLDAPSearchFilter"] }, cwes: ["CWE-90"] },
    { id: "sql-encode", call: { names: ["encodeForSQL"] }, cwes: ["CWE-89"] },
    { id: "xpath-encode", call: { names: ["encodeForXPath"] }, cwes: ["CWE-643"] },
    { id: "filename", call: { names: ["getName", "getBaseName"], receiver: /^(File|Path)$|file/i }, cwes: ["CWE-22"] },
    ...JAVA_API_SANITIZERS,
  ],
  mutators: [
    "add",
    "addAll",
    "addElement",
    "addFirst",
    "addLast",
    "push",
    "offer",
    "put",
    "putAll",
    "set",
    "setElementAt",
    "insertElementAt",
    "append",
    "insert",
    "write",
    "writeObject",
    "writeUTF",
  ],
  confidence: { remote: "HIGH", local: "MEDIUM" },
};

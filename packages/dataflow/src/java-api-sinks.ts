/**
 * Java sinks by API breadth (issue 21): the variants of each family that application code
 * written outside the development fixtures uses: JNDI lookups, RequestDispatcher forwards,
 * Spring resources and commons-io, Hibernate SQL fragments, mail headers, fluent HTTP clients
 * (java.net.http, OkHttp, WebClient, Jsoup) and response-header builders. Receivers match the
 * receiver's text or its declared type, so fields, `var` locals and fully qualified names work.
 */
import { sink } from "./java-client-sinks";
import type { SanitizerRule, SinkRule, SourceRule } from "./spec";

const PATH = {
  message: "Untrusted data is used as a file path.",
  remediation:
    "Resolve the path against a fixed base directory, normalise it and check that it stays inside; or map input to an allowlist of names.",
};
const SSRF = {
  message: "Untrusted data decides which URL the server requests.",
  remediation: "Allow only known hosts and schemes; resolve and reject internal addresses.",
  severity: "MEDIUM" as const,
};
const SQL = {
  message: "Untrusted data is built into an SQL statement.",
  remediation: "Bind values as query parameters (`setParameter`, `?` placeholders); never concatenate input into SQL.",
};
const HEADER = {
  message: "Untrusted data is written into an HTTP response header.",
  remediation: "Reject or encode CR and LF in header values (URLEncoder.encode for values that are URLs or parameters).",
  severity: "MEDIUM" as const,
};

/** A File made in the argument itself: `new File(…)` and `FileUtils.getFile(…)` are path sinks of their own. */
const MADE_AS_FILE = /^(new\s+(java\.io\.)?File\(|(org\.apache\.commons\.io\.)?FileUtils\.getFile\()/;
/** A URI or URL made in the argument itself (`new URI(…)`, `URI.create(…)`, `new URL(…)`): reported there. */
const MADE_AS_URL = /^(new\s+(java\.net\.)?(URI|URL)\(|(java\.net\.)?URI\.create\()/;
/** commons-io FileUtils calls whose first argument is the file they read, write, copy or delete. */
const FILE_UTILS = [
  "readFileToString",
  "readFileToByteArray",
  "readLines",
  "lineIterator",
  "openInputStream",
  "openOutputStream",
  "writeStringToFile",
  "writeByteArrayToFile",
  "writeLines",
  "write",
  "touch",
  "forceDelete",
  "deleteQuietly",
  "deleteDirectory",
  "cleanDirectory",
  "copyFile",
  "copyDirectory",
  "copyInputStreamToFile",
  "copyToFile",
  "copyURLToFile",
  "moveFile",
  "moveDirectory",
  "listFiles",
  "iterateFiles",
];

export const JAVA_API_SINKS: readonly SinkRule[] = [
  // JNDI: a looked-up name from input can load a remote object factory (ldap:, rmi:).
  sink(
    "jndi",
    "CWE-74",
    "JNDI injection",
    {
      names: ["lookup", "lookupLink"],
      receiver: /^(javax\.naming\.)?(Initial)?(Dir|Ldap)?Context$|^(ctx|context|initialContext|jndi\w*|namingContext)$/,
    },
    {
      message: "Untrusted data is looked up as a JNDI name, which can load a remote object (ldap:, rmi:).",
      remediation: "Look up only fixed `java:comp/env/…` names; never pass input to Context.lookup.",
      args: [0],
    },
  ),
  // RequestDispatcher file disclosure: input chooses the resource a request is forwarded or included to.
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["getRequestDispatcher"] },
    {
      message: "Untrusted data chooses the resource the request is forwarded to, which can disclose files such as WEB-INF/web.xml.",
      remediation: "Forward only to fixed views, or map input to an allowlist of view names.",
      args: [0],
      severity: "MEDIUM",
    },
  ),
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: FILE_UTILS, path: /^(org\.apache\.commons\.io\.)?FileUtils\.\w+$/ },
    { ...PATH, args: [0], unless: { arg: 0, text: MADE_AS_FILE } },
  ),
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["getFile"], path: /^(org\.apache\.commons\.io\.)?FileUtils\.getFile$/ },
    { ...PATH, args: "all" },
  ),
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["FileSystemResource", "ClassPathResource", "PathResource", "ServletContextResource"], isNew: true },
    { ...PATH, args: [0] },
  ),
  // getResource/getResourceAsStream on a Class, ClassLoader or ServletContext: input picks the packaged file.
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["getResourceAsStream", "getResource", "getRealPath"] },
    { ...PATH, args: [0], severity: "MEDIUM" },
  ),
  sink("path", "CWE-22", "Path traversal", { names: ["getPath"], receiver: /FileSystem/ }, { ...PATH, args: "all" }),
  // Spring ResourceUtils.getFile("classpath:…" or a path).
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["getFile", "getURL"], path: /^(org\.springframework\.util\.)?ResourceUtils\.(getFile|getURL)$/ },
    { ...PATH, args: [0] },
  ),
  // Hibernate: SQL fragments and native queries; JDO queries.
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    {
      names: [
        "sqlRestriction",
        "createSQLQuery",
        "createSqlQuery",
        "createNativeMutationQuery",
        "createSelectionQuery",
        "createMutationQuery",
      ],
    },
    { ...SQL, args: [0] },
  ),
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    { names: ["newQuery"], receiver: /PersistenceManager|^(pm|persistenceManager)$/ },
    { ...SQL, args: "all" },
  ),
  // Spring JdbcClient / R2DBC DatabaseClient `.sql(text)`; jOOQ plain-SQL API; Android SQLite.
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    { names: ["sql"], receiver: /JdbcClient|DatabaseClient|^(jdbcClient|databaseClient)$/ },
    { ...SQL, args: [0] },
  ),
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    {
      names: ["fetch", "fetchOne", "fetchAny", "fetchLazy", "fetchValue", "fetchSingle", "execute", "resultQuery", "query"],
      receiver: /DSLContext|^(dsl|jooq)$/,
    },
    { ...SQL, args: [0] },
  ),
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    { names: ["field", "condition", "table", "sql", "query"], path: /^(org\.jooq\.impl\.)?DSL\.\w+$/ },
    { ...SQL, args: [0] },
  ),
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    { names: ["rawQuery", "execSQL", "compileStatement"], receiver: /SQLiteDatabase|^(db|database|sqlite|sqLiteDatabase)$/i },
    { ...SQL, args: [0] },
  ),
  // Mail headers: a line break in the subject or a header adds headers or recipients (SMTP header injection).
  sink(
    "smtp-header",
    "CWE-93",
    "SMTP header injection",
    {
      names: ["setSubject", "addHeader", "setHeader", "setDescription", "setDisposition", "setFileName"],
      receiver: /Message|^(msg|message|mail|email|mime\w*)$/i,
    },
    {
      message: "Untrusted data is written into an e-mail header, where a line break adds headers or recipients.",
      remediation: "Reject CR and LF in values written to mail headers, or encode them (MimeUtility.encodeText).",
      args: "all",
      severity: "MEDIUM",
    },
  ),
  // Fluent HTTP clients: java.net.http, OkHttp, Spring WebClient/RestClient, Jsoup, Apache fluent Request.
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["newBuilder"], path: /^HttpRequest\.newBuilder$/ },
    { ...SSRF, args: [0] },
  ),
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["uri", "url"], receiver: /Builder|[Ww]ebClient|[Rr]estClient|\.(get|post|put|patch|delete|head|method)\(\)?/ },
    { ...SSRF, args: [0], unless: { arg: 0, text: MADE_AS_URL } },
  ),
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    {
      names: ["connect", "create", "Get", "Post", "Put", "Delete", "Head", "Patch"],
      path: /^(Jsoup\.connect|WebClient\.create|Request\.(Get|Post|Put|Delete|Head|Patch))$/,
    },
    { ...SSRF, args: [0] },
  ),
  sink("ssrf-client", "CWE-918", "Server-side request forgery", { names: ["UrlResource"], isNew: true }, { ...SSRF, args: [0] }),
  // Base URLs of Spring clients: RestClient.create(url), WebClient.builder().baseUrl(url), RestTemplateBuilder.rootUri(url).
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["create"], path: /^(org\.springframework\.web\.client\.)?RestClient\.create$/ },
    { ...SSRF, args: [0] },
  ),
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["baseUrl", "rootUri"], receiver: /Builder|builder\(\)/ },
    { ...SSRF, args: [0] },
  ),
  // ResponseEntity / JAX-RS Response builders: `.header(name, value)`.
  sink(
    "header",
    "CWE-113",
    "HTTP response splitting",
    { names: ["header"], receiver: /ResponseEntity|^Response\b|\b(ok|status|created|accepted|noContent|seeOther|temporaryRedirect)\(/ },
    { ...HEADER, args: [0, 1] },
  ),
  // Spring MVC / Struts views named by input disclose files under WEB-INF (a "redirect:" view is the redirect rule's).
  sink(
    "path",
    "CWE-22",
    "Path traversal",
    { names: ["ModelAndView", "ActionForward"], isNew: true },
    {
      message: "Untrusted data chooses the view the request is forwarded to, which can disclose files such as WEB-INF/web.xml.",
      remediation: "Forward only to fixed views, or map input to an allowlist of view names.",
      args: [0],
      severity: "MEDIUM",
      unless: { arg: 0, text: /^"(redirect|forward):/ },
    },
  ),
  // Spring LDAP and JNDI directory searches besides DirContext.search: the base and the filter.
  sink(
    "ldap",
    "CWE-90",
    "LDAP injection",
    {
      names: ["searchForObject", "searchForContext", "authenticate", "find", "findOne", "filter"],
      receiver: /ldap|LdapQuery|DirContext|^(ctx|dirContext)$/i,
    },
    {
      message: "Untrusted data is built into an LDAP query.",
      remediation:
        "Escape the value for LDAP filters (LdapEncoder.filterEncode) or build the filter with LdapQueryBuilder's `where(…).is(value)`.",
      args: [0, 1],
    },
  ),
  // UnboundID LDAP SDK: Filter.create(text) parses a filter string.
  sink(
    "ldap",
    "CWE-90",
    "LDAP injection",
    { names: ["create"], path: /^(com\.unboundid\.ldap\.sdk\.)?Filter\.create$/ },
    {
      message: "Untrusted data is built into an LDAP query.",
      remediation: "Build the filter with Filter.createEqualityFilter(attribute, value), which escapes the value.",
      args: [0],
    },
  ),
  // dom4j / Jaxen XPath on a document or node.
  sink(
    "xpath",
    "CWE-643",
    "XPath injection",
    {
      names: ["selectNodes", "selectSingleNode", "createXPath", "valueOf", "numberValueOf"],
      receiver: /^(org\.dom4j\.)?(Document|Node|Element|Branch)$|^(doc|document|root|node|element)$/i,
    },
    {
      message: "Untrusted data is built into an XPath expression.",
      remediation: "Use XPath variables instead of concatenating input, or validate it against an allowlist.",
      args: [0],
    },
  ),
  // Apache commons-exec: new CommandLine(executable) names the program.
  sink(
    "command",
    "CWE-78",
    "OS command injection",
    { names: ["CommandLine"], isNew: true },
    {
      message: "Untrusted data reaches an operating-system command.",
      remediation: "Do not build commands from input; use a fixed program and add each validated argument with addArgument.",
      args: [0],
    },
  ),
  // Apache commons-exec: CommandLine.parse(line) splits a whole command line.
  sink(
    "command",
    "CWE-78",
    "OS command injection",
    { names: ["parse"], path: /^(org\.apache\.commons\.exec\.)?CommandLine\.parse$/ },
    {
      message: "Untrusted data reaches an operating-system command.",
      remediation: "Do not build commands from input; use a fixed program and add each validated argument with addArgument.",
      args: [0],
    },
  ),
  // XSLT from input: a stylesheet runs extension functions and reads files (MALICIOUS_XSLT).
  sink(
    "xslt",
    "CWE-91",
    "XSLT injection",
    { names: ["newTransformer", "newTemplates"], receiver: /TransformerFactory|^(factory|tf|transformerFactory|xslFactory)$/ },
    {
      message: "Untrusted data supplies the XSLT stylesheet, which can call Java extension functions and read files.",
      remediation:
        "Load stylesheets only from the application; enable FEATURE_SECURE_PROCESSING and block external access (ACCESS_EXTERNAL_DTD/STYLESHEET).",
      args: [0],
    },
  ),
  // JAX-RS redirects: Response.seeOther / temporaryRedirect / location.
  sink(
    "redirect",
    "CWE-601",
    "Open redirect",
    // JAX-RS Response and Spring ResponseEntity builders, and HttpHeaders.setLocation.
    {
      names: ["seeOther", "temporaryRedirect", "location", "setLocation"],
      receiver:
        /^((javax|jakarta)\.ws\.rs\.core\.)?Response\b|ResponseBuilder|ResponseEntity|BodyBuilder|HeadersBuilder|HttpHeaders|^(headers|httpHeaders|responseHeaders)$/,
    },
    {
      message: "Untrusted data decides where the user is redirected.",
      remediation: "Redirect only to relative paths or to an allowlist of destinations.",
      args: [0],
      severity: "MEDIUM",
    },
  ),
];

/** Spring WebFlux inputs: the functional ServerRequest and the reactive ServerHttpRequest. */
export const JAVA_API_SOURCES: readonly SourceRule[] = [
  {
    id: "webflux-request",
    call: {
      names: [
        "queryParam",
        "queryParams",
        "pathVariable",
        "pathVariables",
        "formData",
        "multipartData",
        "bodyToMono",
        "bodyToFlux",
        "getQueryParams",
        "getCookies",
        "cookies",
      ],
      receiver: /^(org\.springframework\.\S+\.)?(ServerRequest|ServerHttpRequest)$|^(serverRequest|serverHttpRequest)$/,
    },
    kind: "remote",
    label: "Spring WebFlux request input",
  },
  // Zip slip: an entry's name comes from the archive, so joined into an extraction path it can climb out with `../`.
  {
    id: "archive-entry",
    call: {
      names: ["getName"],
      receiver: /^(java\.util\.(zip|jar)\.)?(ZipEntry|JarEntry)$|ArchiveEntry$|^(entry|zipEntry|jarEntry|archiveEntry|ze)$/,
    },
    kind: "remote",
    label: "archive entry name (it comes from the archive)",
  },
];

export const JAVA_API_SANITIZERS: readonly SanitizerRule[] = [
  // Conversions to a type that cannot carry syntax: a UUID, a date or time, a big number.
  {
    id: "typed-value",
    call: {
      names: ["fromString", "parse"],
      path: /^(java\.util\.)?UUID\.fromString$|^(java\.time\.)?(LocalDate|LocalDateTime|LocalTime|Instant|ZonedDateTime|OffsetDateTime|Duration|Period|Year|YearMonth)\.parse$/,
    },
    cwes: "*",
  },
  { id: "typed-value", call: { names: ["BigDecimal", "BigInteger"], isNew: true }, cwes: "*" },
  // The last element of a path (`Paths.get(name).getFileName()`) cannot climb out of a directory.
  { id: "filename", call: { names: ["getFileName"], receiver: /Path|path|Paths\.get|Path\.of/ }, cwes: ["CWE-22"] },
  // HTML, JavaScript, URL-component, CSS and XML encoders (OWASP Encoder, ESAPI, commons-text, Spring) leave no
  // markup-breaking characters.
  {
    id: "html-encode",
    call: {
      names: [
        "htmlEscapeDecimal",
        "htmlEscapeHex",
        "escapeHtml3",
        "forJavaScript",
        "forJavaScriptBlock",
        "forJavaScriptAttribute",
        "forJavaScriptSource",
        "forUriComponent",
        "forXmlContent",
        "forXmlAttribute",
        "forCDATA",
        "forCssString",
        "encodeForJavaScript",
        "encodeForURL",
        "encodeForCSS",
        "encodeForXML",
        "encodeForXMLAttribute",
        "escapeEcmaScript",
        "escapeJavaScript",
        "javaScriptEscape",
      ],
    },
    cwes: ["CWE-79", "CWE-80", "CWE-81", "CWE-83", "CWE-643"],
  },
  // Jsoup.clean and OWASP java-html-sanitizer policies reduce markup to an allowlist.
  {
    id: "html-sanitize",
    call: { names: ["clean"], path: /^(org\.jsoup\.)?Jsoup\.clean$/ },
    cwes: ["CWE-79", "CWE-80", "CWE-81", "CWE-83"],
  },
  {
    id: "html-sanitize",
    call: { names: ["sanitize"], receiver: /PolicyFactory|policy|sanitizer/i },
    cwes: ["CWE-79", "CWE-80", "CWE-81", "CWE-83"],
  },
];

/**
 * Python sinks for the taint analysis (python-spec.ts): SQL (DB-API, SQLAlchemy, the Django
 * ORM), commands (os, subprocess), file paths, deserialization (pickle, yaml), outbound
 * requests (requests, urllib, httpx), redirects, HTML responses, templates (Jinja2), LDAP
 * and XPath.
 */
import { PYTHON_CONFIG_SINKS, PYYAML_UNSAFE } from "./config-states";
import { sinkMaker, type SinkExtra, type SinkRule } from "./spec";

/** Matched against the text of the call that made the receiver; bare `Session()` is too often SQLAlchemy's. */
const HTTP_CLIENT = /^(httpx\.(Async)?Client|requests\.[Ss]ession|(aiohttp\.)?ClientSession|urllib3\.PoolManager)\(/;

/** A content type that may be HTML: anything but a constant media type other than HTML, XML or SVG (`text/plain`, `text/csv; charset=utf-8`). */
const MAYBE_HTML_MIME = /^(?![a-z]+\/[\w.+-]+\s*(;.*)?$)|html|xml|svg/i;

/** A string built on a path of this site (`"/profile/" + name`): not `//host` or `/\\host`, which browsers read as another host. */
const LOCAL_PATH = /^lead:\/[^/\\]/;
/** A string built on a fixed scheme and host (`f"https://api.example.com/users/{uid}"`): input only picks the path or query. */
const FIXED_ORIGIN = /^lead:https?:\/\/[^/?#%{}@\\]+[/?#]/i;

const sink = sinkMaker("py-taint-");

const SQL: SinkExtra = {
  message: "Untrusted data is built into an SQL statement.",
  remediation:
    'Pass values as query parameters (`cursor.execute("… WHERE id = %s", (value,))`, SQLAlchemy `text("… :id")` with bound parameters, Django ORM filters); ' +
    "never format input into SQL.",
};
const COMMAND: SinkExtra = {
  message: "Untrusted data reaches an operating-system command.",
  remediation:
    "Run the program without a shell (`subprocess.run([prog, arg], shell=False)`), validate arguments against an allowlist, and use `shlex.quote` if a " +
    "shell is unavoidable.",
  severity: "CRITICAL",
};
const PATH: SinkExtra = {
  message: "Untrusted data is used as a file path.",
  remediation:
    "Reduce the name with `werkzeug.utils.secure_filename` or `os.path.basename`, or resolve it under a fixed base directory and check that the result " +
    "stays inside.",
};
const DESERIALIZE: SinkExtra = {
  message: "Untrusted data is deserialized with a format that can run code.",
  remediation: "Use a data-only format (`json`), `yaml.safe_load`, or sign and verify the payload before unpickling.",
};
const SSRF: SinkExtra = {
  message: "Untrusted data decides which URL the server requests.",
  remediation: "Allow only known hosts and schemes; resolve the host and reject internal and link-local addresses.",
};
const REDIRECT: SinkExtra = {
  message: "Untrusted data decides where the user is redirected.",
  remediation: "Redirect only to relative paths or to an allowlist of destinations (Django `url_has_allowed_host_and_scheme`).",
  severity: "MEDIUM",
};
const XSS: SinkExtra = {
  message: "Untrusted data is written into an HTML response without encoding.",
  remediation:
    "Render through a template with autoescaping, or escape with `markupsafe.escape`/`html.escape`; never mark input as safe markup.",
  severity: "MEDIUM",
};
const HEADER: SinkExtra = {
  message: "Untrusted data is written into an HTTP response header.",
  remediation: "Reject or strip CR and LF from header values, and allowlist the headers input may set.",
  severity: "MEDIUM",
};
const TEMPLATE: SinkExtra = {
  message: "Untrusted data is compiled as a template, which can run code on the server.",
  remediation: "Keep templates constant and pass input as context variables (`render_template_string(TEMPLATE, name=value)`).",
};

export const PYTHON_SINKS: SinkRule[] = [
  sink(
    "sql",
    "CWE-89",
    "SQL injection",
    { names: ["execute", "executemany", "executescript", "exec_driver_sql"] },
    { ...SQL, args: [0, "sql", "query", "operation", "statement", "sql_script"] },
  ),
  sink(
    "sql-sqlalchemy-text",
    "CWE-89",
    "SQL injection",
    { names: ["text"], path: /^sqlalchemy(\.\w+)*\.text$/ },
    { ...SQL, args: [0, "text"] },
  ),
  sink("sql-django-raw", "CWE-89", "SQL injection", { names: ["raw"], receiver: /(^|\.)objects$/ }, { ...SQL, args: [0, "raw_query"] }),
  sink(
    "sql-django-rawsql",
    "CWE-89",
    "SQL injection",
    { names: ["RawSQL"], path: /^(django\.db\.models(\.expressions)?\.)?RawSQL$/ },
    { ...SQL, args: [0, "sql"] },
  ),
  // QuerySet.extra(select, where, params, tables, order_by): every argument but `params` is SQL text.
  sink(
    "sql-django-extra",
    "CWE-89",
    "SQL injection",
    { names: ["extra"] },
    { ...SQL, args: [0, 1, 3, 4, "select", "where", "tables", "order_by"] },
  ),
  sink(
    "sql-pandas",
    "CWE-89",
    "SQL injection",
    { names: ["read_sql", "read_sql_query"], path: /^pandas\.read_sql(_query)?$/ },
    { ...SQL, args: [0, "sql"] },
  ),
  sink(
    "os-command",
    "CWE-78",
    "OS command injection",
    { names: ["system", "popen", "popen2", "popen3", "popen4"], path: /^(os|posix|nt)\.(system|popen[234]?)$/ },
    { ...COMMAND, args: [0, "command", "cmd"] },
  ),
  sink(
    "os-exec",
    "CWE-78",
    "OS command injection",
    {
      names: [
        "execl",
        "execle",
        "execlp",
        "execlpe",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "spawnl",
        "spawnle",
        "spawnlp",
        "spawnlpe",
        "spawnv",
        "spawnve",
        "spawnvp",
        "spawnvpe",
      ],
      path: /^os\.(exec|spawn)[lv]p?e?$/,
    },
    { ...COMMAND, args: "all" },
  ),
  // Without a shell the program and its arguments stay separate: a shell is what makes it injection.
  sink(
    "subprocess-shell",
    "CWE-78",
    "OS command injection",
    { names: ["run", "call", "check_call", "check_output", "Popen"], path: /^subprocess\.(run|call|check_call|check_output|Popen)$/ },
    { ...COMMAND, args: [0, "args"], requireKwarg: { name: "shell", truthy: true } },
  ),
  sink(
    "subprocess-getoutput",
    "CWE-78",
    "OS command injection",
    { names: ["getoutput", "getstatusoutput"], path: /^(subprocess|commands)\.(getoutput|getstatusoutput)$/ },
    { ...COMMAND, args: [0, "cmd"] },
  ),
  sink(
    "asyncio-shell",
    "CWE-78",
    "OS command injection",
    { names: ["create_subprocess_shell"], path: /^asyncio\.create_subprocess_shell$/ },
    { ...COMMAND, args: [0, "cmd"] },
  ),
  sink("remote-command", "CWE-78", "OS command injection", { names: ["exec_command"] }, { ...COMMAND, args: [0, "command"] }),
  sink(
    "code",
    "CWE-95",
    "Code injection",
    { names: ["eval", "exec", "compile"], path: /^(builtins\.)?(eval|exec|compile)$/ },
    {
      message: "Untrusted data is evaluated as Python code.",
      remediation: "Do not evaluate input; parse data with `json` or `ast.literal_eval`, or dispatch on an allowlist.",
      severity: "CRITICAL",
      args: [0, "source"],
    },
  ),
  sink(
    "path-open",
    "CWE-22",
    "Path traversal",
    { names: ["open"], path: /^((builtins|io|codecs|os)\.)?open$/ },
    { ...PATH, args: [0, "file", "filename", "path"] },
  ),
  sink(
    "path-os",
    "CWE-22",
    "Path traversal",
    {
      names: [
        "remove",
        "unlink",
        "rmdir",
        "removedirs",
        "rename",
        "renames",
        "replace",
        "mkdir",
        "makedirs",
        "listdir",
        "scandir",
        "chmod",
        "chown",
        "truncate",
      ],
      path: /^os\.\w+$/,
    },
    { ...PATH, args: [0, 1, "path", "src", "dst", "name"] },
  ),
  sink(
    "path-shutil",
    "CWE-22",
    "Path traversal",
    { names: ["copy", "copy2", "copyfile", "copytree", "move", "rmtree", "chown"], path: /^shutil\.\w+$/ },
    { ...PATH, args: [0, 1, "src", "dst", "path"] },
  ),
  sink(
    "path-send-file",
    "CWE-22",
    "Path traversal",
    { names: ["send_file"], path: /^(flask\.)?send_file$/ },
    { ...PATH, args: [0, "path_or_file", "filename_or_fp"] },
  ),
  // send_from_directory joins its filename safely (werkzeug safe_join); the directory is not checked.
  sink(
    "path-send-from-directory",
    "CWE-22",
    "Path traversal",
    { names: ["send_from_directory"], path: /^(flask\.)?send_from_directory$/ },
    { ...PATH, args: [0, "directory"] },
  ),
  sink(
    "deserialization",
    "CWE-502",
    "Deserialization of untrusted data",
    { names: ["loads", "load", "Unpickler"], path: /^(pickle|cPickle|_pickle|dill|cloudpickle|marshal|jsonpickle)\.(loads?|Unpickler)$/ },
    { ...DESERIALIZE, args: [0, "data", "file", "string"] },
  ),
  sink(
    "deserialization-yaml",
    "CWE-502",
    "Deserialization of untrusted data",
    { names: ["load", "unsafe_load", "load_all", "unsafe_load_all"], path: /^yaml\.(load|unsafe_load|load_all|unsafe_load_all)$/ },
    // `yaml.load(x, Loader=yaml.SafeLoader)` is safe: only a loader that builds objects (or none, the old default) is a sink.
    { ...DESERIALIZE, args: [0, "stream"], when: PYYAML_UNSAFE },
  ),
  sink(
    "deserialization-other",
    "CWE-502",
    "Deserialization of untrusted data",
    { names: ["open", "decode", "read_pickle"], path: /^(shelve\.open|jsonpickle\.decode|pandas\.read_pickle)$/ },
    { ...DESERIALIZE, args: [0, "filename", "string", "filepath_or_buffer"] },
  ),
  sink(
    "ssrf",
    "CWE-918",
    "Server-side request forgery",
    {
      names: ["get", "post", "put", "delete", "patch", "head", "options"],
      path: /^(requests|httpx)\.(get|post|put|delete|patch|head|options)$/,
    },
    { ...SSRF, args: [0, "url"], unless: { arg: 0, kw: "url", text: FIXED_ORIGIN } },
  ),
  sink(
    "ssrf-request",
    "CWE-918",
    "Server-side request forgery",
    { names: ["request", "stream"], path: /^(requests|httpx)\.(request|stream)$/ },
    { ...SSRF, args: [1, "url"], unless: { arg: 1, kw: "url", text: FIXED_ORIGIN } },
  ),
  // Client objects, by the call that made them (`client = httpx.AsyncClient()`; `requests.Session()`).
  sink(
    "ssrf-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["get", "post", "put", "delete", "patch", "head", "options"], receiver: HTTP_CLIENT },
    { ...SSRF, args: [0, "url"], unless: { arg: 0, kw: "url", text: FIXED_ORIGIN } },
  ),
  sink(
    "ssrf-client-request",
    "CWE-918",
    "Server-side request forgery",
    { names: ["request", "stream", "urlopen"], receiver: HTTP_CLIENT },
    { ...SSRF, args: [1, "url"], unless: { arg: 1, kw: "url", text: FIXED_ORIGIN } },
  ),
  sink(
    "ssrf-urllib",
    "CWE-918",
    "Server-side request forgery",
    { names: ["urlopen", "Request", "urlretrieve"], path: /^(urllib\.request|urllib2|urllib)\.(urlopen|Request|urlretrieve)$/ },
    { ...SSRF, args: [0, "url"], unless: { arg: 0, kw: "url", text: FIXED_ORIGIN } },
  ),
  sink(
    "ssrf-http-client",
    "CWE-918",
    "Server-side request forgery",
    { names: ["HTTPConnection", "HTTPSConnection"], path: /^(http\.client|httplib)\.HTTPS?Connection$/ },
    { ...SSRF, args: [0, "host"] },
  ),
  sink(
    "redirect",
    "CWE-601",
    "Open redirect",
    { names: ["redirect"], path: /^((flask|werkzeug(\.utils)?|django\.shortcuts)\.)?redirect$/ },
    { ...REDIRECT, args: [0, "location", "to"], unless: { arg: 0, kw: "location", text: LOCAL_PATH } },
  ),
  sink(
    "redirect-response",
    "CWE-601",
    "Open redirect",
    {
      names: ["HttpResponseRedirect", "HttpResponsePermanentRedirect", "RedirectResponse"],
      path: /^((django\.http(\.response)?|starlette\.responses|fastapi\.responses|fastapi)\.)?(HttpResponse(Permanent)?Redirect|RedirectResponse)$/,
    },
    { ...REDIRECT, args: [0, "redirect_to", "url"], unless: { arg: 0, kw: "url", text: LOCAL_PATH } },
  ),
  sink(
    "xss",
    "CWE-79",
    "Cross-site scripting",
    {
      names: ["make_response", "HttpResponse", "HTMLResponse", "Markup", "mark_safe"],
      path: new RegExp(
        String.raw`^((flask|django\.http(\.response)?|starlette\.responses|fastapi\.responses|markupsafe|jinja2|django\.utils\.safestring)\.)?` +
          String.raw`(make_response|HttpResponse|HTMLResponse|Markup|mark_safe)$`,
      ),
    },
    // `HttpResponse(data, content_type="text/plain")` is not parsed as HTML; a rendered template was escaped (autoescape),
    // or its `render` call is the sink itself (`py-taint-xss-template`, without autoescape).
    {
      ...XSS,
      args: [0, "content"],
      when: { arg: 1, kw: "content_type", text: MAYBE_HTML_MIME, absent: true },
      unless: { arg: 0, kw: "content", text: /\.render(_async)?\(/ },
    },
  ),
  sink(
    "template-injection",
    "CWE-1336",
    "Server-side template injection",
    { names: ["render_template_string"], path: /^(flask\.)?render_template_string$/ },
    { ...TEMPLATE, args: [0, "source"] },
  ),
  sink(
    "template-compile",
    "CWE-1336",
    "Server-side template injection",
    { names: ["Template"], path: /^(jinja2|django\.template|mako\.template)\.Template$/ },
    { ...TEMPLATE, args: [0, "source", "template_string", "text"] },
  ),
  sink(
    "template-from-string",
    "CWE-1336",
    "Server-side template injection",
    { names: ["from_string"] },
    { ...TEMPLATE, args: [0, "source"] },
  ),
  sink(
    "ldap",
    "CWE-90",
    "LDAP injection",
    { names: ["search_s", "search_st", "search_ext", "search_ext_s"] },
    {
      message: "Untrusted data is built into an LDAP search filter.",
      remediation: "Escape values with `ldap.filter.escape_filter_chars` (ldap3: `escape_filter_chars`) before putting them in a filter.",
      args: [2, "filterstr"],
    },
  ),
  // python-ldap `search(base, scope, filterstr)`, ldap3 `search(search_base, search_filter)`; the other slot is a constant scope.
  sink(
    "ldap-search",
    "CWE-90",
    "LDAP injection",
    { names: ["search"], receiver: /(^|[._])(ldap\w*|conn|connection|ld|l)$|ldap/i },
    {
      message: "Untrusted data is built into an LDAP search filter.",
      remediation: "Escape values with `ldap.filter.escape_filter_chars` (ldap3: `escape_filter_chars`) before putting them in a filter.",
      args: [1, 2, "filterstr", "search_filter"],
    },
  ),
  sink(
    "xpath",
    "CWE-643",
    "XPath injection",
    { names: ["xpath"] },
    {
      message: "Untrusted data is built into an XPath expression.",
      remediation:
        'Pass input as XPath variables (`tree.xpath("//user[@name=$name]", name=value)`) instead of formatting it into the expression.',
      severity: "MEDIUM",
      args: [0, "_path"],
    },
  ),
  sink(
    "xpath-compile",
    "CWE-643",
    "XPath injection",
    { names: ["XPath", "ETXPath"], path: /^(lxml\.)?etree\.(XPath|ETXPath)$/ },
    {
      message: "Untrusted data is built into an XPath expression.",
      remediation: "Compile a constant XPath with `$variables` and pass input when evaluating it.",
      severity: "MEDIUM",
      args: [0, "path"],
    },
  ),
  // A response's headers (`make_response(body, status, headers)`, `Response(body, status, headers)`); its body is the XSS sink above.
  sink(
    "header-response",
    "CWE-113",
    "HTTP header injection",
    {
      names: ["make_response", "Response", "HTMLResponse", "PlainTextResponse"],
      path: /^((flask|werkzeug(\.wrappers)?|starlette\.responses|fastapi(\.responses)?)\.)?(make_response|Response|HTMLResponse|PlainTextResponse)$/,
    },
    { ...HEADER, args: [2, "headers"] },
  ),
  sink(
    "header-django-response",
    "CWE-113",
    "HTTP header injection",
    { names: ["HttpResponse"], path: /^(django\.http(\.response)?\.)?HttpResponse$/ },
    { ...HEADER, args: ["headers"] },
  ),
  sink(
    "header-set",
    "CWE-113",
    "HTTP header injection",
    { names: ["add", "set", "setdefault", "add_header"], receiver: /(^|\.)(resp|response|res|r)\w*\.headers$/ },
    { ...HEADER, args: [0, 1, "key", "value", "_key", "_value"] },
  ),
  ...PYTHON_CONFIG_SINKS,
];

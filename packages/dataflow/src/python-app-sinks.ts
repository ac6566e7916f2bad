/**
 * Python sinks beyond the core table (python-sinks.ts): pathlib I/O, `os.path` probes,
 * elementpath XPath, shell argument vectors (`["sh", "-c", cmd]`), Django's
 * `HttpResponse.write`, and session writes (trust boundary: Flask `session[k] = v`, Django
 * `request.session[k] = v`).
 */
import { sinkMaker, type FieldSinkRule, type SinkExtra as Extra, type SinkRule } from "./spec";

const sink = sinkMaker("py-taint-");

const PATH: Extra = {
  message: "Untrusted data is used as a file path.",
  remediation:
    "Reduce the name with `werkzeug.utils.secure_filename` or `os.path.basename`, or resolve it under a fixed base directory and check that the result " +
    "stays inside (`path.resolve().is_relative_to(base)`).",
};
const XPATH: Extra = {
  message: "Untrusted data is built into an XPath expression.",
  remediation:
    'Keep the expression constant and pass input as variables (`elementpath.select(root, "//user[@name=$name]", variables={...})`).',
  severity: "MEDIUM",
};
const TRUST_BOUNDARY = {
  message: "Untrusted data is stored in the session next to trusted data.",
  remediation: "Validate the data before storing it in the session, and never let input choose the key.",
};

/** A shell as the program of an argument list, given a script (typestate.ts shows a list as `argv:prog arg …`). */
const SHELL_ARGV =
  /^argv:(\S*\/)?(ba|da|z|k|c|tc|fi|a)?sh -c\b|^argv:(\S*[\\/])?cmd(\.exe)? \/c\b|^argv:(\S*[\\/])?(powershell|pwsh)(\.exe)? -(c|command)\b/i;
/** Methods only pathlib paths have: a tainted receiver is the path. */
const PATHLIB_IO = [
  "read_text",
  "read_bytes",
  "write_text",
  "write_bytes",
  "iterdir",
  "touch",
  "unlink",
  "rmdir",
  "symlink_to",
  "hardlink_to",
  "rglob",
];
/** A receiver made by a pathlib constructor, or named like a path. */
const PATHLIB_RECEIVER = /^(pathlib\.)?(Pure)?(Posix|Windows)?Path\(|(^|[._])(path|file_path|filepath|target|dest|destination)$/i;
/** Objects `save(dst)` writes a file for: an upload (werkzeug FileStorage), a storage, an image (PIL), a workbook. */
const SAVED_FILE =
  /(^|[._])(f|fh|file\w*|\w*_file|upload\w*|\w*storage|img|image|im|photo|picture|avatar|attachment|document|doc|wb|workbook)$/i;
/** An ElementTree element or tree: `root`, `tree`, `doc`, `TREE.getroot()`, `ET.parse(…)`. */
const ETREE_RECEIVER =
  /(^|[._])(root|tree|doc|document|dom|xml\w*|elem|element|el|node|et|etree)$|getroot\(\)$|^(xml\.etree\.)?(ElementTree|ET|etree)\.(parse|fromstring|XML)\(/i;
/** Loggers: `logging.info`, `log`, `logger`, `self.logger`, `app.logger`, `audit_logger`. */
const LOGGER = /(^|\.)(log|logger|_log|_logger|LOG|LOGGER|logging)$|_(log|logger)$/;
/** Flask's `session` (imported from flask), Django's `request.session`. */
const SESSION_OBJECT = /^flask\.session$|^(self\.)?request\.session$/;

export const PYTHON_APP_SINKS: SinkRule[] = [
  // An argument list whose program is a shell given a script (`["sh", "-c", cmd]`): a shell, whatever `shell=` says.
  sink(
    "subprocess-shell-argv",
    "CWE-78",
    "OS command injection",
    { names: ["run", "call", "check_call", "check_output", "Popen"], path: /^subprocess\.(run|call|check_call|check_output|Popen)$/ },
    {
      message: "Untrusted data reaches a shell script run through an argument list (`sh -c`).",
      remediation: "Run the program itself with its arguments in a list (no `sh -c`), and validate arguments against an allowlist.",
      severity: "CRITICAL",
      args: [0, "args"],
      when: { arg: 0, kw: "args", text: SHELL_ARGV },
    },
  ),
  // pathlib: the I/O a Path made from input performs (`Path(base) / name`, `Path(x)`); making the Path does none.
  sink("path-pathlib", "CWE-22", "Path traversal", { names: PATHLIB_IO }, { ...PATH, args: [], receiver: true }),
  sink(
    "path-pathlib-open",
    "CWE-22",
    "Path traversal",
    { names: ["open", "mkdir", "exists", "is_file", "is_dir", "stat", "chmod"], receiver: PATHLIB_RECEIVER },
    { ...PATH, args: [], receiver: true },
  ),
  sink(
    "path-pathlib-rename",
    "CWE-22",
    "Path traversal",
    { names: ["rename", "replace"], receiver: PATHLIB_RECEIVER },
    { ...PATH, args: [0, "target"], receiver: true },
  ),
  // Probes that only tell whether a file exists or how big it is: an oracle, not a read.
  sink(
    "path-probe",
    "CWE-22",
    "Path traversal (file probe)",
    {
      names: ["exists", "lexists", "isfile", "isdir", "islink", "getsize", "getmtime", "getatime", "getctime"],
      path: /^(os\.path|posixpath|ntpath)\.(exists|lexists|isfile|isdir|islink|getsize|getmtime|getatime|getctime)$/,
    },
    {
      message: "Untrusted data chooses a file whose existence, type or size the application reveals.",
      remediation: PATH.remediation,
      args: [0, "path"],
      severity: "LOW",
    },
  ),
  sink(
    "xpath-elementpath",
    "CWE-643",
    "XPath injection",
    { names: ["select", "iter_select"], path: /^elementpath\.(select|iter_select)$/ },
    { ...XPATH, args: [1, "path"] },
  ),
  sink(
    "xpath-elementpath-selector",
    "CWE-643",
    "XPath injection",
    { names: ["Selector"], path: /^elementpath\.Selector$/ },
    { ...XPATH, args: [0, "path"] },
  ),
  // Django: a response written to after it is made (`response = HttpResponse(); response.write(x)`).
  sink(
    "xss-django-write",
    "CWE-79",
    "Cross-site scripting",
    { names: ["write", "writelines"], receiver: /^(django\.http(\.response)?\.)?(HttpResponse|StreamingHttpResponse)\(/ },
    {
      message: "Untrusted data is written into an HTML response without encoding.",
      remediation: "Render through a template with autoescaping, or escape with `django.utils.html.escape`.",
      severity: "MEDIUM",
      args: [0, "content", "lines"],
    },
  ),
  // Tornado handlers (python-routes.ts names `self.write` in a RequestHandler subclass): the page, the redirect, the headers.
  sink(
    "xss-tornado",
    "CWE-79",
    "Cross-site scripting",
    { names: ["write", "finish"], path: /^tornado\.web\.RequestHandler\.(write|finish)$/ },
    {
      message: "Untrusted data is written into an HTML response without encoding.",
      remediation: "Render a template with autoescaping (`self.render`), or escape with `tornado.escape.xhtml_escape`.",
      severity: "MEDIUM",
      args: [0, "chunk"],
    },
  ),
  sink(
    "redirect-tornado",
    "CWE-601",
    "Open redirect",
    { names: ["redirect"], path: /^tornado\.web\.RequestHandler\.redirect$/ },
    {
      message: "Untrusted data decides where the user is redirected.",
      remediation: "Redirect only to relative paths or to an allowlist of destinations.",
      severity: "MEDIUM",
      args: [0, "url"],
      unless: { arg: 0, kw: "url", text: /^lead:\/[^/\\]/ },
    },
  ),
  sink(
    "header-tornado",
    "CWE-113",
    "HTTP header injection",
    { names: ["set_header", "add_header"], path: /^tornado\.web\.RequestHandler\.(set_header|add_header)$/ },
    {
      message: "Untrusted data is written into an HTTP response header.",
      remediation: "Reject or strip CR and LF from header values, and allowlist the headers input may set.",
      severity: "MEDIUM",
      args: [0, 1, "name", "value"],
    },
  ),
  // asyncpg `conn.fetch(sql)`, encode/databases `database.fetch_all(query)`, peewee `db.execute_sql(sql)`.
  sink(
    "sql-fetch",
    "CWE-89",
    "SQL injection",
    {
      names: ["fetch", "fetchrow", "fetchval", "fetch_all", "fetch_one", "fetch_val", "iterate", "execute_sql"],
      receiver: /(^|[._])(conn|connection|db|database|pool|cur|cursor|session|pg|postgres)$/i,
    },
    {
      message: "Untrusted data is built into an SQL statement.",
      remediation: 'Pass values as query parameters (`conn.fetch("… WHERE id = $1", value)`); never format input into SQL.',
      args: [0, "query", "sql"],
    },
  ),
  // A module chosen by input runs that module's top-level code (CWE-470, unsafe reflection).
  sink(
    "import-module",
    "CWE-470",
    "Unsafe reflection",
    { names: ["import_module", "__import__"], path: /^(importlib\.import_module|(builtins\.)?__import__)$/ },
    {
      message: "Untrusted data chooses which module is imported, and importing runs its code.",
      remediation: "Map input to a fixed set of modules (a dict of allowed names) instead of importing by name.",
      args: [0, "name"],
    },
  ),
  // urllib3 `http = urllib3.PoolManager()` kept in a module global (the call that made it is then not at hand).
  sink(
    "ssrf-pool",
    "CWE-918",
    "Server-side request forgery",
    { names: ["request", "urlopen", "request_encode_url", "request_encode_body"], receiver: /^(http|https|pool|pool_manager|http_pool)$/ },
    {
      message: "Untrusted data decides which URL the server requests.",
      remediation: "Allow only known hosts and schemes; resolve the host and reject internal and link-local addresses.",
      args: [1, "url"],
      unless: { arg: 1, kw: "url", text: /^lead:https?:\/\/[^/?#%{}@\\]+[/?#]/i },
    },
  ),
  // ElementTree's path language (`root.find(f".//user[@name='{name}']")`) is an XPath subset.
  sink(
    "xpath-etree-find",
    "CWE-643",
    "XPath injection",
    { names: ["find", "findall", "findtext", "iterfind"], receiver: ETREE_RECEIVER },
    { ...XPATH, args: [0, "path", "match"] },
  ),
  // A pattern from input: catastrophic backtracking (ReDoS), or a pattern that matches what it should not. CWE-730 (as
  // CodeQL tags it), not CWE-1333: that is py-regex-redos's, whose constant patterns this table would otherwise judge clean.
  sink(
    "regex-injection",
    "CWE-730",
    "Regular expression injection",
    {
      names: ["compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"],
      path: /^(re|regex)\.(compile|match|search|fullmatch|findall|finditer|sub|subn|split)$/,
    },
    {
      message: "Untrusted data is used as a regular expression, which can make matching take exponential time.",
      remediation: "Escape input with `re.escape` before putting it in a pattern, or match it literally (`in`, `str.find`).",
      severity: "MEDIUM",
      args: [0, "pattern"],
    },
  ),
  // `setattr(user, key, value)` with a key from the request: any attribute, `is_admin` included.
  sink(
    "mass-assignment",
    "CWE-915",
    "Mass assignment",
    { names: ["setattr"], path: /^(builtins\.)?setattr$/ },
    {
      message: "Untrusted data chooses which attribute of an object is set.",
      remediation: "Set only attributes from an allowlist of fields the user may change.",
      severity: "MEDIUM",
      args: [1, "name"],
    },
  ),
  // FastAPI/Starlette `FileResponse(path)`, aiohttp `web.FileResponse(path)`: the file sent back.
  sink(
    "path-file-response",
    "CWE-22",
    "Path traversal",
    { names: ["FileResponse"], path: /^((starlette\.responses|fastapi\.responses|fastapi|aiohttp\.web)\.)?FileResponse$/ },
    { ...PATH, args: [0, "path"] },
  ),
  // `upload.save(os.path.join(UPLOAD_DIR, upload.filename))`, `image.save(path)`: the file written.
  sink("path-save", "CWE-22", "Path traversal", { names: ["save"], receiver: SAVED_FILE }, { ...PATH, args: [0, "dst", "fp", "filename"] }),
  sink(
    "pty-spawn",
    "CWE-78",
    "OS command injection",
    { names: ["spawn"], path: /^pty\.spawn$/ },
    {
      message: "Untrusted data reaches an operating-system command.",
      remediation: "Run a fixed program; validate its arguments against an allowlist.",
      severity: "CRITICAL",
      args: [0, "argv"],
    },
  ),
  // A line break in a logged value forges log entries; `%s` arguments are inserted as they are.
  sink(
    "log",
    "CWE-117",
    "Log injection",
    { names: ["debug", "info", "warning", "warn", "error", "critical", "exception", "fatal", "log"], receiver: LOGGER },
    {
      message: "Untrusted data is written to a log without its line breaks removed, so it can forge log entries.",
      remediation:
        'Replace CR and LF in logged values (`value.replace("\\n", "_").replace("\\r", "_")`), or log through a formatter that escapes them.',
      args: "all",
      severity: "LOW",
      confidence: "MEDIUM",
    },
  ),
  sink(
    "trust-boundary",
    "CWE-501",
    "Trust boundary violation",
    { names: ["update", "setdefault"], receiver: /^session$|^(self\.)?request\.session$/ },
    { ...TRUST_BOUNDARY, severity: "MEDIUM", args: "all" },
  ),
];

/** Assignments into the session: `session[key] = value` (Flask), `request.session[key] = value` (Django). */
export const PYTHON_FIELD_SINKS: FieldSinkRule[] = [
  {
    id: "py-taint-trust-boundary",
    field: /(?!)/,
    object: SESSION_OBJECT,
    index: true,
    cwe: "CWE-501",
    title: "Trust boundary violation",
    ...TRUST_BOUNDARY,
    severity: "MEDIUM",
  },
  // `resp.headers["X-Name"] = value` (Flask, Starlette), `response["X-Name"] = value` (Django).
  {
    id: "py-taint-header-set",
    field: /(?!)/,
    object: /^(self\.)?(\w+_)?(resp|response)(\.headers)?$|^(self\.)?(res|r)\.headers$/,
    index: true,
    cwe: "CWE-113",
    title: "HTTP header injection",
    message: "Untrusted data is written into an HTTP response header.",
    remediation: "Reject or strip CR and LF from header values, and allowlist the headers input may set.",
    severity: "MEDIUM",
  },
];

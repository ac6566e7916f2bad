/**
 * Python sources, sinks and sanitizers for the taint analysis: Flask, Django (and DRF),
 * FastAPI/Starlette and Tornado requests; DB-API, SQLAlchemy and the Django ORM; os,
 * subprocess, pickle/yaml, requests/urllib/httpx, Jinja2, python-ldap/ldap3, lxml.
 *
 * Call paths are resolved through the module's imports (python.ts), so
 * `from flask import request; request.args.get(...)` has the path `flask.request.args.get`
 * while the field `request.args` keeps its written path: patterns accept both spellings.
 */
import { PYTHON_STATES } from "./config-states";
import { PYTHON_APP_SINKS, PYTHON_FIELD_SINKS } from "./python-app-sinks";
import { PYTHON_SINKS } from "./python-sinks";
import type { LanguageSpec } from "./spec";

/** The request object as written: `request`, `flask.request`, `self.request` in class-based views. */
// `req` as well: Falcon's `on_get(self, req, resp)`, and handlers of any framework that name it so.
const REQ = String.raw`^((flask|quart|bottle)\.)?(self\.)?(request|req)`;
const REQUEST_RECEIVER = /^((flask|quart|bottle)\.)?(self\.)?(request|req)$|^(Request|HttpRequest|WSGIRequest|ASGIRequest)$/;
// aiohttp: `request.query`, `request.match_info`, `request.rel_url.query`; Bottle: `request.query`.
const REQUEST_PARAMS = "args|form|values|GET|POST|query_params|path_params|view_args|matchdict|params|query|match_info|rel_url";
// Bottle `request.forms`, Pyramid `request.json_body`, Falcon `req.media`/`req.bounded_stream`.
const REQUEST_BODY = "json|data|body|stream|files|FILES|raw_post_data|forms|json_body|media|bounded_stream";
const REQUEST_META = "headers|cookies|COOKIES|META|environ|query_string|authorization";

export const PYTHON_SPEC: LanguageSpec = {
  language: "python",
  sources: [
    { id: "py-src-request-param", field: new RegExp(`${REQ}\\.(${REQUEST_PARAMS})\\b`), kind: "remote", label: "HTTP request parameter" },
    { id: "py-src-request-body", field: new RegExp(`${REQ}\\.(${REQUEST_BODY})\\b`), kind: "remote", label: "HTTP request body" },
    {
      id: "py-src-request-meta",
      field: new RegExp(`${REQ}\\.(${REQUEST_META})\\b`),
      kind: "remote",
      label: "HTTP request header or cookie",
    },
    // `request.args.get("id")`: also tainted through its receiver; named so the trace says where.
    {
      id: "py-src-request-get",
      call: {
        names: ["get", "getlist", "get_all", "to_dict", "dict", "lists", "items", "values"],
        path: new RegExp(`${REQ}\\.(${REQUEST_PARAMS}|${REQUEST_BODY}|${REQUEST_META})\\.\\w+$`),
      },
      kind: "remote",
      label: "HTTP request parameter",
    },
    {
      id: "py-src-request-call",
      // aiohttp: `await request.post()`, `await request.text()`, `await request.read()`, `await request.multipart()`.
      call: {
        names: [
          "get_json",
          "get_data",
          "json",
          "body",
          "form",
          "stream",
          "post",
          "text",
          "read",
          "multipart",
          // Falcon
          "get_param",
          "get_param_as_list",
          "get_header",
          "get_cookie_values",
          "get_media",
        ],
        receiver: REQUEST_RECEIVER,
      },
      kind: "remote",
      label: "HTTP request body",
    },
    {
      id: "py-src-websocket",
      call: {
        names: ["receive", "receive_text", "receive_json", "receive_bytes", "iter_text", "iter_json"],
        receiver: /(^|\.)(websocket|ws)$|^WebSocket$/,
      },
      kind: "remote",
      label: "WebSocket message",
    },
    {
      id: "py-src-tornado",
      call: {
        names: [
          "get_argument",
          "get_arguments",
          "get_query_argument",
          "get_query_arguments",
          "get_body_argument",
          "get_body_arguments",
          "get_cookie",
        ],
        receiver: /^self$/,
      },
      kind: "remote",
      label: "HTTP request parameter",
    },
    // CGI scripts: the form of the request (`form = cgi.FieldStorage(); form.getvalue("q")`).
    {
      id: "py-src-cgi",
      call: { names: ["FieldStorage", "parse_qs", "parse"], path: /^cgi\.(FieldStorage|parse_qs|parse)$/ },
      kind: "remote",
      label: "CGI form field",
    },
    {
      id: "py-src-input",
      call: { names: ["input", "raw_input"], path: /^(builtins\.)?(input|raw_input)$/ },
      kind: "remote",
      label: "console input",
    },
    { id: "py-src-environ", field: /^os\.environ\b/, kind: "local", label: "environment variable" },
    {
      id: "py-src-getenv",
      call: { names: ["getenv", "getenvb", "get"], path: /^os\.(getenv|getenvb|environ\.get)$/ },
      kind: "local",
      label: "environment variable",
    },
    { id: "py-src-argv", field: /^sys\.argv\b/, kind: "local", label: "command-line argument" },
    {
      id: "py-src-argparse",
      call: { names: ["parse_args", "parse_known_args"], receiver: /parser$/i },
      kind: "local",
      label: "command-line argument",
    },
    { id: "py-src-stdin", field: /^sys\.stdin\b/, kind: "local", label: "standard input" },
    // A file's contents: only where the receiver is recognisably a file, `.read()` is everywhere.
    {
      id: "py-src-file-read",
      call: {
        names: ["read", "readline", "readlines", "read_text", "read_bytes"],
        receiver: /^(f|fh|fp|fd|fin|infile|in_file|input_file|file|handle)$|^(io\.|codecs\.)?open\(|^Path\(/,
      },
      kind: "local",
      label: "file contents",
    },
  ],
  sinks: [...PYTHON_SINKS, ...PYTHON_APP_SINKS],
  fieldSinks: PYTHON_FIELD_SINKS,
  states: PYTHON_STATES,
  sanitizers: [
    {
      id: "py-san-number",
      call: { names: ["int", "float", "bool", "complex", "len"], path: /^(builtins\.)?(int|float|bool|complex|len)$/ },
      cwes: "*",
    },
    { id: "py-san-uuid", call: { names: ["UUID", "Decimal"], path: /^(uuid\.UUID|decimal\.Decimal)$/ }, cwes: "*" },
    // Hex digests and hex/base32/URL-safe base64 encodings are made of letters, digits, `-`, `_` and `=`.
    {
      id: "py-san-hex-encoding",
      call: {
        names: ["hexlify", "b16encode", "b32encode", "urlsafe_b64encode", "token_hex", "token_urlsafe"],
        path: /^(binascii\.hexlify|base64\.(b16encode|b32encode|urlsafe_b64encode)|secrets\.(token_hex|token_urlsafe))$/,
      },
      cwes: "*",
    },
    // `hashlib.sha256(x).hexdigest()`, `hmac.new(k, x, "sha256").hexdigest()`: a method only hash objects have.
    { id: "py-san-hexdigest", call: { names: ["hexdigest"] }, cwes: "*" },
    // Standard base64 keeps `+` and `/`: no quotes, markup or shell syntax, but `/` still makes a path or `//host`.
    {
      id: "py-san-base64",
      call: { names: ["b64encode", "encodebytes"], path: /^base64\.(b64encode|encodebytes)$/ },
      cwes: ["CWE-79", "CWE-89", "CWE-78", "CWE-90", "CWE-643", "CWE-113", "CWE-117", "CWE-1336", "CWE-95"],
    },
    // An IP address object prints as digits, dots and colons; a parsed date as the format asks.
    {
      id: "py-san-ip-address",
      call: {
        names: ["ip_address", "ip_network", "ip_interface", "IPv4Address", "IPv6Address", "IPv4Network", "IPv6Network"],
        path: /^ipaddress\.(ip_address|ip_network|ip_interface|IPv[46](Address|Network))$/,
      },
      cwes: "*",
    },
    {
      id: "py-san-date-parse",
      call: {
        names: ["strptime", "fromisoformat", "fromtimestamp", "parse"],
        path: /^(datetime\.(datetime|date|time)\.(strptime|fromisoformat|fromtimestamp)|dateutil\.parser\.parse)$/,
      },
      cwes: "*",
    },
    // `url_for(endpoint, **values)` / Django `reverse(...)`: a URL of this application, values encoded into it.
    {
      id: "py-san-url-for",
      call: {
        names: ["url_for", "reverse", "reverse_lazy"],
        path: /^(flask\.url_for|django\.(urls|shortcuts|core\.urlresolvers)\.(reverse|reverse_lazy))$/,
      },
      cwes: ["CWE-601", "CWE-918"],
    },
    { id: "py-san-shell-quote", call: { names: ["quote"], path: /^(shlex|pipes)\.quote$/ }, cwes: ["CWE-78"] },
    {
      id: "py-san-html-escape",
      call: {
        names: ["escape", "conditional_escape", "xhtml_escape"],
        path: /^((html|cgi|markupsafe(\.Markup)?|flask|jinja2|werkzeug(\.utils)?|django\.utils\.html|xml\.sax\.saxutils)\.)?(escape|conditional_escape)$|^tornado\.escape\.xhtml_escape$/,
      },
      cwes: ["CWE-79"],
    },
    { id: "py-san-bleach", call: { names: ["clean"], path: /^bleach\.clean$/ }, cwes: ["CWE-79"] },
    // Django `format_html(fmt, *args)` escapes every argument (`format_html_join` likewise).
    {
      id: "py-san-format-html",
      call: { names: ["format_html", "format_html_join"], path: /^(django\.utils\.html\.)?(format_html|format_html_join)$/ },
      cwes: ["CWE-79"],
    },
    // A page rendered from a template file: Flask and Django autoescape HTML templates.
    {
      id: "py-san-render-template",
      call: {
        names: ["render_template", "render", "render_to_string"],
        path: /^(flask\.render_template|django\.shortcuts\.render|django\.template\.loader\.render_to_string)$/,
      },
      cwes: ["CWE-79"],
    },
    { id: "py-san-regex-escape", call: { names: ["escape"], path: /^(re|regex)\.escape$/ }, cwes: ["CWE-730"] },
    // A JSON response is not parsed as HTML.
    {
      id: "py-san-jsonify",
      call: {
        names: ["jsonify", "JsonResponse", "JSONResponse"],
        path: /^((flask|django\.http|starlette\.responses|fastapi\.responses)\.)?(jsonify|JsonResponse|JSONResponse)$/,
      },
      cwes: ["CWE-79"],
    },
    {
      id: "py-san-filename",
      call: {
        names: ["basename", "secure_filename", "safe_join"],
        path: /^((os\.path|posixpath|ntpath)\.basename|((werkzeug(\.utils|\.security)?|flask)\.)?(secure_filename|safe_join))$/,
      },
      cwes: ["CWE-22"],
    },
    {
      id: "py-san-ldap",
      call: {
        names: ["escape_filter_chars", "escape_dn_chars"],
        path: /^((ldap\.filter|ldap\.dn|ldap3\.utils\.conv|ldap3\.utils\.dn)\.)?(escape_filter_chars|escape_dn_chars)$/,
      },
      cwes: ["CWE-90"],
    },
    {
      id: "py-san-sql-identifier",
      call: {
        names: ["Identifier", "Literal", "escape_string"],
        path: /^(psycopg2?\.sql\.(Identifier|Literal)|(MySQLdb|pymysql)(\.converters)?\.escape_string)$/,
      },
      cwes: ["CWE-89"],
    },
    // Percent-encoding leaves only [A-Za-z0-9_.~-] and `/` (quote) or `+` (quote_plus): no markup,
    // shell, LDAP, XPath or template syntax survives. Not for paths, redirects or SSRF: `../`,
    // `//host` and a bare host name do survive, and not for SQL: `%` and `-` stay meaningful there.
    {
      id: "py-san-url-quote",
      call: { names: ["quote", "quote_plus"], path: /^(urllib\.parse|urllib|six\.moves\.urllib\.parse)\.(quote|quote_plus)$/ },
      cwes: ["CWE-79", "CWE-78", "CWE-90", "CWE-643", "CWE-1336"],
    },
  ],
  mutators: [
    "append",
    "extend",
    "insert",
    "add",
    "update",
    "setdefault",
    "write",
    "writelines",
    "put",
    "put_nowait",
    "appendleft",
    "extendleft",
  ],
  confidence: { remote: "HIGH", local: "MEDIUM" },
};

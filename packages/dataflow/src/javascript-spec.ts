/**
 * JavaScript/TypeScript sources, sinks and sanitizers for the taint analysis: Express,
 * Fastify, Koa and Next.js requests, the browser DOM, Node's child_process/fs/vm/http,
 * SQL and MongoDB clients, and the common escaping libraries. Paths are import-resolved
 * (`node:` stripped), so `import { exec as run } from "node:child_process"` still matches.
 */
import { JAVASCRIPT_CONFIG_SINKS } from "./config-states";
import { JAVASCRIPT_APP_FIELD_SINKS, JAVASCRIPT_APP_SINKS, JAVASCRIPT_APP_SOURCES, JAVASCRIPT_SERVER_STATE } from "./javascript-app-sinks";
import { sinkMaker, type LanguageSpec } from "./spec";

/** Express/Fastify/Next.js request objects. */
const REQ = /^(req|request)$/;
/**
 * An Express response, also through its chaining setters (`res.status(404).send(x)`,
 * `res.type("html").send(x)`) unless they set a type other than HTML or script (`res.type("json")`,
 * `res.set("Content-Type", "text/plain")`); a Fastify reply only once it is typed as HTML
 * (`reply.type("text/html").send(x)`, `reply.header("Content-Type", "text/html")`): it sends
 * other strings as plain text.
 */
const RES_CHAIN =
  /^(res|response)$|^(?!.*(\.(type|contentType)\(|\.(set|header)\(\s*["'`]content-type["'`]\s*,)(?![^)]*(html|javascript)))(res|response)(\.(status|type|set|header|append|vary|cookie|clearCookie|location|links|attachment|contentType)\(.*\))+$|^reply(\.\w+\(.*\))*\.(type|header)\(.*(html|javascript)/i;
/** Where response headers are set: Express/Fastify responses (chained too) and Koa's `ctx.set`. */
const HEADER_TARGET = /^(res|response|reply|ctx|ctx\.response)$|^(res|response|reply)(\.\w+\(.*\))+$/;
/**
 * SQL clients as they are usually named: `db`, `this.db`, `pool`, `connection`, `knex`, `sequelize`,
 * `pgClient`, TypeORM's injected `manager`, `ordersRepository`, `queryRunner`, `dataSource`, and
 * MikroORM's `em`.
 */
const SQL_CLIENT =
  /(^|\.)(\w*(db|Db|DB|database|Database|pool|Pool|conn|Conn|connection|Connection|client|Client|knex|Knex|sequelize|Sequelize|mysql|trx|transaction|sql|manager|Manager|repository|Repository|queryRunner|QueryRunner|dataSource|DataSource|datasource)|em)$/;
/** MongoDB collections and Mongoose models: `db.collection("x")`, `users`, `User`, `this.userModel`. */
const MONGO_RECEIVER = /(collection|coll|model|Model|^db\.\w+)|(^|\.)[A-Z][A-Za-z0-9]*$|(^|\.)\w*(users?|Users?)$/;
const FS_MODULE = String.raw`^(fs|fs\/promises|fs\.promises|fs-extra|graceful-fs)\.`;
const FS_CALLS = [
  "readFile",
  "readFileSync",
  "writeFile",
  "writeFileSync",
  "appendFile",
  "appendFileSync",
  "createReadStream",
  "createWriteStream",
  "unlink",
  "unlinkSync",
  "rm",
  "rmSync",
  "rmdir",
  "rmdirSync",
  "readdir",
  "readdirSync",
  "open",
  "openSync",
  "mkdir",
  "mkdirSync",
  "stat",
  "statSync",
  "lstat",
  "access",
  "accessSync",
  "exists",
  "existsSync",
  "chmod",
  "truncate",
];
/** Calls naming two files (source and destination, target and link): both are paths. */
const FS_PAIR_CALLS = ["rename", "renameSync", "copyFile", "copyFileSync", "cp", "cpSync", "symlink", "symlinkSync", "link", "linkSync"];

const sink = sinkMaker("js-taint-");

const SQL = {
  message: "Untrusted data is built into an SQL statement.",
  remediation:
    "Pass values as bound parameters (`?` / `$1` placeholders, or a tagged-template API such as Prisma `$queryRaw`); never concatenate input into SQL.",
};
const COMMAND = {
  message: "Untrusted data reaches a shell command.",
  remediation:
    "Use `execFile`/`spawn` with a fixed program and an argument array (no shell), and validate each argument against an allowlist.",
};
const CODE = {
  message: "Untrusted data is evaluated as JavaScript code.",
  remediation: "Never evaluate input as code; parse data with JSON.parse, and pass functions, not strings, to setTimeout/setInterval.",
};
const PATH = {
  message: "Untrusted data is used as a file path.",
  remediation:
    "Resolve the path against a fixed base directory (`path.resolve`) and check that the result stays inside it, or map input to an allowlist of names.",
};
const XSS = {
  message: "Untrusted data is written into HTML without encoding.",
  remediation:
    "Encode for the HTML context (a template engine that escapes by default, `escape-html`, `he.encode`) or sanitize HTML with DOMPurify; use `textContent` " +
    "instead of `innerHTML`.",
};
const REDIRECT = {
  message: "Untrusted data decides where the user is redirected.",
  remediation: "Redirect only to relative paths or to hosts on an allowlist; never to a URL taken from the request.",
};
const SSRF = {
  message: "Untrusted data decides which URL the server requests.",
  remediation:
    "Build outbound URLs from fixed hosts; validate input against an allowlist of hosts and schemes and block internal addresses.",
};
const NOSQL = {
  message: "Untrusted data is used as a MongoDB query.",
  remediation:
    "Cast input to the expected type (`String(x)`), reject objects and `$` operators (mongo-sanitize), and never use `$where` with input.",
};

export const JAVASCRIPT_SPEC: LanguageSpec = {
  language: "javascript",
  sources: [
    {
      id: "js-request-field",
      // hapi names the body `request.payload` and the cookies `request.state`.
      // An upload's name, type and contents come from the client; where the server stored it
      // (multer `path`/`destination`/`filename`, express-fileupload `tempFilePath`) and its `size` do not.
      field:
        /^(req|request)\.(query|body|params|cookies|signedCookies|headers|url|originalUrl|path|hostname|host|subdomains|raw|payload|state)\b|^(req|request)\.files?\b(?!(\.[\w$]+|\[[^\]]*\])?\.(path|destination|filename|tempFilePath|size)\b)/,
      kind: "remote",
      label: "HTTP request data",
    },
    {
      id: "js-koa-request",
      field:
        /^ctx\.(query|querystring|params|headers?|cookies|url|originalUrl|href|path|host|hostname|origin|search|request\.(body|query|querystring|headers?|url|href|path|host|hostname|files?))\b/,
      kind: "remote",
      label: "HTTP request data (Koa `ctx`)",
    },
    {
      id: "js-request-call",
      call: { names: ["header", "param"], receiver: REQ },
      kind: "remote",
      label: "HTTP request header or parameter",
    },
    { id: "js-request-get", call: { names: ["get"], receiver: /^req$/ }, kind: "remote", label: "HTTP request header" },
    { id: "js-koa-cookie", call: { names: ["get"], receiver: /^ctx\.cookies$/ }, kind: "remote", label: "HTTP cookie (Koa)" },
    { id: "js-koa-header", call: { names: ["get"], receiver: /^ctx(\.request)?$/ }, kind: "remote", label: "HTTP request header (Koa)" },
    {
      id: "js-request-body",
      call: { names: ["json", "formData", "text", "blob", "arrayBuffer"], receiver: REQ },
      kind: "remote",
      label: "HTTP request body",
    },
    {
      id: "js-search-params",
      call: { names: ["get", "getAll"], receiver: /(^|\.)searchParams$|^URLSearchParams$/ },
      kind: "remote",
      label: "URL query parameter",
    },
    {
      id: "js-dom-location",
      field: /^((window|document)\.)?location\.(hash|search|href|pathname)\b/,
      kind: "remote",
      label: "browser location",
    },
    {
      id: "js-dom-document",
      field: /^(window\.)?document\.(cookie|URL|documentURI|baseURI|referrer)\b/,
      kind: "remote",
      label: "browser document property",
    },
    { id: "js-window-name", field: /^window\.name$/, kind: "remote", label: "window.name" },
    { id: "js-env", field: /^process\.env\b/, kind: "local", label: "environment variable" },
    { id: "js-argv", field: /^process\.argv\b/, kind: "local", label: "command-line argument" },
    ...JAVASCRIPT_APP_SOURCES,
    // File contents (`fs.readFileSync`) are deliberately not a source: a call matching a source
    // is never checked as a sink, and the same calls are the main path-traversal sinks.
  ],
  sinks: [
    // mysql's options form `query({ sql, values })` binds its values: they are not part of the statement.
    sink(
      "sql",
      "CWE-89",
      "SQL injection",
      // pg-promise: `db.any/one/none/many/oneOrNone/manyOrNone/result/multi(sql, values)`.
      {
        names: ["query", "execute", "raw", "prepare", "unsafe", "any", "one", "none", "many", "oneOrNone", "manyOrNone", "result", "multi"],
        receiver: SQL_CLIENT,
      },
      { ...SQL, unless: { arg: 0, key: "values" } },
    ),
    sink(
      "sql-sqlite",
      "CWE-89",
      "SQL injection",
      { names: ["run", "all", "exec", "each"], receiver: /(^|\.)\w*(db|Db|DB|database|Database|sqlite\w*)$/ },
      SQL,
    ),
    sink(
      "sql-raw",
      "CWE-89",
      "SQL injection",
      { names: ["$queryRawUnsafe", "$executeRawUnsafe", "whereRaw", "havingRaw", "orderByRaw", "joinRaw", "groupByRaw", "fromRaw"] },
      SQL,
    ),
    sink(
      "command",
      "CWE-78",
      "OS command injection",
      { names: ["exec", "execSync"], path: /^(child_process|shelljs)\.(exec|execSync)$/ },
      { ...COMMAND, severity: "CRITICAL" },
    ),
    sink(
      "command-execa",
      "CWE-78",
      "OS command injection",
      {
        names: ["execaCommand", "execaCommandSync", "command", "commandSync"],
        path: /^execa\.(execaCommand|execaCommandSync|command|commandSync)$/,
      },
      { ...COMMAND, severity: "CRITICAL" },
    ),
    sink(
      "code",
      "CWE-95",
      "Code injection",
      { names: ["eval", "Function"], path: /^((window|globalThis|global)\.)?(eval|Function)$/ },
      { ...CODE, severity: "CRITICAL", args: "all" },
    ),
    sink("code-function", "CWE-95", "Code injection", { names: ["Function"], isNew: true }, { ...CODE, severity: "CRITICAL", args: "all" }),
    sink(
      "code-vm",
      "CWE-95",
      "Code injection",
      { names: ["runInContext", "runInNewContext", "runInThisContext", "compileFunction"], path: /^vm\./ },
      { ...CODE, severity: "CRITICAL" },
    ),
    sink(
      "code-timer",
      "CWE-95",
      "Code injection",
      {
        names: ["setTimeout", "setInterval", "setImmediate"],
        path: /^((window|globalThis|global)\.)?(setTimeout|setInterval|setImmediate)$/,
      },
      { ...CODE, severity: "CRITICAL" },
    ),
    // `fs.writeFile(path, data)`: the path only; the data written is not a path.
    sink("path", "CWE-22", "Path traversal", { names: FS_CALLS, path: new RegExp(`${FS_MODULE}(${FS_CALLS.join("|")})$`) }, PATH),
    sink(
      "path-pair",
      "CWE-22",
      "Path traversal",
      { names: FS_PAIR_CALLS, path: new RegExp(`${FS_MODULE}(${FS_PAIR_CALLS.join("|")})$`) },
      { ...PATH, args: [0, 1] },
    ),
    // With a `root` option, send resolves the path inside it and refuses `..` (403).
    sink(
      "path-send-file",
      "CWE-22",
      "Path traversal",
      { names: ["sendFile"], receiver: RES_CHAIN },
      { ...PATH, unless: { arg: 1, key: "root" } },
    ),
    sink(
      "path-download",
      "CWE-22",
      "Path traversal",
      { names: ["download"], receiver: RES_CHAIN },
      { ...PATH, unless: { arg: 2, key: "root" } },
    ),
    sink("xss", "CWE-79", "Cross-site scripting", { names: ["send", "write", "end"], receiver: RES_CHAIN }, XSS),
    sink(
      "xss-document",
      "CWE-79",
      "Cross-site scripting",
      { names: ["write", "writeln"], path: /^(window\.)?document\.(write|writeln)$/ },
      XSS,
    ),
    sink("xss-adjacent", "CWE-79", "Cross-site scripting", { names: ["insertAdjacentHTML"] }, { ...XSS, args: [1] }),
    sink(
      "redirect",
      "CWE-601",
      "Open redirect",
      { names: ["redirect"], receiver: /^(res|response|reply|ctx|h)$/ },
      // `res.redirect(url)`, `res.redirect(status, url)`, Koa `ctx.redirect(url, fallback)`.
      { ...REDIRECT, severity: "MEDIUM", args: [0, 1] },
    ),
    sink(
      "redirect-location",
      "CWE-601",
      "Open redirect",
      { names: ["assign", "replace"], path: /^((window|document)\.)?location\.(assign|replace)$/ },
      { ...REDIRECT, severity: "MEDIUM" },
    ),
    sink(
      "ssrf-fetch",
      "CWE-918",
      "Server-side request forgery",
      { names: ["fetch"], path: /^(((window|globalThis|global)\.)?fetch|node-fetch|undici\.fetch|cross-fetch|isomorphic-fetch)$/ },
      SSRF,
    ),
    sink(
      "ssrf-axios",
      "CWE-918",
      "Server-side request forgery",
      {
        names: ["axios", "get", "post", "put", "patch", "delete", "head", "options", "request"],
        path: /^axios(\.(get|post|put|patch|delete|head|options|request))?$/,
      },
      SSRF,
    ),
    sink("ssrf-http", "CWE-918", "Server-side request forgery", { names: ["get", "request"], path: /^(http|https)\.(get|request)$/ }, SSRF),
    sink(
      "ssrf-client",
      "CWE-918",
      "Server-side request forgery",
      {
        names: ["got", "needle", "superagent", "request", "get", "post", "put", "patch", "del", "delete", "head", "stream"],
        // `request` and request-promise: the deprecated client many applications still use.
        path: /^(got|needle|superagent|undici|request|request-promise|request-promise-native)(\.(get|post|put|patch|del|delete|head|request|stream))?$/,
      },
      SSRF,
    ),
    sink(
      "nosql",
      "CWE-943",
      "NoSQL injection",
      {
        names: [
          "find",
          "findOne",
          "findOneAndUpdate",
          "findOneAndDelete",
          "findOneAndReplace",
          "updateOne",
          "updateMany",
          "deleteOne",
          "deleteMany",
          "replaceOne",
          "countDocuments",
          "count",
          "where",
          "$where",
          "mapReduce",
        ],
        receiver: MONGO_RECEIVER,
      },
      NOSQL,
    ),
    sink(
      "header",
      "CWE-113",
      "HTTP header injection",
      { names: ["setHeader", "set", "header", "append"], receiver: HEADER_TARGET },
      {
        message: "Untrusted data is written into an HTTP response header.",
        remediation: "Reject or strip CR and LF from header values, and allowlist what may be set from input.",
        severity: "MEDIUM",
        // The name as well as the value: `res.setHeader(name, value)`, and `res.set({ [name]: value })`.
        args: [0, 1],
      },
    ),
    sink(
      "deserialization",
      "CWE-502",
      "Unsafe deserialization",
      { names: ["unserialize", "deserialize"], path: /^(node-serialize|serialize-to-js|funcster)\.(unserialize|deserialize)$/ },
      {
        message: "Untrusted data is deserialized by a library that can revive functions.",
        remediation: "Exchange data as JSON (`JSON.parse`) and never deserialize input with node-serialize or similar libraries.",
        severity: "CRITICAL",
      },
    ),
    sink(
      "regex",
      "CWE-1333",
      "Regular expression injection",
      { names: ["RegExp"], isNew: true },
      {
        message: "Untrusted data is compiled as a regular expression.",
        remediation: "Escape input before building a pattern (`escape-string-regexp`, `_.escapeRegExp`) or match it as plain text.",
        severity: "MEDIUM",
      },
    ),
    sink(
      "regex-call",
      "CWE-1333",
      "Regular expression injection",
      { names: ["RegExp"], path: /^RegExp$/ },
      {
        message: "Untrusted data is compiled as a regular expression.",
        remediation: "Escape input before building a pattern (`escape-string-regexp`, `_.escapeRegExp`) or match it as plain text.",
        severity: "MEDIUM",
      },
    ),
    sink(
      "xpath",
      "CWE-643",
      "XPath injection",
      {
        names: ["select", "select1", "evaluate", "parse"],
        path: /^(xpath|xpath\.js)\.(select|select1|evaluate|parse)$|^(window\.)?document\.evaluate$/,
      },
      {
        message: "Untrusted data is built into an XPath expression.",
        remediation:
          "Use parameterised XPath (variables) or validate input against an allowlist; never concatenate input into an expression.",
        severity: "MEDIUM",
      },
    ),
    ...JAVASCRIPT_CONFIG_SINKS,
    ...JAVASCRIPT_APP_SINKS,
  ],
  fieldSinks: [
    { id: "js-taint-xss-html", field: /^(innerHTML|outerHTML)$/, cwe: "CWE-79", title: "Cross-site scripting", ...XSS, severity: "HIGH" },
    // `window.location = x` / `document.location = x`; `.href` is left out: too many unrelated objects have one.
    { id: "js-taint-redirect-field", field: /^location$/, cwe: "CWE-601", title: "Open redirect", ...REDIRECT, severity: "MEDIUM" },
    ...JAVASCRIPT_APP_FIELD_SINKS,
  ],
  sanitizers: [
    {
      id: "js-number",
      call: { names: ["Number", "parseInt", "parseFloat", "Boolean"], path: /^(Number\.)?(Number|parseInt|parseFloat)$|^Boolean$/ },
      cwes: "*",
    },
    { id: "js-math", call: { names: ["floor", "ceil", "round", "trunc", "abs", "min", "max"], path: /^Math\./ }, cwes: "*" },
    {
      id: "js-validator-check",
      call: {
        names: ["isInt", "isNumeric", "isFloat", "isUUID", "isMongoId", "isEmail", "isAlphanumeric", "isBoolean", "isIn"],
        path: /^validator\./,
      },
      cwes: "*",
    },
    // A URI component cannot carry markup, a new host or a scheme once encoded.
    { id: "js-uri-encode", call: { names: ["encodeURIComponent"] }, cwes: ["CWE-79", "CWE-601", "CWE-918"] },
    // `res.end(JSON.stringify(x))` is a JSON API response, not HTML.
    { id: "js-json-stringify", call: { names: ["stringify"], path: /^JSON\.stringify$/ }, cwes: ["CWE-79"] },
    {
      id: "js-html-escape",
      call: { names: ["escape"], path: /^(escape|validator\.escape|lodash\.escape|underscore\.escape|he\.escape|html-escaper\.escape)$/ },
      cwes: ["CWE-79"],
    },
    {
      id: "js-html-encode",
      call: {
        names: ["encode", "encodeHTML", "escapeHtml", "escapeHTML", "htmlEscape", "sanitizeHtml", "filterXSS", "xss"],
        path: new RegExp(
          String.raw`^((he|entities|html-entities)\.\w+|escape-html|escapeHtml|escapeHTML|encodeHTML|htmlEscape` +
            String.raw`|sanitize-html|sanitizeHtml|xss|filterXSS|xss\.filterXSS)$`,
        ),
      },
      cwes: ["CWE-79"],
    },
    { id: "js-dompurify", call: { names: ["sanitize"], receiver: /DOMPurify|purify/i }, cwes: ["CWE-79"] },
    { id: "js-basename", call: { names: ["basename"], path: /^path(\.posix|\.win32)?\.basename$/ }, cwes: ["CWE-22"] },
    // sanitize-filename strips separators, `..` and control characters: one safe file name.
    { id: "js-sanitize-filename", call: { names: ["sanitize", "sanitizeFilename"], path: /^sanitize-filename$/ }, cwes: ["CWE-22"] },
    {
      id: "js-sql-escape",
      call: { names: ["escape", "escapeId"], path: /^(mysql|mysql2|mysql2\/promise|sqlstring)\.(escape|escapeId)$/ },
      cwes: ["CWE-89"],
    },
    {
      id: "js-sql-escape-client",
      call: { names: ["escape", "escapeId", "escapeLiteral", "escapeIdentifier"], receiver: SQL_CLIENT },
      cwes: ["CWE-89"],
    },
    { id: "js-pg-format", call: { names: ["literal", "ident", "string"], path: /^pg-format\.(literal|ident|string)$/ }, cwes: ["CWE-89"] },
    { id: "js-shell-quote", call: { names: ["quote"], path: /^shell-quote\.quote$/ }, cwes: ["CWE-78"] },
    {
      id: "js-shell-escape",
      call: { names: ["shellescape", "shellEscape", "escape"], path: /^(shell-escape|shell-escape-tag|any-shell-escape)$/ },
      cwes: ["CWE-78"],
    },
    {
      id: "js-regex-escape",
      call: {
        names: ["escapeRegExp", "escapeStringRegexp", "escapeRegex"],
        path: /^(lodash\.escapeRegExp|escape-string-regexp|escapeRegExp|escapeRegex|lodash\.escaperegexp)$/,
      },
      cwes: ["CWE-1333"],
    },
    // Looking a record up by key returns stored data, not the key: `User.findById(req.params.id)`,
    // Sequelize `findByPk`, Prisma `findUnique`, TypeORM `findOneBy`.
    {
      id: "js-orm-lookup",
      call: { names: ["findById", "findByPk", "findUnique", "findUniqueOrThrow", "findOneBy", "findOneByOrFail"] },
      cwes: "*",
    },
    // A string cannot smuggle a `$ne`/`$gt` operator object into a query.
    { id: "js-string-cast", call: { names: ["String"], path: /^String$/ }, cwes: ["CWE-943"] },
    {
      id: "js-mongo-sanitize",
      call: { names: ["sanitize", "mongoSanitize"], path: /^(mongo-sanitize|express-mongo-sanitize\.sanitize)$/ },
      cwes: ["CWE-943"],
    },
  ],
  serverState: JAVASCRIPT_SERVER_STATE,
  mutators: ["push", "unshift", "splice", "set", "add", "append", "write"],
  confidence: { remote: "HIGH", local: "MEDIUM" },
};

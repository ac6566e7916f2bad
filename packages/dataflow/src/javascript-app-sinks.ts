/**
 * JavaScript/TypeScript sinks and sources beyond the core table (javascript-spec.ts): loading
 * modules by name (`require`, `import()`), vm2, headless browsers (Puppeteer, Playwright), Expat
 * entity expansion (node-expat, xml2json), template data (`res.render`), Koa's `ctx.body`,
 * session writes (trust boundary), archive entry names (zip slip), jQuery and hapi markup, and
 * redirects beyond `res.redirect` (Next.js, `res.location`, `window.open`, `location.href`),
 * LDAP filters and server-side template sources.
 */
import { sinkMaker, type FieldSinkRule, type SinkExtra as Extra, type SinkRule, type SourceRule } from "./spec";

const sink = sinkMaker("js-taint-");

const LOAD: Extra = {
  message: "Untrusted data chooses a module to load, which runs its code.",
  remediation:
    'Load only modules from a fixed map of names (`const exporters = { csv: require("./csv") }`); never pass input to require or import().',
  severity: "CRITICAL",
};
const CODE: Extra = {
  message: "Untrusted data is evaluated as JavaScript code.",
  remediation: "Never evaluate input as code; pass data to fixed code (a function and its arguments) instead.",
};
const SSRF: Extra = {
  message: "Untrusted data decides which URL the server's headless browser opens.",
  remediation: "Open only URLs on fixed hosts; validate input against an allowlist of hosts and schemes and block internal addresses.",
};
const XSS = {
  message: "Untrusted data is written into HTML without encoding.",
  remediation: "Encode for the HTML context (a template engine that escapes by default, `escape-html`, `he.encode`), or send JSON.",
};
const ENTITY_EXPANSION: Extra = {
  message: "Untrusted XML is parsed by a parser that expands entities (billion laughs).",
  remediation: "Reject documents with a DOCTYPE before parsing, or use a parser that does not expand entities; limit the input size.",
  severity: "MEDIUM",
};
const TRUST_BOUNDARY = {
  message: "Untrusted data is stored in the session next to trusted data.",
  remediation: "Validate the data before storing it in the session, and never let input choose the key.",
};
const SHELL: Extra = {
  message: "Untrusted data reaches a command run through a shell (`shell: true`).",
  remediation: "Drop `shell: true` and pass a fixed program with an argument array, validating each argument against an allowlist.",
  severity: "CRITICAL",
};
const SHELL_FILE = /^(child_process|execa)\.(spawn|spawnSync|execFile|execFileSync|execa|execaSync)$/;
const SHELL_NAMES = ["spawn", "spawnSync", "execFile", "execFileSync", "execa", "execaSync"];
const SHELLJS_FILES = ["cat", "cp", "mv", "rm", "ls", "mkdir", "touch", "sed", "grep", "head", "tail", "chmod", "ln", "find", "cd"];
const REDIRECT = {
  message: "Untrusted data decides where the user is redirected.",
  remediation: "Redirect only to relative paths or to hosts on an allowlist; never to a URL taken from the request.",
};
/** jQuery (and cheerio) selections: `$("#x")`, `jQuery(el)`, a `$list` kept in a variable. */
const JQUERY = /^\$|^jQuery\(/;
/** Puppeteer/Playwright pages: `page`, `this.page`, `(await browser.newPage())`. */
const BROWSER_PAGE = /(^|\.)page$|newPage\(/;

export const JAVASCRIPT_APP_SOURCES: SourceRule[] = [
  // Angular's ActivatedRoute snapshot: the URL's query and path parameters and fragment (the observables are in javascript-frameworks.ts).
  {
    id: "js-angular-route",
    field: /^(this\.)?\w*(route|Route)\.snapshot\.(queryParams|params|queryParamMap|paramMap|fragment|url)\b/,
    kind: "remote",
    label: "URL parameters (Angular ActivatedRoute)",
  },
  // The names an archive gives its entries (adm-zip `entryName`, yauzl `entry.fileName`, `zipEntry.path`): `../` in them
  // writes outside the extraction directory (zip slip). A bare `entry.path`/`entry.name` is left out: fs.Dirent and
  // fast-glob entries are named so too.
  {
    id: "js-archive-entry",
    field: /\.entryName$|^(entry|zipEntry|zipentry)\.fileName$|^(zipEntry|tarEntry|archiveEntry)\.(path|name)$/,
    kind: "remote",
    label: "archive entry name",
  },
];

export const JAVASCRIPT_APP_SINKS: SinkRule[] = [
  // Loading a module whose name comes from input runs whatever file it names.
  sink("code-require", "CWE-94", "Code injection", { names: ["require"], path: /^require$/ }, LOAD),
  sink("code-import", "CWE-94", "Code injection", { names: ["import"] }, LOAD),
  // vm2: `new VM().run(code)`, `new NodeVM().run(code)`; its sandbox has been escaped repeatedly.
  sink(
    "code-vm2",
    "CWE-95",
    "Code injection",
    { names: ["run"], receiver: /^(VM|NodeVM)$|^new (vm2\.)?(Node)?VM\(/ },
    { ...CODE, severity: "CRITICAL" },
  ),
  // Headless browsers run on the server, next to its network and files.
  sink("ssrf-browser", "CWE-918", "Server-side request forgery", { names: ["goto"], receiver: BROWSER_PAGE }, SSRF),
  sink(
    "ssrf-browser-content",
    "CWE-918",
    "Server-side request forgery",
    { names: ["setContent"], receiver: BROWSER_PAGE },
    {
      message: "Untrusted HTML is rendered by a headless browser on the server, where it can load internal URLs and files.",
      remediation: "Render only HTML built from escaped values, and block the page's requests to internal hosts and `file:`.",
    },
  ),
  // `page.evaluate(fn, arg)`: the code, not the data handed to it.
  sink(
    "code-browser",
    "CWE-95",
    "Code injection",
    { names: ["evaluate", "evaluateHandle", "addScriptTag", "$eval", "$$eval"], receiver: BROWSER_PAGE },
    { ...CODE, args: [0] },
  ),
  // Expat (node-expat, and xml2json over it) expands the document's internal entities: nested ones grow without bound.
  sink(
    "xml-entity-expansion",
    "CWE-776",
    "XML entity expansion",
    { names: ["parse", "write"], receiver: /^new (node-expat|expat)\.Parser\(|^(node-expat|expat)\.Parser$/ },
    ENTITY_EXPANSION,
  ),
  sink(
    "xml-entity-expansion-xml2json",
    "CWE-776",
    "XML entity expansion",
    { names: ["toJson"], path: /^xml2json\.toJson$/ },
    ENTITY_EXPANSION,
  ),
  sink(
    "ldap",
    "CWE-90",
    "LDAP injection",
    { names: ["search"], receiver: /ldap|^client$/i },
    {
      message: "Untrusted data is built into an LDAP search filter.",
      remediation: "Escape input for LDAP filters (RFC 4515: `*`, `(`, `)`, `\\`, NUL) or validate it against an allowlist.",
      severity: "MEDIUM",
      args: [1],
    },
  ),
  sink(
    "template",
    "CWE-1336",
    "Server-side template injection",
    {
      names: ["render", "compile", "renderString", "template"],
      path: /^(ejs|pug|jade|handlebars|Handlebars|nunjucks|lodash|underscore|dot|doT)\.(render|compile|renderString|template)$/,
    },
    {
      message: "Untrusted data is compiled as a server-side template.",
      remediation: "Compile only fixed templates and pass input as template data, never as template source.",
      severity: "CRITICAL",
    },
  ),
  // `text.match(pattern)` / `matchAll` compile a string argument as a regular expression; receivers that are
  // routers or glob matchers (`router.match(path)`, `minimatch.match(…)`) take paths, not patterns.
  sink(
    "regex-string-match",
    "CWE-1333",
    "Regular expression injection",
    { names: ["match", "matchAll"], receiver: /^(?!.*([Rr]oute[rs]?|[Mm]atch(er)?|minimatch|micromatch|picomatch|glob)$)[\w$.]+$/ },
    {
      message: "Untrusted data is compiled as a regular expression by String.prototype.match.",
      remediation: "Escape input before matching (`escape-string-regexp`, `_.escapeRegExp`), or test it as plain text with `includes`.",
      severity: "MEDIUM",
    },
  ),
  // `spawn(cmd, { shell: true })` and `spawn(cmd, args, { shell: true })` (also execFile, execa): the shell parses the command line.
  sink(
    "command-shell-option",
    "CWE-78",
    "OS command injection",
    { names: SHELL_NAMES, path: SHELL_FILE },
    {
      ...SHELL,
      when: { arg: 1, key: "shell", equals: true },
    },
  ),
  sink(
    "command-shell-args",
    "CWE-78",
    "OS command injection",
    { names: SHELL_NAMES, path: SHELL_FILE },
    {
      ...SHELL,
      args: [0, 1],
      when: { arg: 2, key: "shell", equals: true },
    },
  ),
  // shelljs file commands take paths (after an optional `-rf`-style flag).
  sink(
    "path-shelljs",
    "CWE-22",
    "Path traversal",
    { names: SHELLJS_FILES, path: new RegExp(`^shelljs\\.(${SHELLJS_FILES.join("|")})$`) },
    {
      message: "Untrusted data is used as a file path.",
      remediation:
        "Resolve the path against a fixed base directory and check that it stays inside it, or map input to an allowlist of names.",
      args: "all",
    },
  ),
  // Sequelize.literal(sql) puts its text into the statement verbatim (`order: [[literal(x), "DESC"]]`).
  sink(
    "sql-sequelize-literal",
    "CWE-89",
    "SQL injection",
    { names: ["literal"], path: /^(sequelize|Sequelize)\.(Sequelize\.)?literal$/ },
    {
      message: "Untrusted data is built into an SQL fragment Sequelize inserts verbatim.",
      remediation: "Keep literal() fragments constant; pass values through `replacements`/`bind`, and map identifiers from an allowlist.",
    },
  ),
  // `range.createContextualFragment(html)` parses markup and runs its scripts once inserted.
  sink("xss-fragment", "CWE-79", "Cross-site scripting", { names: ["createContextualFragment"] }, XSS),
  // `el.setAttribute("href", x)`: a `javascript:` URL or an event handler attribute runs script.
  sink(
    "xss-set-attribute",
    "CWE-79",
    "Cross-site scripting",
    { names: ["setAttribute"] },
    { ...XSS, args: [1], when: { arg: 0, text: /^(href|srcdoc|action|formaction|xlink:href|on[a-z]+)$/i } },
  ),
  // Angular's Renderer2 writing an element's innerHTML: `renderer.setProperty(el, "innerHTML", html)`.
  sink(
    "xss-angular-renderer",
    "CWE-79",
    "Cross-site scripting",
    { names: ["setProperty"], receiver: /(^|\.)\w*(renderer|Renderer)\d*$/ },
    { ...XSS, args: [2], when: { arg: 1, equals: "innerHTML" } },
  ),
  // hapi's response toolkit sends a string payload as text/html.
  sink("xss-hapi", "CWE-79", "Cross-site scripting", { names: ["response"], receiver: /^h$/ }, XSS),
  // jQuery parses HTML given to these methods, and `$(x)` parses x as HTML when it looks like markup.
  sink(
    "xss-jquery",
    "CWE-79",
    "Cross-site scripting",
    { names: ["html", "append", "prepend", "after", "before", "replaceWith", "wrap", "wrapAll", "wrapInner"], receiver: JQUERY },
    XSS,
  ),
  sink("xss-jquery-selector", "CWE-79", "Cross-site scripting", { names: ["$", "jQuery"], path: /^(\$|jQuery|jquery)$/ }, XSS),
  sink(
    "redirect-next",
    "CWE-601",
    "Open redirect",
    {
      names: ["redirect", "permanentRedirect"],
      path: /^(next\/server\.NextResponse\.|NextResponse\.|Response\.|next\/navigation\.|@remix-run\/(node|cloudflare|deno|server-runtime)\.|react-router(-dom)?\.|@sveltejs\/kit\.)(redirect|permanentRedirect)$/,
    },
    // Next.js and Remix take the URL first; SvelteKit takes the status first: `redirect(302, url)`.
    { ...REDIRECT, severity: "MEDIUM", args: [0, 1] },
  ),
  // Express `res.location(url)` sets the Location header a 3xx status then follows.
  sink(
    "redirect-header",
    "CWE-601",
    "Open redirect",
    { names: ["location"], receiver: /^(res|response)(\.\w+\(.*\))*$/ },
    { ...REDIRECT, severity: "MEDIUM" },
  ),
  // `window.open(url)` navigates a window to the URL, `javascript:` included.
  sink(
    "redirect-window-open",
    "CWE-601",
    "Open redirect",
    { names: ["open"], path: /^window\.open$/ },
    { ...REDIRECT, severity: "MEDIUM" },
  ),
  // `res.render(view, locals)`: escaped by the engine unless the template prints raw (`<%- %>`, `{{{ }}}`, `!{}`): a hint only.
  sink(
    "xss-render",
    "CWE-79",
    "Cross-site scripting (template data)",
    { names: ["render"], receiver: /^(res|response)$/ },
    {
      message: "Untrusted data is passed to a server-side template; it is cross-site scripting where the template prints it unescaped.",
      remediation: "Print it with the engine's escaping form (`<%= %>`, `{{ }}`, `#{}`), or escape it before rendering.",
      severity: "MEDIUM",
      confidence: "LOW",
      args: [1],
    },
  ),
];

export const JAVASCRIPT_APP_FIELD_SINKS: FieldSinkRule[] = [
  // Koa sends a string body as HTML when it starts with `<` (and as text otherwise); an object literal is sent as JSON.
  {
    id: "js-taint-xss-koa-body",
    field: /^body$/,
    object: /^(this\.)?ctx(\.response)?$/,
    notLiteral: true,
    cwe: "CWE-79",
    title: "Cross-site scripting",
    ...XSS,
    severity: "HIGH",
  },
  // `iframe.srcdoc = html`: a whole document in the page's origin.
  { id: "js-taint-xss-srcdoc", field: /^srcdoc$/, cwe: "CWE-79", title: "Cross-site scripting", ...XSS, severity: "HIGH" },
  // `window.location.href = x`: only on the browser's own location object.
  {
    id: "js-taint-redirect-href",
    field: /^href$/,
    object: /^((window|document|self|top)\.)?location$/,
    cwe: "CWE-601",
    title: "Open redirect",
    ...REDIRECT,
    severity: "MEDIUM",
  },
  // Express sessions (express-session, cookie-session): `req.session.user = x`, `req.session[key] = x`.
  {
    id: "js-taint-trust-boundary",
    field: /^\w+$/,
    object: /^(req|request)\.session$/,
    index: true,
    cwe: "CWE-501",
    title: "Trust boundary violation",
    ...TRUST_BOUNDARY,
    severity: "MEDIUM",
  },
];

/**
 * Server-side state hung on the request: reading it is not reading input. The session, and where
 * the server stored an upload (multer `path`/`destination`/`filename`, express-fileupload
 * `tempFilePath`) and its measured `size`; the upload's name, type and contents stay input.
 */
export const JAVASCRIPT_SERVER_STATE =
  /^(req|request)\.session$|^(req|request)\.files?(\.[\w$]+|\[[^\]]*\])?\.(path|destination|filename|tempFilePath|size)$/;

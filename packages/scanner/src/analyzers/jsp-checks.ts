/**
 * The JSP analyzer's checks: what is reported where in a parsed page (jsp-parse.ts), with
 * request data followed by jsp-taint.ts. Output contexts: template text and plain HTML tags
 * are output (XSS), `<c:out>` escapes unless escapeXml="false", other tag libraries' attributes
 * are arguments (`<c:if test>`, `<c:set value>` — the latter taints the variable it sets).
 */
import type { Level } from "@ax/contracts";
import { textCheck, type TextCheck, type TextHit } from "./text-analyzer";
import { parseJsp, type CodePart, type ElPart, type TagContext } from "./jsp-parse";
import {
  assignmentsIn,
  attributesSetIn,
  closingParen,
  elDynamic,
  elTaint,
  javaDynamic,
  javaTaint,
  withoutSafeParts,
  type Taint,
} from "./jsp-taint";

const check = textCheck;

const ENCODE = 'Encode the value for its context (<c:out value="…"/>, fn:escapeXml, or ESAPI/OWASP Encoder in scriptlets).';
export const CHECKS = {
  xssExpression: check("xss-expression", "CWE-79", "Request data written by a JSP expression", "HIGH", ENCODE),
  xssEl: check("xss-el", "CWE-79", "Request data written by an EL expression", "HIGH", ENCODE),
  xssCOut: check("xss-c-out-unescaped", "CWE-79", '<c:out escapeXml="false"> with request data', "HIGH", ENCODE),
  xssScriptlet: check("xss-scriptlet-write", "CWE-79", "Request data written to the page from a scriptlet", "HIGH", ENCODE),
  sql: check(
    "sql-injection",
    "CWE-89",
    "SQL built from request data in a scriptlet",
    "CRITICAL",
    "Use a PreparedStatement with ? placeholders.",
  ),
  command: check(
    "command-injection",
    "CWE-78",
    "OS command built from request data in a scriptlet",
    "CRITICAL",
    "Run a fixed program with validated arguments.",
  ),
  path: check(
    "path-traversal",
    "CWE-22",
    "File path from request data in a scriptlet",
    "HIGH",
    "Map the input to an allowlisted file name and check the canonical path stays in the base directory.",
  ),
  include: check(
    "file-inclusion",
    "CWE-98",
    "Page to include chosen by request data",
    "HIGH",
    "Include only fixed pages, or map the request value to an allowlisted page.",
  ),
  elInjection: check(
    "el-injection",
    "CWE-917",
    "<spring:eval> expression built from request data",
    "CRITICAL",
    "Evaluate only fixed expressions; pass request values as variables, never as expression text.",
  ),
  redirect: check(
    "open-redirect",
    "CWE-601",
    "Redirect to a URL from request data",
    "MEDIUM",
    "Redirect only to relative paths or allowlisted hosts.",
  ),
  header: check(
    "header-injection",
    "CWE-113",
    "Response header or cookie value from request data in a scriptlet",
    "MEDIUM",
    "Validate header and cookie values against an allowlist or strip CR/LF.",
  ),
  trustBoundary: check(
    "trust-boundary",
    "CWE-501",
    "Request data stored in the session from a scriptlet",
    "LOW",
    "Validate values before storing them in the session.",
  ),
  reflection: check(
    "unsafe-reflection",
    "CWE-470",
    "Class loaded by a name from request data in a scriptlet",
    "HIGH",
    "Map the request value to an allowlisted class.",
  ),
  scriptEval: check(
    "script-injection",
    "CWE-95",
    "Script evaluated from request data in a scriptlet",
    "CRITICAL",
    "Evaluate only fixed scripts and pass request values as bindings.",
  ),
  ssrf: check(
    "ssrf",
    "CWE-918",
    "URL fetched from request data in a scriptlet",
    "HIGH",
    "Fetch only allowlisted hosts; never a URL taken from the request.",
  ),
  weakHash: check(
    "weak-hash",
    "CWE-328",
    "Weak hash algorithm (MD5/SHA-1) in a scriptlet",
    "MEDIUM",
    "Use SHA-256 or a password hash (bcrypt, scrypt, Argon2, PBKDF2).",
  ),
  weakCipher: check(
    "weak-cipher",
    "CWE-327",
    "Broken cipher or ECB mode in a scriptlet",
    "HIGH",
    "Use AES/GCM/NoPadding with a fresh random nonce.",
  ),
} as const;

/** Scriptlet calls whose arguments are checked for request data, and what they are. */
const CODE_SINKS: { call: RegExp; check: TextCheck }[] = [
  { call: /(?<![\w.])out\s*\.\s*(?:print|println|write|append|printf|format)\s*\(/g, check: CHECKS.xssScriptlet },
  {
    call: /\b(?:response\s*\.\s*getWriter|pageContext\s*\.\s*getOut)\s*\(\s*\)\s*\.\s*(?:print|println|write|append)\s*\(/g,
    check: CHECKS.xssScriptlet,
  },
  {
    call: /\.\s*(?:executeQuery|executeUpdate|execute|addBatch|prepareStatement|prepareCall|createQuery|createNativeQuery|createSQLQuery)\s*\(/g,
    check: CHECKS.sql,
  },
  { call: /\bRuntime\s*\.\s*getRuntime\s*\(\s*\)\s*\.\s*exec\s*\(|\bnew\s+ProcessBuilder\s*\(/g, check: CHECKS.command },
  {
    call: /\bnew\s+(?:java\.io\.)?(?:File|FileInputStream|FileOutputStream|FileReader|FileWriter|RandomAccessFile)\s*\(|\b(?:Paths\s*\.\s*get|Files\s*\.\s*(?:readAllBytes|readAllLines|readString|lines|newInputStream|newBufferedReader|write|delete|copy|move))\s*\(|\.\s*(?:getResourceAsStream|getRealPath)\s*\(/g,
    check: CHECKS.path,
  },
  { call: /\.\s*getRequestDispatcher\s*\(|\bpageContext\s*\.\s*(?:include|forward)\s*\(/g, check: CHECKS.include },
  { call: /\bresponse\s*\.\s*sendRedirect\s*\(/g, check: CHECKS.redirect },
  { call: /\bnew\s+(?:javax\.servlet\.http\.|jakarta\.servlet\.http\.)?Cookie\s*\(/g, check: CHECKS.header },
  {
    call: /\bsession\s*\.\s*(?:setAttribute|putValue)\s*\(|\brequest\s*\.\s*getSession\s*\([^()]*\)\s*\.\s*(?:setAttribute|putValue)\s*\(/g,
    check: CHECKS.trustBoundary,
  },
  { call: /\bClass\s*\.\s*forName\s*\(|\.\s*loadClass\s*\(/g, check: CHECKS.reflection },
  {
    call: /\b(?:engine|eng|scriptEngine|se|js)\w*\s*\.\s*eval\s*\(|\.\s*getEngineBy\w+\s*\([^()]*\)\s*\.\s*eval\s*\(/gi,
    check: CHECKS.scriptEval,
  },
  { call: /\bnew\s+(?:java\.net\.)?URL\s*\(/g, check: CHECKS.ssrf },
];
/** response.setHeader/addHeader of any header but Location (a redirect, below). */
const HEADER_SINK = /\bresponse\s*\.\s*(?:setHeader|addHeader)\s*\(\s*"(?!Location")[^"]*"\s*,/gi;
const LOCATION_HEADER = /\bresponse\s*\.\s*(?:setHeader|addHeader)\s*\(\s*"Location"\s*,/gi;
const WEAK_HASH = /\bMessageDigest\s*\.\s*getInstance\s*\(\s*"(?:MD2|MD4|MD5|SHA|SHA-?1)"/gi;
const WEAK_CIPHER =
  /\bCipher\s*\.\s*getInstance\s*\(\s*"(?:(?:DES|DESede|TripleDES|RC2|RC4|ARCFOUR|Blowfish)(?:\/[^"]*)?|AES|[^"]*\/ECB(?:\/[^"]*)?)"/gi;

const EL_IGNORED = /<%@\s*page\b[^%]*\bisELIgnored\s*=\s*["']true["']|<jsp:directive\.page\b[^>]*\bisELIgnored\s*=\s*["']true["']/i;

const level = (t: Taint): Level => (t === 2 ? "HIGH" : "MEDIUM");

/** Every finding of one page. */
export function checkPage(text: string): TextHit[] {
  const page = parseJsp(text);
  const hits: TextHit[] = [];
  const vars = new Map<string, Taint>();
  const elNames = new Map<string, Taint>();
  // Scriptlet locals holding fixed text, and EL names a <c:set value="fixed"> binds.
  const javaConstants = new Set<string>();
  const elConstants = new Set(page.tags.flatMap((t) => fixedBinding(t.name, t.text)));
  for (const part of page.code) {
    if (part.kind === "expression") checkExpression(part, vars, javaConstants, hits);
    else checkCode(part, vars, javaConstants, elNames, hits);
  }
  // <%@ page isELIgnored="true" %>: ${…} is template text, written as is.
  if (!EL_IGNORED.test(text)) checkEl(page.el, { names: elNames, constants: elConstants }, tagBodies(text), hits);
  return hits.sort((a, b) => a.offset - b.offset);
}

/** Scriptlet and declaration code: assignments and sinks in order of appearance. */
/** `<c:set var="x" value="fixed"/>`: the variable, when the value holds no expression. */
function fixedBinding(name: string, text: string): string[] {
  if (name.toLowerCase() !== "c:set") return [];
  const v = /\bvar\s*=\s*["']([\w.]+)["']/.exec(text)?.[1];
  const value = /\bvalue\s*=\s*("[^"]*"|'[^']*')/.exec(text)?.[1];
  return v && value && !/[$#]\{|<%/.test(value) ? [v] : [];
}

function checkCode(part: CodePart, vars: Map<string, Taint>, constants: Set<string>, elNames: Map<string, Taint>, hits: TextHit[]): void {
  const code = part.code;
  const events: { offset: number; run: () => void }[] = [];
  for (const a of assignmentsIn(code)) {
    events.push({
      offset: a.offset,
      run: () => {
        const t = javaTaint(a.value, vars);
        vars.set(a.name, a.append ? (Math.max(t, vars.get(a.name) ?? 0) as Taint) : t);
        const fixed = !javaDynamic(a.value, constants) && (!a.append || constants.has(a.name));
        if (fixed) constants.add(a.name);
        else constants.delete(a.name);
      },
    });
  }
  for (const sink of CODE_SINKS) {
    for (const m of code.matchAll(sink.call)) {
      const at = m.index ?? 0;
      events.push({ offset: at, run: () => sinkCall(part, at, at + m[0].length - 1, sink.check, vars, hits) });
    }
  }
  for (const [re, c] of [
    [LOCATION_HEADER, CHECKS.redirect],
    [HEADER_SINK, CHECKS.header],
  ] as const) {
    for (const m of code.matchAll(re)) {
      const at = m.index ?? 0;
      events.push({ offset: at, run: () => sinkCall(part, at, code.lastIndexOf("(", at + m[0].length), c, vars, hits) });
    }
  }
  events.sort((a, b) => a.offset - b.offset).forEach((e) => e.run());
  for (const [re, c] of [
    [WEAK_HASH, CHECKS.weakHash],
    [WEAK_CIPHER, CHECKS.weakCipher],
  ] as const) {
    for (const m of code.matchAll(re)) {
      if (c === CHECKS.weakCipher && /"AES\/(GCM|CBC|CTR|CFB|OFB|CCM)\b/i.test(m[0])) continue;
      hits.push({ check: c, offset: part.start + (m.index ?? 0), confidence: "HIGH", text: m[0] });
    }
  }
  for (const set of attributesSetIn(code)) {
    const t = javaTaint(set.value, vars);
    if (t > 0) elNames.set(set.name, t);
  }
}

function sinkCall(part: CodePart, at: number, open: number, c: TextCheck, vars: Map<string, Taint>, hits: TextHit[]): void {
  const end = closingParen(part.code, open);
  if (end < 0) return;
  const args = part.code.slice(open + 1, end - 1);
  const t = javaTaint(args, vars);
  if (t === 0) return;
  hits.push({ check: c, offset: part.start + at, confidence: level(t), text: part.code.slice(at, end) });
}

/** Tags whose attribute binds a page variable: `<c:set var value>`, `<c:url var value>`, `<c:forEach var items>`. */
const BINDING_ATTRIBUTE: Readonly<Record<string, string>> = {
  "c:set": "value",
  "c:url": "value",
  "spring:url": "value",
  "c:foreach": "items",
  "c:fortokens": "items",
};

/** Tag arguments where any non-constant value counts (weakly): the tag includes, evaluates or writes it raw. */
const DYNAMIC_COUNTS: ReadonlySet<TextCheck> = new Set([CHECKS.include, CHECKS.elInjection, CHECKS.xssCOut]);

/** A tag body that is not output as is: `<c:set var="x">…</c:set>` binds x; escaping tags' bodies are escaped. */
interface TagBody {
  start: number;
  end: number;
  /** The variable the body is assigned to, or null when the body is written escaped. */
  bind: string | null;
  /** Where the body goes instead of the page: `<sql:query>…</sql:query>` is SQL text. */
  check?: TextCheck;
}

/** escapeXml="false" or escapeXml="${false}". */
const UNESCAPED = /\bescapeXml\s*=\s*["']\s*(?:false|\$\{\s*false\s*\})\s*["']/i;

const BODY_TAG = /<(c:set|c:out|spring:escapeBody|sql:query|sql:update)\b((?:[^>"']|"[^"]*"|'[^']*')*?)(?<!\/)>([\s\S]*?)<\/\1\s*>/gi;

function tagBodies(text: string): TagBody[] {
  const out: TagBody[] = [];
  for (const m of text.matchAll(BODY_TAG)) {
    const name = (m[1] ?? "").toLowerCase();
    const attrs = m[2] ?? "";
    const end = (m.index ?? 0) + m[0].lastIndexOf("</");
    const start = end - (m[3] ?? "").length;
    if (name.startsWith("sql:")) {
      out.push({ start, end, bind: null, check: CHECKS.sql });
    } else if (name === "c:set") {
      const v = /\bvar\s*=\s*["']([\w.]+)["']/.exec(attrs)?.[1];
      if (v) out.push({ start, end, bind: v });
    } else if (name === "c:out" ? !UNESCAPED.test(attrs) : /\b(?:htmlEscape|javaScriptEscape)\s*=\s*["']\s*true/i.test(attrs)) {
      out.push({ start, end, bind: null });
    }
  }
  return out;
}

/** What writing a value in this tag context means: output, an include, a redirect, or nothing. */
function contextCheck(tag: TagContext | null, xss: TextCheck): TextCheck | null {
  if (!tag) return xss;
  const name = tag.name.toLowerCase();
  if (!name.includes(":")) return xss;
  if ((name === "jsp:include" || name === "jsp:forward") && tag.attribute === "page") return CHECKS.include;
  if (name === "c:import" && tag.attribute === "url") return CHECKS.include;
  if (name === "c:redirect" && tag.attribute === "url") return CHECKS.redirect;
  // Spring's eval tag evaluates its attribute as SpEL: request data there is code.
  if (name === "spring:eval" && tag.attribute === "expression") return CHECKS.elInjection;
  if (name === "c:out" && tag.attribute === "value" && UNESCAPED.test(tag.text)) return CHECKS.xssCOut;
  // JSTL SQL tags run their sql attribute; <fmt:param> values are written into the message unescaped.
  if ((name === "sql:query" || name === "sql:update") && tag.attribute === "sql") return CHECKS.sql;
  if (name === "fmt:param" && tag.attribute === "value") return xss;
  // <spring:message text|arguments="…" htmlEscape="false"/> writes the message unescaped.
  const springText = name === "spring:message" && (tag.attribute === "text" || tag.attribute === "arguments");
  if (springText && /\bhtmlEscape\s*=\s*["']\s*false\s*["']/i.test(tag.text)) return xss;
  return null;
}

function checkExpression(part: CodePart, vars: Map<string, Taint>, constants: ReadonlySet<string>, hits: TextHit[]): void {
  const c = contextCheck(part.tag, CHECKS.xssExpression);
  if (!c) return;
  let t = javaTaint(part.code, vars);
  if (t === 0 && DYNAMIC_COUNTS.has(c) && javaDynamic(part.code, constants)) t = 1;
  if (t > 0) hits.push({ check: c, offset: part.start, confidence: level(t), text: `<%=${part.code}%>` });
}

/**
 * EL in page order: binding tags (`<c:set var value>`, `<c:url>`, `<c:forEach items>`) and
 * `<c:set var>` bodies taint or clear their variable; escaping tags' bodies are skipped;
 * output contexts are checked.
 */
function checkEl(
  parts: ElPart[],
  el: { names: Map<string, Taint>; constants: ReadonlySet<string> },
  bodies: TagBody[],
  hits: TextHit[],
): void {
  const names = el.names;
  const bodyTaint = new Map<TagBody, Taint>();
  for (const part of parts) {
    const tag = part.tag;
    const tagName = tag?.name.toLowerCase() ?? "";
    const bound = BINDING_ATTRIBUTE[tagName];
    if (tag && bound && tag.attribute === bound) {
      const v = /\bvar\s*=\s*["']([\w.]+)["']/.exec(tag.text)?.[1];
      if (v) names.set(v, elTaint(part.expr, names));
      continue;
    }
    const body = tag ? undefined : bodies.find((b) => b.start <= part.start && part.start < b.end);
    if (body && !body.check) {
      if (body.bind === null) continue;
      const t = Math.max(bodyTaint.get(body) ?? 0, elTaint(withoutSafeParts(part.expr), names)) as Taint;
      bodyTaint.set(body, t);
      names.set(body.bind, t);
      continue;
    }
    const c = body?.check ?? contextCheck(tag, CHECKS.xssEl);
    if (!c) continue;
    // A ternary writes its branches only.
    const written = withoutSafeParts(part.expr);
    let t = elTaint(written, names);
    if (t === 0 && DYNAMIC_COUNTS.has(c) && elDynamic(written, el.constants)) t = 1;
    if (t > 0) hits.push({ check: c, offset: part.start, confidence: level(t), text: `\${${part.expr}}` });
  }
}

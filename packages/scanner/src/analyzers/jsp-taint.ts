/**
 * Request data in JSP pages, for the JSP analyzer: which scriptlet variables and EL names hold
 * it, and whether an expression still carries it once escaping calls, comparisons and tests
 * are taken out. Line-level and order-aware within a page, nothing more: a page is read top
 * to bottom, and so is its Java code.
 */

/** 2: request parameters, headers, cookies, the query string or path; 1: request attributes. */
export type Taint = 0 | 1 | 2;

/** Servlet request getters (scriptlet code). getAttribute is weaker: a servlet may have set it. */
const STRONG_SOURCE =
  /\b(?:request|pageContext\s*\.\s*getRequest\s*\(\s*\))\s*\.\s*(getParameter(?:Values|Map|Names)?|getHeaders?|getQueryString|getCookies|getRequestURI|getRequestURL|getPathInfo|getInputStream|getReader|getPart)\s*\(/;
const WEAK_SOURCE = /\brequest\s*\.\s*getAttribute\s*\(/;
/** EL implicit objects holding request data. */
const EL_STRONG =
  /(?<![\w.$])(param|paramValues|header|headerValues|cookie)\s*[.[]|pageContext\s*\.\s*request\s*\.\s*(queryString|requestURI|requestURL|pathInfo)\b/;
const EL_WEAK = /(?<![\w.$])requestScope\s*[.[]/;

/** Calls whose result no longer carries markup, quotes or path characters. */
const SANITIZER_CALL = new RegExp(
  [
    String.raw`\bESAPI\s*\.\s*encoder\s*\(\s*\)\s*\.\s*(?:encodeFor\w+|canonicalize)`,
    String.raw`\bEncode\s*\.\s*for\w+`,
    String.raw`\bStringEscapeUtils\s*\.\s*escape\w+`,
    String.raw`\bHtmlUtils\s*\.\s*htmlEscape\w*`,
    String.raw`\bURLEncoder\s*\.\s*encode`,
    String.raw`\b(?:Integer|Long|Short|Double|Float|Boolean)\s*\.\s*(?:parse\w+|valueOf)`,
    String.raw`\bFilenameUtils\s*\.\s*getName`,
    String.raw`(?<![\w.])(?:escapeHtml\w*|escapeXml\w*|htmlEncode|encodeHtml\w*|encodeForHTML\w*|sanitize\w*)`,
    String.raw`\bfn\s*:\s*(?:escapeXml|length|contains|containsIgnoreCase|startsWith|endsWith|indexOf)`,
    // encoder.encodeForHTML(x), policy.sanitize(x), Jsoup.clean(x): encoder and sanitizer objects
    String.raw`\.\s*(?:encodeFor\w+|escapeHtml\w*|escapeXml\w*|htmlEscape\w*|forHtml\w*|sanitize\w*)`,
    String.raw`\bJsoup\s*\.\s*clean`,
    // x.equals("a"), x.length(), x.isEmpty(): booleans and numbers
    String.raw`[\w$.]+(?:\(\s*\))?\s*\.\s*(?:equals|equalsIgnoreCase|contains|startsWith|endsWith|matches|isEmpty|length|size|hashCode|indexOf|compareTo)`,
  ].join("|"),
  "g",
);

/** Index just after the parenthesis that closes the one at `open`, or -1. */
export function closingParen(text: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return -1;
}

/** String literal contents blanked, so names inside them are not read as variables. */
export function blankStrings(code: string): string {
  return code.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (s) => `${s[0]}${" ".repeat(Math.max(0, s.length - 2))}${s[0]}`);
}

/** The expression with sanitizer calls, comparisons and null/empty tests replaced by 0. */
export function withoutSafeParts(expr: string): string {
  let out = expr;
  for (let guard = 0; guard < 50; guard++) {
    SANITIZER_CALL.lastIndex = 0;
    let changed = false;
    for (const m of out.matchAll(SANITIZER_CALL)) {
      const at = (m.index ?? 0) + m[0].length;
      const open = out.slice(at).search(/\S/) + at;
      if (out[open] !== "(") continue;
      const end = closingParen(out, open);
      if (end < 0) continue;
      out = `${out.slice(0, m.index)}0${out.slice(end)}`;
      changed = true;
      break;
    }
    if (!changed) break;
  }
  // a name, literal or call: x, 'a', request.getParameter("id"), s.trim().length()
  const operand = String.raw`[\w$.\[\]'"]+(?:\([^()]*\)[\w$.]*)*`;
  return out
    .replace(new RegExp(String.raw`${operand}\s*(?:==|!=|<=|>=|<|>|\b(?:eq|ne|lt|gt|le|ge)\b)\s*${operand}`, "g"), "0")
    .replace(new RegExp(String.raw`\b(?:empty|not\s+empty)\s+${operand}`, "g"), "0")
    .replace(/\binstanceof\s+[\w.]+/g, "");
}

function namesIn(expr: string, vars: ReadonlyMap<string, Taint>): Taint {
  let level: Taint = 0;
  for (const m of expr.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)(?![\w$])(?!\s*\()/g)) {
    const t = vars.get(m[1] as string) ?? 0;
    if (t > level) level = t;
  }
  return level;
}

/** How strongly a Java expression carries request data, given the tainted locals. */
export function javaTaint(expr: string, vars: ReadonlyMap<string, Taint>): Taint {
  const code = withoutSafeParts(blankStrings(expr));
  if (STRONG_SOURCE.test(code)) return 2;
  const fromVars = namesIn(code, vars);
  if (fromVars === 2) return 2;
  return WEAK_SOURCE.test(code) ? 1 : fromVars;
}

/** How strongly an EL expression carries request data, given EL names set from it. */
export function elTaint(expr: string, names: ReadonlyMap<string, Taint>): Taint {
  const code = withoutSafeParts(expr.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''"));
  if (EL_STRONG.test(code)) return 2;
  const fromNames = namesIn(code, names);
  if (fromNames === 2) return 2;
  return EL_WEAK.test(code) ? 1 : fromNames;
}

/** EL words that are operators or literals, not names. */
const EL_WORDS = new Set([
  "true",
  "false",
  "null",
  "empty",
  "not",
  "and",
  "or",
  "eq",
  "ne",
  "lt",
  "gt",
  "le",
  "ge",
  "div",
  "mod",
  "instanceof",
]);

/**
 * Whether an EL expression reads any name at all (a model attribute, a bean, a scoped
 * variable) once literals, escaping calls and tests are taken out: in a tag that includes,
 * imports or evaluates its argument, such a value is not fixed text. Names the page set to
 * fixed text (`constants`) do not count.
 */
export function elDynamic(expr: string, constants: ReadonlySet<string> = new Set()): boolean {
  const code = withoutSafeParts(expr.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''"))
    .replace(/\bpageContext\s*\.\s*(?:request\s*\.\s*)?(?:contextPath|servletContext\s*\.\s*contextPath)\b/g, "")
    .replace(/\b\w+\s*:\s*\w+\s*\(/g, "(");
  for (const m of code.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)/g)) {
    const name = m[1] as string;
    if (!EL_WORDS.has(name) && !constants.has(name)) return true;
  }
  return false;
}

/** The same for a Java expression: any name or call left besides literals, safe calls and locals holding fixed text. */
export function javaDynamic(expr: string, constants: ReadonlySet<string> = new Set()): boolean {
  const code = withoutSafeParts(blankStrings(expr))
    .replace(/"[^"]*"|'[^']*'/g, "")
    .replace(/\brequest\s*\.\s*getContextPath\s*\(\s*\)/g, "");
  for (const m of code.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) {
    if (!/^(?:true|false|null|new)$/.test(m[0]) && !constants.has(m[0])) return true;
  }
  return false;
}

const ASSIGNMENT = /(?<![\w$.])(?:final\s+)?(?:[\w$.]+(?:<[^<>;]*>)?(?:\[\])*\s+)?([A-Za-z_$][\w$]*)\s*(\+=|=)(?!=)([^;]*);/g;
const FOR_EACH = /\bfor\s*\(\s*(?:final\s+)?[\w$.<>[\]]+\s+([A-Za-z_$][\w$]*)\s*:\s*([^)]*(?:\([^)]*\))?[^)]*)\)/g;
const SET_ATTRIBUTE = /\b(?:pageContext|request|session|application)\s*\.\s*setAttribute\s*\(\s*"([\w.]+)"\s*,/g;

export interface Assignment {
  offset: number;
  name: string;
  append: boolean;
  value: string;
}

/** Assignments and for-each bindings of a piece of Java code, in order. */
export function assignmentsIn(code: string): Assignment[] {
  const out: Assignment[] = [];
  const scan = blankStrings(code);
  for (const m of scan.matchAll(ASSIGNMENT)) {
    const valueStart = (m.index ?? 0) + m[0].length - 1 - (m[3] ?? "").length;
    out.push({
      offset: m.index ?? 0,
      name: m[1] as string,
      append: m[2] === "+=",
      value: code.slice(valueStart, valueStart + (m[3] ?? "").length),
    });
  }
  for (const m of scan.matchAll(FOR_EACH)) out.push({ offset: m.index ?? 0, name: m[1] as string, append: false, value: m[2] ?? "" });
  return out.sort((a, b) => a.offset - b.offset);
}

/** `pageContext.setAttribute("name", value)` and friends: EL names set from Java values. */
export function attributesSetIn(code: string): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const m of code.matchAll(SET_ATTRIBUTE)) {
    const open = code.lastIndexOf("(", (m.index ?? 0) + m[0].length);
    const end = closingParen(code, open);
    if (end < 0) continue;
    out.push({ name: m[1] as string, value: code.slice((m.index ?? 0) + m[0].length, end - 1) });
  }
  return out;
}

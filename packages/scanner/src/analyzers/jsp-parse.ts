/**
 * A small JSP reader for the JSP analyzer (jsp.ts): splits a page into the parts that matter
 * for security, with their offsets. There is no JSP grammar in ast-grep, and a page is mostly
 * template text, so a linear scan is enough:
 *
 * - Java code: scriptlets `<% … %>`, expressions `<%= … %>`, declarations `<%! … %>` and their
 *   XML forms (`<jsp:scriptlet>`, `<jsp:expression>`, `<jsp:declaration>`, entities decoded).
 * - EL expressions `${…}` / `#{…}` in template text and in tag attributes (`\${` is literal).
 * - Tags `<name attr="…">`, with the attribute each expression sits in, so the analyzer can
 *   tell output (template text, HTML attributes) from tag arguments (`<c:out value>`,
 *   `<c:if test>`, `<jsp:include page>`).
 *
 * Comments (`<%-- --%>`, `<!-- -->` is kept: browsers ignore it but the server still renders
 * expressions in it) and directives `<%@ … %>` are skipped.
 */
import { lineOf, lineStarts } from "./secrets";

export type CodeKind = "scriptlet" | "expression" | "declaration";

/** The tag an expression sits in, and in which attribute. */
export interface TagContext {
  /** Tag name as written, e.g. `c:out`, `jsp:include`, `a`. */
  name: string;
  /** The whole start tag's text. */
  text: string;
  /** The attribute whose value holds the expression, lower-cased, or null. */
  attribute: string | null;
}

export interface CodePart {
  kind: CodeKind;
  /** Offset of the code's first character in the page. */
  start: number;
  /** The Java code (XML entities decoded for the jsp:* forms). */
  code: string;
  tag: TagContext | null;
}

export interface ElPart {
  start: number;
  /** The expression between the braces. */
  expr: string;
  tag: TagContext | null;
}

export interface JspPage {
  code: CodePart[];
  el: ElPart[];
  /** Start tags in order (for <c:set>, <c:out>, …), with their offsets. */
  tags: { name: string; start: number; text: string }[];
}

const XML_CODE = /<jsp:(scriptlet|expression|declaration)\s*>([\s\S]*?)<\/jsp:\1\s*>/y;
const TAG_NAME = /<([A-Za-z][\w.-]*(?::[\w.-]+)?)/y;

export function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_m, e: string) => ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" })[e] ?? _m);
}

/** Reads a page. Never throws; unterminated constructs run to the end of the text. */
export function parseJsp(text: string): JspPage {
  const page: JspPage = { code: [], el: [], tags: [] };
  let i = 0;
  while (i < text.length) {
    const next = scanTemplate(text, i, page, null);
    if (next <= i) i++;
    else i = next;
  }
  return page;
}

/**
 * Reads from `i` until the construct at `i` ends: returns the offset after it. In template text
 * (`tag` null) one construct is read per call; inside a tag the caller stops at `>`.
 */
function scanTemplate(text: string, i: number, page: JspPage, tag: TagContext | null): number {
  if (text.startsWith("<%--", i)) return endOf(text, "--%>", i + 4);
  if (text.startsWith("<%@", i)) return endOf(text, "%>", i + 3);
  if (text.startsWith("<%", i)) return readCode(text, i, page, tag);
  if ((text[i] === "$" || text[i] === "#") && text[i + 1] === "{" && text[i - 1] !== "\\") return readEl(text, i, page, tag);
  if (tag === null && text[i] === "<") {
    XML_CODE.lastIndex = i;
    const xml = XML_CODE.exec(text);
    if (xml) {
      const kind = xml[1] as CodeKind;
      const body = xml[2] ?? "";
      page.code.push({ kind, start: i + xml[0].indexOf(">") + 1, code: decodeEntities(body), tag: null });
      return i + xml[0].length;
    }
    TAG_NAME.lastIndex = i;
    const m = TAG_NAME.exec(text);
    if (m?.[1]) return readTag(text, i, m[1], page);
  }
  return i + 1;
}

function endOf(text: string, closer: string, from: number): number {
  const at = text.indexOf(closer, from);
  return at < 0 ? text.length : at + closer.length;
}

function readCode(text: string, i: number, page: JspPage, tag: TagContext | null): number {
  const marker = text[i + 2];
  const kind: CodeKind = marker === "=" ? "expression" : marker === "!" ? "declaration" : "scriptlet";
  const start = i + (kind === "scriptlet" ? 2 : 3);
  const close = text.indexOf("%>", start);
  const end = close < 0 ? text.length : close;
  page.code.push({ kind, start, code: text.slice(start, end), tag });
  return close < 0 ? text.length : close + 2;
}

function readEl(text: string, i: number, page: JspPage, tag: TagContext | null): number {
  let depth = 0;
  let quote: string | null = null;
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (quote) {
      if (c === "\\") j++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      page.el.push({ start: i, expr: text.slice(i + 2, j), tag });
      return j + 1;
    }
  }
  return text.length;
}

/** A start or end tag: attributes are read with their quotes, code and EL inside them recorded. */
function readTag(text: string, i: number, name: string, page: JspPage): number {
  const inners: TagContext[] = [];
  const record = { name, start: i, text: "" };
  page.tags.push(record);
  let j = i + 1 + name.length;
  let quote: string | null = null;
  let lastAttribute: string | null = null;
  while (j < text.length) {
    const c = text[j];
    if (!quote && c === ">") {
      j++;
      break;
    }
    if (text.startsWith("<%", j) || ((c === "$" || c === "#") && text[j + 1] === "{")) {
      const inner: TagContext = { name, text: "", attribute: quote ? lastAttribute : null };
      const before = page.code.length + page.el.length;
      const next = scanTemplate(text, j, page, inner);
      if (page.code.length + page.el.length > before) inners.push(inner);
      j = Math.max(next, j + 1);
      continue;
    }
    // A custom tag nested in an attribute value: <a href="<c:url value="${…}"/>">.
    TAG_NAME.lastIndex = j;
    const nested = c === "<" ? TAG_NAME.exec(text) : null;
    if (nested?.[1]?.includes(":")) {
      j = readTag(text, j, nested[1], page);
      continue;
    }
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
      const m = /([\w:.-]+)\s*=\s*$/.exec(text.slice(Math.max(i, j - 80), j));
      lastAttribute = m?.[1]?.toLowerCase() ?? null;
    }
    j++;
  }
  record.text = text.slice(i, j);
  for (const inner of inners) inner.text = record.text;
  // A script or style element's body is template text too; nothing to skip.
  return j;
}

/** 1-based line of an offset, from a table of line starts built once per page. */
export function lineLocator(text: string): (offset: number) => number {
  const starts = lineStarts(text);
  return (offset) => lineOf(starts, offset) + 1;
}

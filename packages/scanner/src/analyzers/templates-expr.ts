/**
 * What the templates analyzer asks of the expression a template outputs: is it a constant,
 * does the template pass it through an escaper or sanitizer it names, and does its name say it
 * comes from the request or from a user (HIGH confidence) or not (MEDIUM).
 */
import type { Level } from "@ax/contracts";

/** A single string, number or keyword literal: `'<b>x</b>'`, `"a"`, `42`, `true`. */
export function isLiteral(expr: string): boolean {
  const e = expr.trim();
  if (/^(['"])(?:(?!\1)[^\\]|\\.)*\1$/s.test(e)) return true;
  if (/^`[^`$]*`$/.test(e)) return true;
  return /^(?:-?\d+(?:\.\d+)?|true|false|null|undefined|none|None|True|False)$/.test(e);
}

/** Calls that sanitize or escape HTML in the template's own expression language. */
const SANITIZER_CALL =
  /(?:^|[^\w$])(?:DOMPurify\s*\.\s*sanitize|\$sanitize|sanitize\w*|purify\w*|xss|filterXSS|escape\w*|encodeForHTML\w*|htmlEscape|strip_?tags|bleach\s*\.\s*clean|clean_html|marked\s*\.\s*parseInline\s*\(\s*DOMPurify)\s*\(/i;

/** Filters (Jinja/Django/Nunjucks/Twig/Liquid) and built-ins (FreeMarker) that escape or neutralize. */
const ESCAPING_FILTERS = new Set([
  "e",
  "escape",
  "forceescape",
  "force_escape",
  "striptags",
  "escapejs",
  "escape_js",
  "urlencode",
  "url_encode",
  "tojson",
  "json_encode",
  "json_script",
  "sanitize",
  "sanitize_html",
  "bleach",
  "clean",
  "int",
  "float",
  "length",
  "count",
  "abs",
  "round",
  "filesizeformat",
]);

/** The filter names of a `value | f1 | f2(arg)` chain, after the value. */
export function filtersOf(expr: string): string[] {
  return splitTopLevel(expr, "|")
    .slice(1)
    .map((f) => (/^\s*([\w.]+)/.exec(f)?.[1] ?? "").toLowerCase());
}

/** The value of a filter chain, before the first top-level `|`. */
export function valueOf(expr: string): string {
  return splitTopLevel(expr, "|")[0] ?? "";
}

/** Does the template escape or sanitize the value itself (a call, or an escaping filter)? */
export function isSanitized(expr: string): boolean {
  if (SANITIZER_CALL.test(expr)) return true;
  return filtersOf(expr).some((f) => ESCAPING_FILTERS.has(f));
}

/** Names that say the value comes from the request or from a user. */
const USER_DATA =
  /(?:^|[^\w$])(?:req|request|params|param|query|\$route\s*\.\s*(?:query|params)|user|users|comment|comments|body|input|userInput|user_input)\b/;

export function confidenceOf(expr: string): Level {
  return USER_DATA.test(expr) ? "HIGH" : "MEDIUM";
}

/** Splits at `sep` outside parentheses, brackets and quotes (`||` is never a split point). */
export function splitTopLevel(expr: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = "";
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] as string;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
    } else if (c === "'" || c === '"' || c === "`") quote = c;
    else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (c === sep && depth === 0 && expr[i + 1] !== sep && expr[i - 1] !== sep) {
      parts.push(expr.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(expr.slice(start));
  return parts;
}

/** Replaces [start, end) with spaces, keeping line breaks (so offsets and lines stay put). */
export function blank(text: string, re: RegExp): string {
  return text.replace(re, (m) => m.replace(/[^\r\n]/g, " "));
}

/**
 * The JSP analyzer: JavaServer Pages (.jsp, .jspx, .jspf, .tag) read in-process, since
 * ast-grep has no JSP grammar. It reports, by line, request data written to the page (JSP
 * expressions, EL in template text and HTML attributes, `<c:out escapeXml="false">`,
 * `out.print` in scriptlets), scriptlet SQL/command/path/header/session/reflection/script/URL
 * sinks built from request data, includes and redirects chosen by request data (and includes,
 * `<spring:eval>` and unescaped `<c:out>` given any non-constant value), and weak
 * hashes/ciphers in scriptlets. See
 * jsp-checks.ts for the contexts and jsp-taint.ts for what counts as request data and as
 * escaped.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { checkPage } from "./jsp-checks";
import type { Taxonomy } from "./taxonomy";
import { scanText, textAnalyzer, type TextAnalyzerSpec } from "./text-analyzer";
import type { Analyzer } from "./types";

export const JSP_ANALYZER = "jsp";
/** Bump when checks change: part of the cache key. */
export const JSP_ANALYZER_VERSION = "3";

const JSP: TextAnalyzerSpec = {
  name: JSP_ANALYZER,
  version: JSP_ANALYZER_VERSION,
  language: "jsp",
  maxBytes: 2 * 1024 * 1024,
  check: (_file, text) => checkPage(text),
};

export function jspAnalyzer(): Analyzer {
  return textAnalyzer(JSP);
}

/** The findings of one page's text (one per check and line). Exported for tests. */
export function scanJspText(file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  return scanText(JSP, file, text, taxonomy);
}

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
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { buildFinding } from "./finding";
import { checkPage, type JspHit } from "./jsp-checks";
import { lineLocator } from "./jsp-parse";
import { cap, isTestPath, lowerLevel, repoPath } from "./normalize";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { AnalyzerOutputLimitError, AnalyzerTimeoutError, type Analyzer, type AnalyzerContext } from "./types";

export const JSP_ANALYZER = "jsp";
/** Bump when checks change: part of the cache key. */
export const JSP_ANALYZER_VERSION = "3";
const MAX_JSP_BYTES = 2 * 1024 * 1024;

export function jspAnalyzer(): Analyzer {
  return {
    name: JSP_ANALYZER,
    languages: ["jsp"],
    cacheable: true,
    version: async () => JSP_ANALYZER_VERSION,
    run: (ctx) => scanPages(ctx),
  };
}

async function scanPages(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const taxonomy = await loadTaxonomy();
  const deadline = Date.now() + ctx.timeoutMs;
  const findings: NormalizedFinding[] = [];
  let outputBytes = 0;
  for (const file of ctx.files) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof AnalyzerTimeoutError ? ctx.signal.reason : new ScanAbortedError();
    if (Date.now() > deadline) throw new AnalyzerTimeoutError(`jsp did not finish within ${formatDuration(ctx.timeoutMs)}.`);
    const text = await readPage(ctx.dir, file);
    if (text === null) continue;
    for (const f of scanJspText(file, text, taxonomy)) {
      outputBytes += JSON.stringify(f).length;
      findings.push(f);
    }
    if (outputBytes > ctx.maxOutputBytes) {
      throw new AnalyzerOutputLimitError(
        `jsp produced more than ${formatBytes(ctx.maxOutputBytes)} of findings; ${findings.length} findings were kept and the rest dropped.`,
        findings,
      );
    }
  }
  return findings;
}

async function readPage(dir: string, file: string): Promise<string | null> {
  if (repoPath(file) !== file) return null;
  const full = join(dir, file);
  const info = await lstat(full).catch(() => null);
  if (!info?.isFile() || info.size === 0 || info.size > MAX_JSP_BYTES) return null;
  const bytes = await readFile(full).catch(() => null);
  if (!bytes || bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString("utf8");
}

/** The findings of one page's text (one per check and line). Exported for tests. */
export function scanJspText(file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  const lineOf = lineLocator(text);
  const lines = text.split(/\r?\n/);
  const seen = new Set<string>();
  const testPath = isTestPath(file);
  const out: NormalizedFinding[] = [];
  for (const hit of checkPage(text)) {
    const line = lineOf(hit.offset);
    const key = `${hit.check.id}:${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(toFinding(file, hit, line, lines[line - 1] ?? "", testPath, taxonomy));
  }
  return out;
}

function toFinding(file: string, hit: JspHit, line: number, lineText: string, testPath: boolean, taxonomy: Taxonomy): NormalizedFinding {
  const shown = cap(hit.text.replace(/\s+/g, " ").trim(), 200);
  const column = Math.max(1, lineText.indexOf(shown.slice(0, 20)) + 1);
  return buildFinding(
    {
      analyzer: JSP_ANALYZER,
      rule_id: `${JSP_ANALYZER}.${hit.check.id}`,
      title: hit.check.title,
      message: `${hit.check.title}: ${shown}`,
      cwe_id: hit.check.cwe,
      file,
      start_line: line,
      start_column: column,
      snippet: lineText.trim(),
      severity: hit.check.severity,
      confidence: testPath ? lowerLevel(hit.confidence) : hit.confidence,
      remediation: hit.check.remediation,
      raw: { check: hit.check.id, text: shown, test_path: testPath },
    },
    taxonomy,
  );
}

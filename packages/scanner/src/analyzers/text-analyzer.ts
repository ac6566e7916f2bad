/**
 * Analyzers that read files as text in-process, for languages ast-grep has no grammar for
 * (jsp.ts, templates.ts): the file loop with its deadline, cancellation and output cap, a
 * read that skips links, binaries and oversized files, and one finding per check and line.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Level, NormalizedFinding, Severity } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { buildFinding } from "./finding";
import { lineLocator } from "./jsp-parse";
import { cap, isTestPath, lowerLevel, repoPath } from "./normalize";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { AnalyzerOutputLimitError, AnalyzerTimeoutError, type Analyzer, type AnalyzerContext } from "./types";

/** What one check reports: its id (the rule id's suffix), CWE, title, severity and remediation. */
export interface TextCheck {
  id: string;
  cwe: string;
  title: string;
  severity: Severity;
  remediation: string;
}

export interface TextHit {
  check: TextCheck;
  /** Offset in the file where the reported expression or call starts. */
  offset: number;
  confidence: Level;
  /** The expression or call, for the message and the fingerprint. */
  text: string;
}

export const textCheck = (id: string, cwe: string, title: string, severity: Severity, remediation: string): TextCheck => ({
  id,
  cwe,
  title,
  severity,
  remediation,
});

export interface TextAnalyzerSpec {
  name: string;
  /** Bump when checks change: part of the cache key. */
  version: string;
  language: string;
  maxBytes: number;
  /** Files not to read (third-party copies) or texts not to judge (minified output). */
  skipPath?: (file: string) => boolean;
  skipText?: (text: string) => boolean;
  check: (file: string, text: string) => Iterable<TextHit>;
}

export function textAnalyzer(spec: TextAnalyzerSpec): Analyzer {
  return {
    name: spec.name,
    languages: [spec.language],
    cacheable: true,
    version: async () => spec.version,
    run: (ctx) => scanFiles(spec, ctx),
  };
}

async function scanFiles(spec: TextAnalyzerSpec, ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const taxonomy = await loadTaxonomy();
  const deadline = Date.now() + ctx.timeoutMs;
  const findings: NormalizedFinding[] = [];
  let outputBytes = 0;
  for (const file of ctx.files) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof AnalyzerTimeoutError ? ctx.signal.reason : new ScanAbortedError();
    if (Date.now() > deadline) throw new AnalyzerTimeoutError(`${spec.name} did not finish within ${formatDuration(ctx.timeoutMs)}.`);
    const text = await readText(spec, ctx.dir, file);
    if (text === null) continue;
    for (const f of scanText(spec, file, text, taxonomy)) {
      outputBytes += JSON.stringify(f).length;
      findings.push(f);
    }
    if (outputBytes > ctx.maxOutputBytes) {
      throw new AnalyzerOutputLimitError(
        `${spec.name} produced more than ${formatBytes(ctx.maxOutputBytes)} of findings; ${findings.length} findings were kept and the rest dropped.`,
        findings,
      );
    }
  }
  return findings;
}

async function readText(spec: TextAnalyzerSpec, dir: string, file: string): Promise<string | null> {
  if (repoPath(file) !== file || spec.skipPath?.(file)) return null;
  const full = join(dir, file);
  const info = await lstat(full).catch(() => null);
  if (!info?.isFile() || info.size === 0 || info.size > spec.maxBytes) return null;
  const bytes = await readFile(full).catch(() => null);
  if (!bytes || bytes.subarray(0, 8192).includes(0)) return null;
  const text = bytes.toString("utf8");
  return spec.skipText?.(text) ? null : text;
}

/** The findings of one file's text (one per check and line). */
export function scanText(spec: TextAnalyzerSpec, file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  const lineOf = lineLocator(text);
  const lines = text.split(/\r?\n/);
  const seen = new Set<string>();
  const testPath = isTestPath(file);
  const out: NormalizedFinding[] = [];
  for (const hit of spec.check(file, text)) {
    const line = lineOf(hit.offset);
    const key = `${hit.check.id}:${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(toFinding(spec.name, file, hit, line, lines[line - 1] ?? "", testPath, taxonomy));
  }
  return out;
}

function toFinding(
  analyzer: string,
  file: string,
  hit: TextHit,
  line: number,
  lineText: string,
  testPath: boolean,
  taxonomy: Taxonomy,
): NormalizedFinding {
  const shown = cap(hit.text.replace(/\s+/g, " ").trim(), 200);
  const column = Math.max(1, lineText.indexOf(shown.slice(0, 20)) + 1);
  return buildFinding(
    {
      analyzer,
      rule_id: `${analyzer}.${hit.check.id}`,
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

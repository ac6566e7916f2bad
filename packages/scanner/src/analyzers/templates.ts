/**
 * The templates analyzer: view templates of engines other than JSP (Vue and Svelte components,
 * EJS, Handlebars/Mustache, Jinja2/Django/Nunjucks, Twig, Thymeleaf, FreeMarker) read
 * in-process. It reports, by line, the constructs that switch the engine's auto-escaping off
 * on a dynamic value, EJS includes of a non-literal path, and interpolations in event-handler
 * and URL attributes, where HTML escaping does not help. See templates-checks.ts.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { buildFinding } from "./finding";
import { lineLocator } from "./jsp-parse";
import { cap, isTestPath, lowerLevel, repoPath } from "./normalize";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { checkTemplate, type TemplateHit } from "./templates-checks";
import { AnalyzerOutputLimitError, AnalyzerTimeoutError, type Analyzer, type AnalyzerContext } from "./types";

export const TEMPLATES_ANALYZER = "templates";
/** Bump when checks change: part of the cache key. */
export const TEMPLATES_ANALYZER_VERSION = "2";
const MAX_TEMPLATE_BYTES = 1024 * 1024;

export function templatesAnalyzer(): Analyzer {
  return {
    name: TEMPLATES_ANALYZER,
    languages: ["template"],
    cacheable: true,
    version: async () => TEMPLATES_ANALYZER_VERSION,
    run: (ctx) => scanTemplates(ctx),
  };
}

async function scanTemplates(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const taxonomy = await loadTaxonomy();
  const deadline = Date.now() + ctx.timeoutMs;
  const findings: NormalizedFinding[] = [];
  let outputBytes = 0;
  for (const file of ctx.files) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof AnalyzerTimeoutError ? ctx.signal.reason : new ScanAbortedError();
    if (Date.now() > deadline) throw new AnalyzerTimeoutError(`templates did not finish within ${formatDuration(ctx.timeoutMs)}.`);
    const text = await readTemplate(ctx.dir, file);
    if (text === null) continue;
    for (const f of scanTemplateText(file, text, taxonomy)) {
      outputBytes += JSON.stringify(f).length;
      findings.push(f);
    }
    if (outputBytes > ctx.maxOutputBytes) {
      throw new AnalyzerOutputLimitError(
        `templates produced more than ${formatBytes(ctx.maxOutputBytes)} of findings; ${findings.length} findings were kept and the rest dropped.`,
        findings,
      );
    }
  }
  return findings;
}

/** Third-party and built copies: findings there are not the project's to fix. */
const SKIPPED_PATH = /(?:^|\/)(?:node_modules|bower_components|vendor|dist|build|public\/assets)\/|\.min\.\w+$/;

async function readTemplate(dir: string, file: string): Promise<string | null> {
  if (repoPath(file) !== file || SKIPPED_PATH.test(file)) return null;
  const full = join(dir, file);
  const info = await lstat(full).catch(() => null);
  if (!info?.isFile() || info.size === 0 || info.size > MAX_TEMPLATE_BYTES) return null;
  const bytes = await readFile(full).catch(() => null);
  if (!bytes || bytes.subarray(0, 8192).includes(0)) return null;
  const text = bytes.toString("utf8");
  return minified(text) ? null : text;
}

/** One huge line or very long lines on average: a minified build output. */
function minified(text: string): boolean {
  const lines = text.split("\n");
  return text.length > 5000 && text.length / lines.length > 400;
}

/** The findings of one template's text (one per check and line). Exported for tests. */
export function scanTemplateText(file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  const lineOf = lineLocator(text);
  const lines = text.split(/\r?\n/);
  const seen = new Set<string>();
  const testPath = isTestPath(file);
  const out: NormalizedFinding[] = [];
  for (const hit of checkTemplate(file, text)) {
    const line = lineOf(hit.offset);
    const key = `${hit.check.id}:${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(toFinding(file, hit, line, lines[line - 1] ?? "", testPath, taxonomy));
  }
  return out;
}

function toFinding(
  file: string,
  hit: TemplateHit,
  line: number,
  lineText: string,
  testPath: boolean,
  taxonomy: Taxonomy,
): NormalizedFinding {
  const shown = cap(hit.text.replace(/\s+/g, " ").trim(), 200);
  const column = Math.max(1, lineText.indexOf(shown.slice(0, 20)) + 1);
  return buildFinding(
    {
      analyzer: TEMPLATES_ANALYZER,
      rule_id: `${TEMPLATES_ANALYZER}.${hit.check.id}`,
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

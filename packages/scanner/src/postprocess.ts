/**
 * What happens to analyzer findings before they are stored: the repository's excluded rules
 * are dropped, inline suppressions are recorded (never silently dropped), the same issue
 * reported by two analyzers at one place becomes one finding with both sources, fixes get
 * their unified diff, and every finding gets its fingerprint and its locator.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { severityRank, type NormalizedFinding } from "@ax/contracts";
import { redactSecrets } from "./analyzers/secrets-patterns";
import { applyDataflowVerdicts } from "./dataflow-verdicts";
import { fingerprintFindings } from "./fingerprint";
import { locate } from "./locator";
import type { RepoConfig } from "./repo-config";
import { findSuppression, markersOf, type Marker } from "./suppressions";
import { replacementDiff } from "./unified-diff";
import type { SinkSite } from "@ax/dataflow";

export { findSuppression } from "./suppressions";

const CONFIDENCE_RANK: Record<string, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 };

export interface PostprocessStats {
  excluded_by_rule: number;
  suppressed: number;
  merged: number;
  refuted: number;
}

/**
 * `dataflow`: the taint analysis completed, with the sink places it judged, so its verdicts
 * apply (dataflow-verdicts.ts); null when it did not.
 */
export async function postprocess(
  dir: string,
  input: NormalizedFinding[],
  config: RepoConfig,
  analyzerOrder: string[],
  dataflow: { sites: readonly SinkSite[] } | null = null,
): Promise<{ findings: NormalizedFinding[]; refuted: NormalizedFinding[]; stats: PostprocessStats }> {
  const verdicts = applyDataflowVerdicts(input, dataflow);
  const excluded = (f: NormalizedFinding) => config.excludeRules.has(f.rule_id) || (f.cwe_id !== null && config.excludeRules.has(f.cwe_id));
  const refuted = verdicts.refuted.filter((f) => !excluded(f));
  const stats: PostprocessStats = { excluded_by_rule: 0, suppressed: 0, merged: 0, refuted: refuted.length };
  const findings = verdicts.findings;
  // Whatever an adapter forgot: no credential leaves the scanner in clear.
  for (const f of [...findings, ...refuted]) {
    f.snippet = redactSecrets(f.snippet);
    f.message = redactSecrets(f.message);
    if (f.dataflow)
      f.dataflow = {
        ...f.dataflow,
        trace: f.dataflow.trace.map((s) => ({ ...s, code: redactSecrets(s.code), label: redactSecrets(s.label) })),
      };
  }
  const byFile = [...findings].sort((a, b) => a.file.localeCompare(b.file) || a.start_line - b.start_line);
  const kept = byFile.filter((f) => {
    if (excluded(f)) stats.excluded_by_rule++;
    return !excluded(f);
  });

  const sources = new FileCache(dir);
  const merged = await applySuppressions(mergeAcrossAnalyzers(dedupeSameRule(kept), analyzerOrder), sources);
  stats.merged = kept.length - merged.length;
  stats.suppressed = merged.filter((f) => f.suppression).length;

  for (const f of merged) {
    if (!f.fix) continue;
    const content = await sources.bytes(f.file);
    const diff = content ? replacementDiff(f.file, content, f.fix.start_byte, f.fix.end_byte, f.fix.replacement) : null;
    if (diff) f.fix = { ...f.fix, diff };
    else delete f.fix;
  }

  // What the store's identity matching reads of each finding's surroundings (locator.ts).
  for (const f of [...merged].sort((a, b) => a.file.localeCompare(b.file))) f.locator = locate((await sources.lines(f.file)) ?? [], f);

  const printed = new Map<string, NormalizedFinding>();
  for (const f of fingerprintFindings(merged)) if (!printed.has(f.fingerprint)) printed.set(f.fingerprint, f);
  const out = [...printed.values()].sort(byPlace);
  return { findings: out, refuted: refuted.sort(byPlace), stats };
}

/**
 * Inline suppressions (suppressions.ts), judged after merging: a merged finding is suppressed
 * only when comments cover every rule that reported it. Each file is parsed once, and only if
 * it mentions `ax-ignore`.
 */
async function applySuppressions(findings: NormalizedFinding[], files: FileCache): Promise<NormalizedFinding[]> {
  const markers = new Map<string, Marker[]>();
  const out: NormalizedFinding[] = [];
  for (const f of findings) {
    let inFile = markers.get(f.file);
    if (!inFile) markers.set(f.file, (inFile = markersOf(f.file, (await files.bytes(f.file))?.toString("utf8") ?? "")));
    const { sources, suppression, ignored } = findSuppression(inFile, f);
    const { suppression: _unjudged, ...rest } = f;
    out.push({
      ...rest,
      sources,
      ...(suppression ? { suppression } : {}),
      // Also kept in the raw record, where findings stored before `sources[].inline` have it.
      ...(ignored ? { raw: { ...(isRecord(f.raw) ? f.raw : {}), suppression_ignored: ignored } } : {}),
    });
  }
  return out;
}

/** One finding per rule and exact location (a tool may report the same match twice). */
function dedupeSameRule(findings: NormalizedFinding[]): NormalizedFinding[] {
  const seen = new Map<string, NormalizedFinding>();
  for (const f of findings) {
    const key = [f.rule_id, f.file, f.start_line, f.start_column, f.end_line, f.end_column, f.dataflow?.entry ?? ""].join("\0");
    if (!seen.has(key)) seen.set(key, f);
  }
  return [...seen.values()];
}

/**
 * Two analyzers reporting the same weakness (CWE) on the same line of the same file are one
 * finding. The most severe, then most confident report leads (ties: the analyzer listed
 * first); `sources` names every analyzer and rule that reported it.
 */
function mergeAcrossAnalyzers(findings: NormalizedFinding[], analyzerOrder: string[]): NormalizedFinding[] {
  const order = (a: string) => {
    const i = analyzerOrder.indexOf(a);
    return i === -1 ? analyzerOrder.length : i;
  };
  const groups = new Map<string, NormalizedFinding[]>();
  const singles: NormalizedFinding[] = [];
  for (const f of findings) {
    if (!f.cwe_id) {
      singles.push({ ...f, sources: f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }] });
      continue;
    }
    // A sink reached from two entry points is one finding per entry (dataflow-verdicts.ts).
    const key = [f.file, f.start_line, f.cwe_id, f.dataflow?.entry ?? ""].join("\0");
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const out = [...singles];
  for (const group of groups.values()) {
    const sorted = [...group].sort(
      (a, b) =>
        severityRank(a.severity) - severityRank(b.severity) ||
        (CONFIDENCE_RANK[a.confidence] ?? 9) - (CONFIDENCE_RANK[b.confidence] ?? 9) ||
        order(a.analyzer) - order(b.analyzer),
    );
    const lead = sorted[0] as NormalizedFinding;
    // A finding may arrive with sources already (the taint analysis that confirmed it).
    const sources = uniqueSources(sorted.flatMap((f) => f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]));
    const fix = lead.fix ?? sorted.find((f) => f.fix)?.fix;
    out.push({ ...lead, sources, ...(fix ? { fix } : {}) });
  }
  return out;
}

function uniqueSources(list: { analyzer: string; rule_id: string }[]) {
  const seen = new Set<string>();
  return list.filter((s) => {
    const key = `${s.analyzer}\0${s.rule_id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function byPlace(a: NormalizedFinding, b: NormalizedFinding): number {
  return (
    a.file.localeCompare(b.file) || a.start_line - b.start_line || a.start_column - b.start_column || a.rule_id.localeCompare(b.rule_id)
  );
}

/** The last few files read; findings are visited in file order, so this stays small. */
class FileCache {
  private readonly cache = new Map<string, Buffer | null>();
  constructor(
    private readonly dir: string,
    private readonly size = 16,
  ) {}

  async bytes(file: string): Promise<Buffer | null> {
    if (!this.cache.has(file)) {
      if (this.cache.size >= this.size) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(file, await readFile(join(this.dir, file)).catch(() => null));
    }
    return this.cache.get(file) ?? null;
  }

  async lines(file: string): Promise<string[] | null> {
    const b = await this.bytes(file);
    return b ? b.toString("utf8").split(/\r?\n/) : null;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

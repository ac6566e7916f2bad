/**
 * Diff-aware scans (a pull request's check): which of the commit's findings the change
 * introduced and which of its merge-base's it fixed, decided by comparing the two commits'
 * own findings, not by where lines changed. The merge-base's findings come from the project's
 * stored analysis of that commit when it has one (same analyzers and versions), else from
 * analysing its files, which the clone checked out apart (most files hit the per-file cache
 * that the commit's own analysis just filled). The two sets are matched the way a rescan keeps
 * identities (packages/db/src/identity.ts): through git's line mapping from the merge-base,
 * renames followed, then by rule, code, enclosing declaration and context. So a renamed file or
 * moved code introduces nothing, and a new taint path into an unchanged sink line does.
 */
import { SCAN_DIFF_FIXED_MAX, type AnalyzerRun, type NormalizedFinding, type ScanDiff } from "@ax/contracts";
import { matchFindings } from "@ax/db";
import type { BaseCommit } from "@ax/scanner";

export interface BaseAnalysis {
  findings: NormalizedFinding[];
  analyzers: AnalyzerRun[];
}

/**
 * Sets `introduced` on each of `head`'s findings and returns the comparison for the scan
 * record. Only analyzers that completed on both commits are compared: the findings of one that
 * did not complete on the merge-base keep `introduced` unset (unknown), and its merge-base
 * findings are not counted fixed.
 */
export function compareWithBase(
  base: BaseCommit,
  commit: string,
  head: { findings: NormalizedFinding[]; analyzers: AnalyzerRun[] },
  before: BaseAnalysis,
): ScanDiff {
  const completed = (runs: AnalyzerRun[]) => new Set(runs.filter((a) => a.status === "completed").map((a) => a.name));
  const inBoth = completed(before.analyzers);
  const headDone = completed(head.analyzers);
  for (const name of [...inBoth]) if (!headDone.has(name)) inBoth.delete(name);
  const comparable = (f: NormalizedFinding) => inBoth.has(f.analyzer);

  const prior = before.findings.filter(comparable).map((f) => ({ ...f, locator: f.locator ?? null, commit: base.mergeBase }));
  const next = head.findings.filter(comparable);
  const match = matchFindings(
    prior,
    next.map((f) => ({ ...f, locator: f.locator ?? null })),
    commit,
    [base.lineMap],
  );
  const kept = new Set<number>();
  next.forEach((f, j) => {
    const i = match[j];
    f.introduced = i === null || i === undefined;
    if (i !== null && i !== undefined) kept.add(i);
  });
  for (const f of head.findings) if (!comparable(f)) delete f.introduced;

  const fixed = prior
    .filter((_, i) => !kept.has(i))
    .sort((a, b) => a.file.localeCompare(b.file) || a.start_line - b.start_line || a.rule_id.localeCompare(b.rule_id));
  return {
    baseline_commit: base.baseline,
    merge_base: base.mergeBase,
    fixed_total: fixed.length,
    fixed: fixed
      .slice(0, SCAN_DIFF_FIXED_MAX)
      .map((f) => ({ rule_id: f.rule_id, title: f.title, severity: f.severity, cwe_id: f.cwe_id, file: f.file, start_line: f.start_line })),
  };
}

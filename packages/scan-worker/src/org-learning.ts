/**
 * Auto-triage adapted to the organization's own triage (issue 21, item 6): the review
 * model's base labels (kept in the analysis cache as the model gave them) are moved by the
 * counts of the scan's organization's labels — its triaged findings and its votes on review
 * answers, never another organization's — when the scan is stored. Adjusting after the cache
 * keeps cached labels valid when the organization's labels change.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { adjustVerdict, buildOrgStats, emptyOrgStats, orgLabelOf, type OrgStats, type ReviewModel, type VerdictLike } from "@ax/ai/review";
import { orgLabelRows, type AiLabel, type Db } from "@ax/db";
import type { Logger } from "@ax/logger";

/** The organization's label counts for a scan of `projectId` (empty for a public scan, or when they cannot be read). */
export async function orgStatsFor(
  db: Db,
  scan: { organization_id: string; project_id: string },
  opts: { publicScan: boolean; log: Logger },
): Promise<OrgStats> {
  if (opts.publicScan) return emptyOrgStats();
  try {
    const rows = await orgLabelRows(db, scan.organization_id);
    return buildOrgStats(rows.map(orgLabelOf), { projectId: scan.project_id });
  } catch (err) {
    // Learning is advice on advice: the base labels stand.
    opts.log.warn("organization labels unavailable; auto-triage labels not adapted", { error: err });
    return emptyOrgStats();
  }
}

/** The labels moved by the organization's counts (a finding's own label is left out of its verdict). */
export function adjustLabels(
  labels: ReadonlyMap<string, AiLabel>,
  findings: readonly NormalizedFinding[],
  stats: OrgStats,
  model: ReviewModel,
): Map<string, AiLabel> {
  const out = new Map(labels);
  if (stats.labels === 0) return out;
  const done = new Set<string>();
  for (const f of findings) {
    const label = labels.get(f.fingerprint);
    if (!label || done.has(f.fingerprint)) continue;
    done.add(f.fingerprint);
    const cls = label.class === "TRUE_POSITIVE" ? "TRUE_POSITIVE" : label.class === "FALSE_POSITIVE" ? "FALSE_POSITIVE" : null;
    if (!cls) continue;
    const pTrue = cls === "TRUE_POSITIVE" ? label.confidence : 1 - label.confidence;
    const verdict: VerdictLike = { class: cls, confidence: label.confidence, pTrue, model: label.model, reasons: label.reasons ?? [] };
    const facts = { analyzer: f.analyzer, rule_id: f.rule_id, cwe_id: f.cwe_id, file: f.file, snippet: f.snippet };
    const moved = adjustVerdict(verdict, facts, stats, { fingerprint: f.fingerprint, threshold: model.artifact.threshold });
    if (moved === verdict) continue;
    out.set(f.fingerprint, { class: moved.class, confidence: moved.confidence, model: moved.model, reasons: moved.reasons ?? [] });
  }
  return out;
}

import { SUPPRESSION_REASON_MISSING, type FindingDataflow, type FindingSource } from "@ax/contracts";
import { cweLevels } from "@ax/rules";
import {
  summarizeCounts,
  type ApiToken,
  type Finding,
  type FindingHistory,
  type FindingListRow,
  type Group,
  type Project,
  type Scan,
  type ScanCounts,
} from "@ax/db";
import { isUnsafeText } from "../http/text-safety";

/** Wire shapes: identifiers named as in the spec, timestamps ISO 8601 UTC. */
const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/**
 * `counts` are the scan's counts as its findings are now (scanCounts in @ax/db, see
 * services/scans.ts), not the `counts` column of the row, which is frozen at store time;
 * `summary` is the same figures grouped.
 */
export function presentScan(s: Scan, counts: ScanCounts) {
  const started = s.started_at ? new Date(s.started_at).getTime() : null;
  const finished = s.finished_at ? new Date(s.finished_at).getTime() : null;
  return {
    scan_id: s.id,
    organization_id: s.organization_id,
    group_id: s.group_id,
    project_id: s.project_id,
    state: s.state,
    phase: s.phase,
    progress: s.progress,
    git_uri: s.git_uri,
    branch: s.branch,
    commit: s.commit_sha,
    baseline_commit: s.baseline_commit,
    error: s.error,
    attempts: s.attempts,
    languages: s.languages,
    analyzers: s.analyzers,
    counts,
    summary: summarizeCounts(counts),
    selection: s.selection,
    notices: s.notices,
    diff: s.diff ?? null,
    created_at: iso(s.created_at),
    started_at: iso(s.started_at),
    finished_at: iso(s.finished_at),
    duration_ms: started !== null && finished !== null ? finished - started : null,
  };
}

/** When a public scan is deleted (and already answers 404): its request time plus the retention. */
export const publicExpiry = (s: Scan, retentionHours: number): string =>
  new Date(new Date(s.created_at).getTime() + retentionHours * 3_600_000).toISOString();

export function presentPublicScan(s: Scan, scanCounts: ScanCounts, retentionHours: number) {
  const {
    scan_id,
    state,
    phase,
    progress,
    git_uri,
    branch,
    commit,
    error,
    counts,
    summary,
    created_at,
    started_at,
    finished_at,
    duration_ms,
  } = presentScan(s, scanCounts);
  return {
    scan_id,
    state,
    phase,
    progress,
    git_uri,
    branch,
    commit,
    error,
    counts,
    summary,
    created_at,
    started_at,
    finished_at,
    duration_ms,
    expires_at: publicExpiry(s, retentionHours),
  };
}

export const presentPublicFinding = (f: Finding | FindingListRow) => ({
  finding_id: f.id,
  rule_id: f.rule_id,
  title: f.title,
  message: f.message,
  cwe_id: f.cwe_id,
  severity: f.severity,
  confidence: f.confidence,
  file: f.file,
  start_line: f.start_line,
  end_line: f.end_line,
});

/** A finding as every answer shows it; list rows come without the fix, as whether they have one. */
export function presentFinding(f: Finding | FindingListRow) {
  return {
    finding_id: f.id,
    scan_id: f.scan_id,
    project_id: f.project_id,
    analyzer: f.analyzer,
    rule_id: f.rule_id,
    title: f.title,
    message: f.message,
    cwe_id: f.cwe_id,
    cwe_ids: cweLevels(f.cwe_id),
    cwe_name: f.cwe_name,
    owasp: f.owasp,
    file: f.file,
    start_line: f.start_line,
    end_line: f.end_line,
    start_column: f.start_column,
    end_column: f.end_column,
    snippet: f.snippet,
    fingerprint: f.fingerprint,
    identity: f.identity,
    first_seen_scan_id: f.first_seen_scan_id,
    baseline_state: f.baseline_state,
    introduced: f.introduced,
    sources: f.sources.map((s) => ({ analyzer: s.analyzer, rule_id: s.rule_id })),
    suppression: f.suppression,
    suppression_note: presentSuppressionNote(f),
    has_fix: "has_fix" in f ? f.has_fix : f.fix !== null && typeof f.fix === "object" && typeof f.fix.diff === "string",
    status: f.status,
    reason: f.reason,
    remediation: f.remediation,
    severity: f.severity,
    impact: f.impact,
    likelihood: f.likelihood,
    confidence: f.confidence,
    ai: presentAiLabel(f),
    dataflow: f.dataflow ? presentDataflow(f.dataflow) : null,
    version: f.version,
    created_at: iso(f.created_at),
    updated_at: iso(f.updated_at),
  };
}

/** The review model's label, its reasons and what the group's AI policy did with it; null without a label. */
export function presentAiLabel(f: Pick<Finding, "ai_class" | "ai_confidence" | "ai_model" | "ai_reasons" | "ai_action">) {
  if (!f.ai_class || f.ai_confidence === null || !f.ai_model) return null;
  const reasons = Array.isArray(f.ai_reasons) ? f.ai_reasons.filter((r): r is string => typeof r === "string") : [];
  return { class: f.ai_class, confidence: f.ai_confidence, model: f.ai_model, reasons, action: f.ai_action };
}

/**
 * Why `ax-ignore` comments at the finding's place did not suppress it (docs/scanning.md, "Inline
 * suppressions"), from the comment each source records (`sources[].inline`, set by the scanner);
 * findings stored before that have the bare-marker note in their raw record only. Null on a
 * suppressed finding: `suppression` alone says that a finding is suppressed.
 */
function presentSuppressionNote(f: Finding | FindingListRow) {
  if (f.suppression) return null;
  const sources: readonly FindingSource[] = f.sources;
  const named = (list: readonly FindingSource[]) => list.map((s) => s.rule_id);
  const honoured = sources.filter((s) => typeof s.inline?.reason === "string" && s.inline.reason !== "");
  const bare = sources.filter((s) => s.inline && s.inline.reason === null);
  const first = honoured[0]?.inline;
  if (first) {
    const rest = named(sources.filter((s) => !honoured.includes(s))).join(", ");
    return {
      kind: "partial" as const,
      line: first.line,
      rules: named(honoured),
      message:
        `The ax-ignore comment covers ${named(honoured).join(", ")} only; no comment with a reason covers ${rest}, which also reported this place, ` +
        `so the finding is not suppressed.${bare.length > 0 ? ` ${SUPPRESSION_REASON_MISSING}` : ""}`,
    };
  }
  const firstBare = bare[0]?.inline;
  if (firstBare) return { kind: "reason_missing" as const, line: firstBare.line, rules: named(bare), message: SUPPRESSION_REASON_MISSING };
  const raw = "raw" in f ? f.raw : null;
  if (typeof raw === "object" && raw !== null && "suppression_ignored" in raw && typeof raw.suppression_ignored === "string") {
    return { kind: "reason_missing" as const, line: null, rules: [], message: raw.suppression_ignored };
  }
  return null;
}

/** Every key always present (optional ones as null or []), and only the contract's keys. */
function presentDataflow(d: FindingDataflow) {
  return {
    status: d.status,
    source_kind: d.source_kind ?? null,
    trace: d.trace.map((t) => ({ file: t.file, line: t.line, column: t.column, kind: t.kind, label: t.label, code: t.code })),
    confirms: (d.confirms ?? []).map((c) => ({ analyzer: c.analyzer, rule_id: c.rule_id })),
    entry: d.entry ?? null,
    reason: d.reason ?? null,
  };
}

export function presentHistory(h: FindingHistory & { display_name: string | null }) {
  return {
    version: h.version,
    source: h.source,
    changed_by: h.changed_by ? { user_id: h.changed_by, display_name: h.display_name } : null,
    carried_from_finding_id: h.carried_from,
    changes: h.changes,
    created_at: iso(h.created_at),
  };
}

export const presentGroup = (g: Group) => ({
  group_id: g.id,
  organization_id: g.organization_id,
  name: g.name,
  created_at: iso(g.created_at),
});

export const presentProject = (p: Project) => ({
  project_id: p.id,
  group_id: p.group_id,
  organization_id: p.organization_id,
  name: p.name,
  git_url: p.git_url,
  created_at: iso(p.created_at),
});

export function presentToken(t: ApiToken) {
  return {
    token_id: t.id,
    name: t.name,
    hint: t.display_hint,
    scopes: t.scopes,
    created_at: iso(t.created_at),
    expires_at: iso(t.expires_at),
    last_used_at: iso(t.last_used_at),
    revoked_at: iso(t.revoked_at),
  };
}

/** Opaque cursors: base64url JSON of the last row's sort key. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

/** A string from a cursor that PostgreSQL will accept as text: bounded, no NUL, no lone surrogate. */
export function isCursorText(v: unknown, max: number): v is string {
  return typeof v === "string" && v.length <= max && !isUnsafeText(v);
}

export function decodeCursor<T>(cursor: string | undefined, check: (v: unknown) => v is T): T | undefined {
  if (!cursor) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (check(v)) return v;
  } catch {
    // fall through
  }
  return undefined;
}

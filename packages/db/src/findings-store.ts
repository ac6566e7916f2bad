import { replaceRefutedMatches } from "./refuted";
import { sql } from "kysely";
import {
  TRIAGE_FIELDS,
  type AnalyzerRun,
  type CommitLineMap,
  type NormalizedFinding,
  type ScanDiff,
  type TriageField,
} from "@ax/contracts";
import { DEFAULT_AI_POLICY, applyAiPolicy, getAiPolicy } from "./ai-policy";
import type { AiLabel } from "./analysis-cache";
import type { Db } from "./client";
import { matchByTier } from "./findings-match";
import { newId } from "./ids";
import { fixedRecords, selectReferences, type ReferenceScan } from "./references";
import type { Finding, NewFinding, ScanNotice } from "./schema";

const INSERT_CHUNK = 250;

export interface StoreResultsInput {
  scanId: string;
  projectId: string;
  organizationId: string;
  findings: NormalizedFinding[];
  /** Pattern matches the taint analysis refuted: kept for inspection, not findings (refuted.ts). */
  refuted?: readonly NormalizedFinding[];
  analyzers: AnalyzerRun[];
  languages: string[];
  /** What the selection read, skipped and merged (shown on the scan). */
  selection?: Record<string, unknown>;
  /** The review model's label per fingerprint (auto-triage). */
  aiLabels?: ReadonlyMap<string, AiLabel>;
  /** Git's line mapping from the reference scans' commits to this scan's (clone's lineMaps). */
  lineMaps?: readonly CommitLineMap[];
  /** A diff-aware scan's comparison with its merge-base. */
  diff?: ScanDiff;
}

export interface StoreResultsOutcome {
  stored: boolean;
  counts: Record<string, number>;
}

type Changes = Record<string, { from: string | null; to: string | null }>;

/**
 * Writes a scan's findings and completes it, in one transaction, exactly once: the scan row
 * is locked and must still be running, so a cancelled or deleted scan discards its late
 * results, and a re-run job replaces rather than duplicates. The project row is locked too, so
 * two scans of one project store one after the other and each sees the other's identities.
 *
 * Each finding is matched to the reference scans' findings (references.ts, identity.ts: the
 * branch's own first, then each other branch's) and takes the identity of the one it is;
 * reviewers' decisions are then applied from the project's decisions on that identity (same branch first, then the most recent of any
 * branch). A finding of the branch's reference that this scan lacks is recorded as FIXED
 * (`baseline_state` 'absent') only when every analyzer that reported it completed here; the
 * findings of an analyzer that did not complete are neither reported nor fixed, and the scan's
 * `notices` say so.
 */
export async function storeScanResults(db: Db, input: StoreResultsInput): Promise<StoreResultsOutcome> {
  return db.transaction().execute(async (trx) => {
    const scan = await lockForStore(trx, input);
    if (!scan) return { stored: false, counts: {} };
    const reference = await referenceFindings(trx, input, scan.branch);
    const unique = uniqueFindings(input.findings);
    const fixed = await fixedRecords(trx, input.organizationId, input.projectId, [...new Set(reference.refs.map((r) => r.branch))]);
    const refOf = (f: Finding) => reference.refOf.get(f.scan_id)!;
    const matched = matchByTier(reference.prior, unique, refOf, fixed, scan.commit_sha, input.lineMaps ?? []);

    await trx.deleteFrom("findings").where("scan_id", "=", input.scanId).execute();
    const present = presentRows(input, unique, matched, reference);
    // Reviewers' decisions, from the project (whichever scan they were made on).
    const history = await carryDecisions(trx, input, present.rows, present.identities, scan.branch ?? "");
    // Then the group's AI policy, which never overrides a decision carried above.
    const policy = input.aiLabels ? await getAiPolicy(trx, input.organizationId, scan.group_id) : DEFAULT_AI_POLICY;
    history.push(...applyAiPolicy(present.rows, input.aiLabels, policy).map((c) => ({ ...c, from: null, source: "ai" as const })));
    const absent = absentRows(input, reference, present, new Set(unique.map((f) => f.fingerprint)));
    const rows = [...present.rows, ...absent.rows];
    history.push(...absent.history);
    await insertRows(trx, input.organizationId, rows, history);
    await replaceRefutedMatches(trx, input, input.refuted ?? []);
    const counts = countBySeverity(rows);
    await completeScan(trx, input, counts, unverifiedNotices(input.analyzers, absent.unverified));
    return { stored: true, counts };
  });
}

/**
 * Locks the project, then the scan, which must still be running; undefined when either is
 * gone (or the scan no longer runs). The project first: the order a group's hard delete locks
 * them in, so the two wait for each other instead of deadlocking. NO KEY UPDATE serialises
 * the stores of one project without blocking new scans' foreign keys or reviewers' decisions.
 */
async function lockForStore(trx: Db, input: StoreResultsInput) {
  const project = await trx.selectFrom("projects").select("id").where("id", "=", input.projectId).forNoKeyUpdate().executeTakeFirst();
  if (!project) return undefined;
  return trx
    .selectFrom("scans")
    .select(["id", "branch", "commit_sha", "group_id"])
    .where("id", "=", input.scanId)
    .where("state", "=", "running")
    .forUpdate()
    .executeTakeFirst();
}

/** The reference scans and the findings taken from them (`prior`; `priorSame`: of the branch's own). */
interface ReferenceFindings {
  refs: ReferenceScan[];
  refOf: Map<string, ReferenceScan>;
  prior: Finding[];
  priorSame: boolean[];
}

async function referenceFindings(trx: Db, input: StoreResultsInput, branch: string | null): Promise<ReferenceFindings> {
  const refs = await selectReferences(trx, input.organizationId, input.projectId, branch, input.scanId);
  const refOf = new Map(refs.map((r) => [r.scanId, r]));
  const priorRows =
    refs.length > 0
      ? await trx
          .selectFrom("findings")
          .selectAll()
          .where("organization_id", "=", input.organizationId)
          .where(
            "scan_id",
            "in",
            refs.map((r) => r.scanId),
          )
          .where("baseline_state", "!=", "absent")
          .execute()
      : [];
  // A tier takes each analyzer's findings from its latest scan where that analyzer completed,
  // so one finding (a merged one whose leading analyzer changed) can come from two scans of a
  // tier: the newer scan's copy is the one that says where it is now.
  const refRank = new Map(refs.map((r, k) => [r.scanId, k]));
  const newest = new Map<string, number>();
  const taken = priorRows.filter((f) => refOf.get(f.scan_id)?.analyzers.has(f.analyzer));
  for (const f of taken) {
    const key = `${refOf.get(f.scan_id)!.tier}\0${f.identity}`;
    newest.set(key, Math.min(newest.get(key) ?? Number.POSITIVE_INFINITY, refRank.get(f.scan_id)!));
  }
  const prior = taken.filter((f) => newest.get(`${refOf.get(f.scan_id)!.tier}\0${f.identity}`) === refRank.get(f.scan_id));
  const priorSame = prior.map((f) => refOf.get(f.scan_id)?.tier === 0);
  return { refs, refOf, prior, priorSame };
}

/** The first finding of each fingerprint. */
function uniqueFindings(findings: readonly NormalizedFinding[]): NormalizedFinding[] {
  const unique: NormalizedFinding[] = [];
  const seen = new Set<string>();
  for (const f of findings) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    unique.push(f);
  }
  return unique;
}

/** The rows of this scan's findings, each with the identity of the earlier finding it is, if any. */
interface PresentRows {
  rows: NewFinding[];
  /** Identities given to this scan's rows (absentRows adds the fixed ones'). */
  identities: Set<string>;
  /** Indexes in `prior` of the earlier findings that a present one took the identity of. */
  matchedPrior: Set<number>;
}

function presentRows(
  input: StoreResultsInput,
  unique: readonly NormalizedFinding[],
  matched: readonly (number | null)[],
  reference: ReferenceFindings,
): PresentRows {
  const { prior, priorSame } = reference;
  const rows: NewFinding[] = [];
  const identities = new Set<string>();
  const matchedPrior = new Set<number>();
  unique.forEach((f, j) => {
    const id = newId();
    const k = matched[j];
    const before = k === null || k === undefined ? undefined : prior[k];
    // One identity per scan: a second claim on one (two findings merged differently) is new.
    const identity = before && !identities.has(before.identity) ? before.identity : id;
    identities.add(identity);
    if (before && identity === before.identity) matchedPrior.add(k as number);
    const carried = before && identity === before.identity ? before : undefined;
    rows.push(
      findingRow(input, f, id, identity, {
        firstSeen: carried ? (carried.first_seen_scan_id ?? carried.scan_id) : input.scanId,
        unchanged: carried !== undefined && priorSame[k as number] === true,
      }),
    );
  });
  return { rows, identities, matchedPrior };
}

function findingRow(
  input: StoreResultsInput,
  f: NormalizedFinding,
  id: string,
  identity: string,
  earlier: { firstSeen: string; unchanged: boolean },
): NewFinding {
  return {
    id,
    scan_id: input.scanId,
    organization_id: input.organizationId,
    project_id: input.projectId,
    analyzer: f.analyzer,
    rule_id: f.rule_id,
    title: f.title,
    message: f.message,
    cwe_id: f.cwe_id,
    cwe_name: f.cwe_name,
    owasp: f.owasp,
    file: f.file,
    start_line: f.start_line,
    end_line: f.end_line,
    start_column: f.start_column,
    end_column: f.end_column,
    snippet: f.snippet,
    fingerprint: f.fingerprint,
    identity,
    locator: f.locator ? JSON.stringify(f.locator) : null,
    first_seen_scan_id: earlier.firstSeen,
    baseline_state: earlier.unchanged ? "unchanged" : "new",
    severity: f.severity,
    confidence: f.confidence,
    likelihood: f.likelihood,
    impact: f.impact,
    remediation: f.remediation,
    raw: JSON.stringify(f.raw ?? null),
    sources: JSON.stringify(f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]),
    suppression: f.suppression ? JSON.stringify(f.suppression) : null,
    fix: f.fix ? JSON.stringify(f.fix) : null,
    introduced: f.introduced ?? null,
    dataflow: f.dataflow ? JSON.stringify(f.dataflow) : null,
    ...aiColumns(input.aiLabels?.get(f.fingerprint)),
  };
}

/** The label's columns; `ai_action` is the group's policy's (applyAiPolicy). */
function aiColumns(label: AiLabel | undefined) {
  return {
    ai_class: label?.class ?? null,
    ai_confidence: label?.confidence ?? null,
    ai_model: label?.model ?? null,
    ai_reasons: label ? JSON.stringify(label.reasons ?? []) : null,
    ai_action: null,
  };
}

/** A history row the store writes: a decision carried from an earlier finding, or the AI policy's (`source: "ai"`). */
type HistoryEntry = { finding_id: string; changes: Changes; from: string | null; version: number; source?: "ai" };

/** Applies the project's decisions to the rows of their identities; returns the history of what they changed. */
async function carryDecisions(trx: Db, input: StoreResultsInput, rows: NewFinding[], identities: Set<string>, branch: string) {
  const history: HistoryEntry[] = [];
  const decisions = await decisionsFor(trx, input.organizationId, input.projectId, [...identities], branch);
  for (const row of rows) {
    const decision = decisions.get(row.identity);
    if (!decision) continue;
    const changes = applyDecision(row, decision.fields);
    if (Object.keys(changes).length > 0) {
      row.version = 2;
      history.push({ finding_id: row.id, changes, from: decision.finding_id, version: 2 });
    }
  }
  return history;
}

/**
 * The FIXED records of the branch's earlier findings that this scan lacks, and per analyzer
 * that did not complete the count of its earlier findings left unverified instead. Only an
 * analyzer that ran to completion can vouch that a finding is gone; one that was skipped,
 * failed or timed out says nothing about its earlier findings.
 */
function absentRows(input: StoreResultsInput, reference: ReferenceFindings, present: PresentRows, fingerprints: ReadonlySet<string>) {
  const completed = new Set(input.analyzers.filter((a) => a.status === "completed").map((a) => a.name));
  const unverified = new Map<string, number>();
  const rows: NewFinding[] = [];
  const history: HistoryEntry[] = [];
  reference.prior.forEach((before, i) => {
    if (present.matchedPrior.has(i) || !reference.priorSame[i]) return;
    const producers = [before.analyzer, ...before.sources.map((s) => s.analyzer)];
    const silent = producers.find((a) => !completed.has(a));
    if (silent !== undefined) {
      unverified.set(silent, (unverified.get(silent) ?? 0) + 1);
      return;
    }
    if (present.identities.has(before.identity)) return;
    present.identities.add(before.identity);
    const row = fixedRow(input, before, fingerprints);
    rows.push(row);
    history.push({ finding_id: row.id, changes: { status: { from: before.status, to: "FIXED" } }, from: before.id, version: 2 });
  });
  return { rows, history, unverified };
}

/** The record, in this scan, that an earlier finding is fixed. */
function fixedRow(input: StoreResultsInput, before: Finding, fingerprints: ReadonlySet<string>): NewFinding {
  const {
    id: _id,
    scan_id: _s,
    severity_rank: _r,
    created_at: _c,
    updated_at: _u,
    raw,
    sources,
    suppression,
    fix: _fix,
    introduced: _i,
    dataflow,
    locator,
    ai_reasons,
    ...rest
  } = before;
  return {
    ...rest,
    id: newId(),
    scan_id: input.scanId,
    // The old fingerprint may now name a present finding (its occurrence index moved up).
    fingerprint: fingerprints.has(before.fingerprint) ? `${before.fingerprint}:fixed:${before.identity}` : before.fingerprint,
    baseline_state: "absent",
    status: "FIXED",
    triaged_fields: [...new Set([...before.triaged_fields, "status"])],
    version: 2,
    raw: JSON.stringify(raw ?? null),
    sources: JSON.stringify(sources),
    suppression: suppression ? JSON.stringify(suppression) : null,
    locator: locator ? JSON.stringify(locator) : null,
    fix: null,
    introduced: null,
    // What the earlier scan traced, kept like its sources: it shows what was fixed.
    dataflow: dataflow ? JSON.stringify(dataflow) : null,
    ai_reasons: ai_reasons ? JSON.stringify(ai_reasons) : null,
  };
}

function unverifiedNotices(analyzers: readonly AnalyzerRun[], unverified: ReadonlyMap<string, number>): ScanNotice[] {
  return [...unverified].map(([analyzer, n]) => {
    const status = analyzers.find((a) => a.name === analyzer)?.status ?? "not run";
    return {
      kind: "findings_not_verified",
      analyzer,
      status,
      findings: n,
      message:
        `${analyzer} ${status === "not run" ? "did not run" : status} on this scan: ${n} earlier finding(s) it reported are neither ` +
        `reported nor marked fixed here, and keep their triage for the next scan where ${analyzer} completes.`,
    };
  });
}

async function insertRows(trx: Db, organizationId: string, rows: NewFinding[], history: HistoryEntry[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await trx
      .insertInto("findings")
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
  }
  for (let i = 0; i < history.length; i += INSERT_CHUNK) {
    await trx
      .insertInto("finding_history")
      .values(
        history.slice(i, i + INSERT_CHUNK).map((h) => ({
          id: newId(),
          finding_id: h.finding_id,
          organization_id: organizationId,
          changed_by: null,
          source: h.source ?? ("carried" as const),
          carried_from: h.from,
          changes: JSON.stringify(h.changes),
          version: h.version,
        })),
      )
      .execute();
  }
}

async function completeScan(trx: Db, input: StoreResultsInput, counts: Record<string, number>, notices: ScanNotice[]): Promise<void> {
  await trx
    .updateTable("scans")
    .set({
      state: "completed",
      phase: null,
      progress: 100,
      error: null,
      counts: JSON.stringify(counts),
      notices: JSON.stringify(notices),
      diff: input.diff ? JSON.stringify(input.diff) : null,
      analyzers: JSON.stringify(input.analyzers),
      languages: input.languages,
      ...(input.selection ? { selection: JSON.stringify(input.selection) } : {}),
      finished_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where("id", "=", input.scanId)
    .execute();
}

/** The decision that applies on `branch` to each identity: that branch's own, else the most recent of any branch. */
async function decisionsFor(db: Db, organizationId: string, projectId: string, identities: string[], branch: string) {
  const out = new Map<string, { fields: Record<string, string | null>; finding_id: string }>();
  const ranked = new Map<string, { sameBranch: boolean; at: number }>();
  for (let i = 0; i < identities.length; i += INSERT_CHUNK) {
    const rows = await db
      .selectFrom("triage_decisions")
      .select(["identity", "branch", "fields", "finding_id", "decided_at"])
      .where("organization_id", "=", organizationId)
      .where("project_id", "=", projectId)
      .where("identity", "in", identities.slice(i, i + INSERT_CHUNK))
      .execute();
    for (const r of rows) {
      const rank = { sameBranch: r.branch === branch, at: new Date(r.decided_at).getTime() };
      const best = ranked.get(r.identity);
      if (best && (best.sameBranch > rank.sameBranch || (best.sameBranch === rank.sameBranch && best.at >= rank.at))) continue;
      ranked.set(r.identity, rank);
      out.set(r.identity, { fields: r.fields, finding_id: r.finding_id });
    }
  }
  return out;
}

/** Sets the decided fields on the new row; returns what changed from what the analyzer reported. */
function applyDecision(row: NewFinding, fields: Record<string, string | null>): Changes {
  const changes: Changes = {};
  const target = row as Record<TriageField, string | null | undefined>;
  const decided = Object.keys(fields).filter((f): f is TriageField => (TRIAGE_FIELDS as readonly string[]).includes(f));
  for (const field of decided) {
    const from = target[field] ?? (field === "status" ? "TO REVIEW" : null);
    const to = fields[field] ?? null;
    if (from !== to) changes[field] = { from, to };
    target[field] = to;
  }
  row.triaged_fields = decided;
  return changes;
}

function countBySeverity(rows: NewFinding[]): Record<string, number> {
  const counts: Record<string, number> = {
    CRITICAL: 0,
    HIGH: 0,
    MEDIUM: 0,
    LOW: 0,
    INFO: 0,
    total: 0,
    new: 0,
    fixed: 0,
    suppressed: 0,
    introduced: 0,
  };
  for (const r of rows) {
    if (r.status === "FIXED" && r.baseline_state === "absent") {
      counts.fixed = (counts.fixed ?? 0) + 1;
      continue;
    }
    // Suppressed in the source: reported, but not counted as open issues.
    if (r.suppression) {
      counts.suppressed = (counts.suppressed ?? 0) + 1;
      continue;
    }
    if (r.introduced) counts.introduced = (counts.introduced ?? 0) + 1;
    counts[r.severity] = (counts[r.severity] ?? 0) + 1;
    counts.total = (counts.total ?? 0) + 1;
    if (r.baseline_state === "new") counts.new = (counts.new ?? 0) + 1;
  }
  return counts;
}

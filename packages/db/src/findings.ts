import { sql } from "kysely";
import {
  TRIAGE_FIELDS,
  type AnalyzerRun,
  type CommitLineMap,
  type FindingDataflow,
  type FindingUpdateBody,
  type NormalizedFinding,
  type ScanDiff,
  type TriageField,
} from "@ax/contracts";
import type { Db } from "./client";
import { newId } from "./ids";
import { matchFindings } from "./identity";
import { fixedRecords, selectReferences, type FixedRecord, type ReferenceScan } from "./references";
import type { Finding, FindingHistory, NewFinding, ScanNotice } from "./schema";

const INSERT_CHUNK = 250;

export interface StoreResultsInput {
  scanId: string;
  projectId: string;
  organizationId: string;
  findings: NormalizedFinding[];
  analyzers: AnalyzerRun[];
  languages: string[];
  /** What the selection read, skipped and merged (shown on the scan). */
  selection?: Record<string, unknown>;
  /** The review model's label per fingerprint (auto-triage). */
  aiLabels?: ReadonlyMap<string, { class: string; confidence: number; model: string }>;
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
 * branch's own first, then each other branch's) and takes the identity of the one it is; reviewers' decisions are then applied from the
 * project's decisions on that identity (same branch first, then the most recent of any
 * branch). A finding of the branch's reference that this scan lacks is recorded as FIXED
 * (`baseline_state` 'absent') only when every analyzer that reported it completed here; the
 * findings of an analyzer that did not complete are neither reported nor fixed, and the scan's
 * `notices` say so.
 */
export async function storeScanResults(db: Db, input: StoreResultsInput): Promise<StoreResultsOutcome> {
  return db.transaction().execute(async (trx) => {
    // The project first, then the scan: the order a group's hard delete locks them in, so the
    // two wait for each other instead of deadlocking. NO KEY UPDATE serialises the stores of one
    // project without blocking new scans' foreign keys or reviewers' decisions.
    const project = await trx.selectFrom("projects").select("id").where("id", "=", input.projectId).forNoKeyUpdate().executeTakeFirst();
    if (!project) return { stored: false, counts: {} };
    const scan = await trx
      .selectFrom("scans")
      .select(["id", "branch", "commit_sha"])
      .where("id", "=", input.scanId)
      .where("state", "=", "running")
      .forUpdate()
      .executeTakeFirst();
    if (!scan) return { stored: false, counts: {} };

    const refs = await selectReferences(trx, input.organizationId, input.projectId, scan.branch, input.scanId);
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

    const unique: NormalizedFinding[] = [];
    const seen = new Set<string>();
    for (const f of input.findings) {
      if (seen.has(f.fingerprint)) continue;
      seen.add(f.fingerprint);
      unique.push(f);
    }
    const fixed = await fixedRecords(trx, input.organizationId, input.projectId, [...new Set(refs.map((r) => r.branch))]);
    const matched = matchByTier(prior, unique, (f) => refOf.get(f.scan_id)!, fixed, scan.commit_sha, input.lineMaps ?? []);

    await trx.deleteFrom("findings").where("scan_id", "=", input.scanId).execute();

    const rows: NewFinding[] = [];
    const history: { finding_id: string; changes: Changes; from: string; version: number }[] = [];
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
      rows.push({
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
        first_seen_scan_id: before && identity === before.identity ? (before.first_seen_scan_id ?? before.scan_id) : input.scanId,
        baseline_state: before && identity === before.identity && priorSame[k as number] ? "unchanged" : "new",
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
        ai_class: input.aiLabels?.get(f.fingerprint)?.class ?? null,
        ai_confidence: input.aiLabels?.get(f.fingerprint)?.confidence ?? null,
        ai_model: input.aiLabels?.get(f.fingerprint)?.model ?? null,
      });
    });

    // Reviewers' decisions, from the project (whichever scan they were made on).
    const decisions = await decisionsFor(trx, input.organizationId, input.projectId, [...identities], scan.branch ?? "");
    for (const row of rows) {
      const decision = decisions.get(row.identity);
      if (!decision) continue;
      const changes = applyDecision(row, decision.fields);
      if (Object.keys(changes).length > 0) {
        row.version = 2;
        history.push({ finding_id: row.id, changes, from: decision.finding_id, version: 2 });
      }
    }

    // Only an analyzer that ran to completion can vouch that a finding is gone; one that was
    // skipped, failed or timed out says nothing about its earlier findings.
    const completed = new Set(input.analyzers.filter((a) => a.status === "completed").map((a) => a.name));
    const unverified = new Map<string, number>();
    prior.forEach((before, i) => {
      if (matchedPrior.has(i) || !priorSame[i]) return;
      const producers = [before.analyzer, ...before.sources.map((s) => s.analyzer)];
      const silent = producers.find((a) => !completed.has(a));
      if (silent !== undefined) {
        unverified.set(silent, (unverified.get(silent) ?? 0) + 1);
        return;
      }
      if (identities.has(before.identity)) return;
      identities.add(before.identity);
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
        ...rest
      } = before;
      const id = newId();
      rows.push({
        ...rest,
        id,
        scan_id: input.scanId,
        // The old fingerprint may now name a present finding (its occurrence index moved up).
        fingerprint: seen.has(before.fingerprint) ? `${before.fingerprint}:fixed:${before.identity}` : before.fingerprint,
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
      });
      history.push({ finding_id: id, changes: { status: { from: before.status, to: "FIXED" } }, from: before.id, version: 2 });
    });
    const notices: ScanNotice[] = [...unverified].map(([analyzer, n]) => {
      const status = input.analyzers.find((a) => a.name === analyzer)?.status ?? "not run";
      return {
        kind: "findings_not_verified",
        analyzer,
        status,
        findings: n,
        message: `${analyzer} ${status === "not run" ? "did not run" : status} on this scan: ${n} earlier finding(s) it reported are neither reported nor marked fixed here, and keep their triage for the next scan where ${analyzer} completes.`,
      };
    });

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
            organization_id: input.organizationId,
            changed_by: null,
            source: "carried" as const,
            carried_from: h.from,
            changes: JSON.stringify(h.changes),
            version: h.version,
          })),
        )
        .execute();
    }

    const counts = countBySeverity(rows);
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
    return { stored: true, counts };
  });
}

/**
 * For each new finding, the index of the earlier finding it is: matched against the branch's
 * own references first, then each other branch's in turn (closest first), each only among the
 * findings still unmatched, never to an identity given away before, and never to one that a
 * branch consulted before has recorded as fixed (references.ts).
 */
function matchByTier(
  prior: Finding[],
  next: NormalizedFinding[],
  refOf: (f: Finding) => ReferenceScan,
  fixedOn: ReadonlyMap<string | null, readonly FixedRecord[]>,
  commit: string | null,
  maps: readonly CommitLineMap[],
): (number | null)[] {
  const result: (number | null)[] = next.map(() => null);
  const taken = new Set<string>();
  // The branch's own first; then the other branches closest to this commit first (git's diff:
  // the likely parent), the most recently scanned first where no diff is known.
  const distance = new Map(maps.filter((m) => m.to === commit).map((m) => [m.from, m.changed]));
  const closeness = new Map<number, number>();
  for (const f of prior) {
    const ref = refOf(f);
    const d = ref.tier === 0 ? -1 : ref.commit === commit ? 0 : (distance.get(ref.commit ?? "") ?? Number.POSITIVE_INFINITY);
    closeness.set(ref.tier, Math.min(closeness.get(ref.tier) ?? Number.POSITIVE_INFINITY, d));
  }
  const tiers = [...closeness.keys()].sort((a, b) => (closeness.get(a) as number) - (closeness.get(b) as number) || a - b);
  const branchOf = new Map(prior.map((f) => [refOf(f).tier, refOf(f).branch]));
  const reintroduced = new Set<number>();
  for (const [position, tier] of tiers.entries()) {
    // What the branches consulted before have seen fixed stays fixed for this one, and a new
    // finding that is such a fixed one come back (same code where it was) stays new.
    const fixed = position === 0 ? [] : (fixedOn.get(branchOf.get(tiers[position - 1] as number) ?? null) ?? []);
    for (const r of fixed) taken.add(r.identity);
    if (fixed.length > 0) {
      const open = next.map((f, j) => ({ f, j })).filter(({ j }) => result[j] === null && !reintroduced.has(j));
      const back = matchFindings(
        fixed.map((r) => ({ ...r, commit: null })),
        open.map(({ f }) => ({ ...f, locator: f.locator ?? null })),
        commit,
        [],
      );
      back.forEach((k, x) => {
        if (k !== null) reintroduced.add((open[x] as { j: number }).j);
      });
    }
    const p = prior.map((f, i) => ({ f, i })).filter(({ f }) => refOf(f).tier === tier && !taken.has(f.identity));
    const n = next.map((f, j) => ({ f, j })).filter(({ j }) => result[j] === null && !reintroduced.has(j));
    if (p.length === 0 || n.length === 0) continue;
    const m = matchFindings(
      p.map(({ f }) => ({ ...f, commit: refOf(f).commit })),
      n.map(({ f }) => ({ ...f, locator: f.locator ?? null })),
      commit,
      maps,
      // Strict for other branches, except the closest on a branch's first scan: there it is the
      // branch's only history (its parent, likely), and its code may have moved since.
      tier !== 0 && (tiers[0] === 0 || position > 0),
    );
    m.forEach((k, x) => {
      if (k === null) return;
      const hit = p[k] as { f: Finding; i: number };
      if (taken.has(hit.f.identity)) return;
      taken.add(hit.f.identity);
      result[(n[x] as { j: number }).j] = hit.i;
    });
  }
  return result;
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

export interface FindingFilters {
  suppressed?: boolean | undefined;
  introduced?: boolean | undefined;
  severity?: string[] | undefined;
  status?: string[] | undefined;
  cwe?: string[] | undefined;
  rule?: string[] | undefined;
  analyzer?: string[] | undefined;
  baseline?: string[] | undefined;
  file?: string | undefined;
  /** The review model's label: TRUE_POSITIVE, FALSE_POSITIVE. */
  aiClass?: string[] | undefined;
  minAiConfidence?: number | undefined;
  /** The taint analysis's verdict; "none": findings it did not judge. */
  dataflow?: FindingDataflow["status"] | "none" | undefined;
}

/**
 * Position in the default order: `rank` is the finding's list_rank (migration 0009), the
 * severity rank it had when its scan stored it, which triage never changes.
 */
export interface FindingCursor {
  rank: number;
  file: string;
  line: number;
  id: string;
}

/** Position in a list ordered by the review model's confidence (unlabelled findings last). */
export interface AiFindingCursor {
  ai: number;
  id: string;
}

export type FindingOrder = "severity" | "ai_confidence" | "-ai_confidence";

/**
 * A finding as a list shows it: without the analyzer's raw output and the fix (which can be
 * large and are shown only one finding at a time), the fix reduced to whether it has a diff.
 * Every column a page reads is parsed in the API process, so what is not shown is not read.
 */
export type FindingListRow = Omit<Finding, "raw" | "fix" | "triaged_fields" | "locator"> & { has_fix: boolean };

/** Every column of a list row, as a record so that a column added to findings must be listed here (or omitted above). */
const LISTED: Record<Exclude<keyof FindingListRow, "has_fix">, true> = {
  id: true,
  scan_id: true,
  organization_id: true,
  project_id: true,
  analyzer: true,
  rule_id: true,
  title: true,
  message: true,
  cwe_id: true,
  cwe_name: true,
  owasp: true,
  file: true,
  start_line: true,
  end_line: true,
  start_column: true,
  end_column: true,
  snippet: true,
  fingerprint: true,
  identity: true,
  first_seen_scan_id: true,
  baseline_state: true,
  status: true,
  reason: true,
  remediation: true,
  severity: true,
  impact: true,
  likelihood: true,
  confidence: true,
  severity_rank: true,
  list_rank: true,
  version: true,
  sources: true,
  suppression: true,
  introduced: true,
  dataflow: true,
  ai_class: true,
  ai_confidence: true,
  ai_model: true,
  created_at: true,
  updated_at: true,
};
const LIST_COLUMNS = Object.keys(LISTED) as (keyof typeof LISTED)[];

export function listFindings(
  db: Db,
  q: {
    organizationId: string;
    scanId: string;
    filters: FindingFilters;
    order?: FindingOrder;
    after?: FindingCursor | AiFindingCursor | undefined;
    limit: number;
  },
): Promise<FindingListRow[]> {
  let query = db
    .selectFrom("findings")
    .select(LIST_COLUMNS)
    .select(sql<boolean>`coalesce(jsonb_typeof(fix->'diff') = 'string', false)`.as("has_fix"))
    .where("organization_id", "=", q.organizationId)
    .where("scan_id", "=", q.scanId);
  const f = q.filters;
  if (f.suppressed !== undefined) query = query.where("suppression", f.suppressed ? "is not" : "is", null);
  if (f.introduced !== undefined) query = query.where("introduced", "=", f.introduced);
  if (f.severity?.length) query = query.where("severity", "in", f.severity);
  if (f.status?.length) query = query.where("status", "in", f.status);
  if (f.cwe?.length) query = query.where("cwe_id", "in", f.cwe);
  if (f.rule?.length) query = query.where("rule_id", "in", f.rule);
  if (f.analyzer?.length) query = query.where("analyzer", "in", f.analyzer);
  if (f.baseline?.length) query = query.where("baseline_state", "in", f.baseline as ("new" | "unchanged" | "absent")[]);
  // A scan's findings are its commit's: the records of findings gone since the branch's
  // previous scan ('absent', FIXED) are listed only when asked for.
  else if (!f.status?.includes("FIXED")) query = query.where("baseline_state", "!=", "absent");
  if (f.aiClass?.length) query = query.where("ai_class", "in", f.aiClass);
  if (f.minAiConfidence !== undefined) query = query.where("ai_confidence", ">=", f.minAiConfidence);
  if (f.dataflow === "none") query = query.where("dataflow", "is", null);
  else if (f.dataflow) query = query.where(sql<boolean>`dataflow->>'status' = ${f.dataflow}`);
  if (f.file) {
    // A path prefix: escape LIKE's wildcards so that '%' in a name matches itself.
    const escaped = f.file.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where("file", "like", `${escaped}%`);
  }
  const order = q.order ?? "severity";
  if (order !== "severity") {
    // Unlabelled findings sort last either way: -1 below every confidence, 2 above. The label
    // is written with the scan's findings and triage never touches it, so this key is fixed too.
    const missing = order === "ai_confidence" ? 2 : -1;
    const key = sql<number>`coalesce(ai_confidence, ${missing})`;
    const a = q.after as AiFindingCursor | undefined;
    if (a)
      query = query.where(
        order === "ai_confidence" ? sql<boolean>`(${key}, id) > (${a.ai}, ${a.id})` : sql<boolean>`(${key}, id) < (${a.ai}, ${a.id})`,
      );
    const dir = order === "ai_confidence" ? "asc" : "desc";
    return query.orderBy(key, dir).orderBy("id", dir).limit(q.limit).execute();
  }
  // Keyset over columns that never change once stored (findings_list_idx): a finding triaged
  // while a client pages keeps its place, so every page boundary holds. Not severity_rank,
  // which follows the reviewer's severity.
  if (q.after) {
    const a = q.after as FindingCursor;
    query = query.where(sql<boolean>`(list_rank, file, start_line, id) > (${a.rank}, ${a.file}, ${a.line}, ${a.id})`);
  }
  return query.orderBy("list_rank").orderBy("file").orderBy("start_line").orderBy("id").limit(q.limit).execute();
}

/** The cursor value of a finding in the default order. */
export function findingCursorOf(f: Pick<FindingListRow, "list_rank" | "file" | "start_line" | "id">): FindingCursor {
  return { rank: f.list_rank, file: f.file, line: f.start_line, id: f.id };
}

/** The cursor value of a finding in an AI-confidence ordering. */
export function aiCursorOf(f: Pick<Finding, "id" | "ai_confidence">, order: Exclude<FindingOrder, "severity">): AiFindingCursor {
  return { ai: f.ai_confidence ?? (order === "ai_confidence" ? 2 : -1), id: f.id };
}

export function getFinding(db: Db, organizationId: string, scanId: string, findingId: string): Promise<Finding | undefined> {
  return db
    .selectFrom("findings")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("scan_id", "=", scanId)
    .where("id", "=", findingId)
    .executeTakeFirst();
}

export type UpdateOutcome =
  { kind: "updated"; finding: Finding; changed: string[] } | { kind: "not_found" } | { kind: "conflict"; version: number };

/**
 * Applies the fields present in the patch, and only those, recording what changed in the
 * finding's history. With expectedVersion, a finding changed meanwhile is a conflict.
 */
export async function updateFinding(
  db: Db,
  input: {
    organizationId: string;
    scanId: string;
    findingId: string;
    patch: FindingUpdateBody;
    userId: string;
    expectedVersion?: number | undefined;
  },
): Promise<UpdateOutcome> {
  return db.transaction().execute(async (trx) => {
    // Locks in the order a group's hard delete takes them (project, then its rows): the project
    // first (KEY SHARE: the decision row below references it), so that a delete under way is
    // waited for instead of deadlocking with this finding's row lock.
    const owner = await trx
      .selectFrom("findings")
      .select("project_id")
      .where("organization_id", "=", input.organizationId)
      .where("scan_id", "=", input.scanId)
      .where("id", "=", input.findingId)
      .executeTakeFirst();
    if (!owner) return { kind: "not_found" };
    const project = await trx.selectFrom("projects").select("id").where("id", "=", owner.project_id).forKeyShare().executeTakeFirst();
    if (!project) return { kind: "not_found" };
    const current = await trx
      .selectFrom("findings")
      .selectAll()
      .where("organization_id", "=", input.organizationId)
      .where("scan_id", "=", input.scanId)
      .where("id", "=", input.findingId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return { kind: "not_found" };
    if (input.expectedVersion !== undefined && input.expectedVersion !== current.version)
      return { kind: "conflict", version: current.version };

    const changes: Record<string, { from: string | null; to: string | null }> = {};
    const set: Partial<Record<TriageField, string>> = {};
    for (const field of TRIAGE_FIELDS) {
      const value = input.patch[field];
      if (value === undefined) continue;
      if (current[field] !== value) {
        changes[field] = { from: current[field], to: value };
        set[field] = value;
      }
    }
    const changed = Object.keys(changes);
    if (changed.length === 0) return { kind: "updated", finding: current, changed };

    const version = current.version + 1;
    const finding = await trx
      .updateTable("findings")
      .set({
        ...set,
        triaged_fields: [...new Set([...current.triaged_fields, ...changed])],
        version,
        updated_at: sql`now()`,
      })
      .where("id", "=", current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    // The decision belongs to the project: kept per identity and branch for every later scan,
    // whichever scan it was made on (merged into the branch's earlier decision on it).
    const scan = await trx
      .selectFrom("scans")
      .select("branch")
      .where("organization_id", "=", input.organizationId)
      .where("id", "=", current.scan_id)
      .executeTakeFirst();
    await trx
      .insertInto("triage_decisions")
      .values({
        project_id: current.project_id,
        organization_id: input.organizationId,
        identity: current.identity,
        branch: scan?.branch ?? "",
        fields: JSON.stringify(set),
        finding_id: current.id,
        decided_by: input.userId,
        decided_at: sql`now()`,
      })
      .onConflict((oc) =>
        oc.columns(["project_id", "identity", "branch"]).doUpdateSet({
          fields: sql`triage_decisions.fields || excluded.fields`,
          finding_id: sql`excluded.finding_id`,
          decided_by: sql`excluded.decided_by`,
          decided_at: sql`now()`,
        }),
      )
      .execute();
    await trx
      .insertInto("finding_history")
      .values({
        id: newId(),
        finding_id: current.id,
        organization_id: input.organizationId,
        changed_by: input.userId,
        source: "review",
        carried_from: null,
        changes: JSON.stringify(changes),
        version,
      })
      .execute();
    return { kind: "updated", finding, changed };
  });
}

export function findingHistory(
  db: Db,
  organizationId: string,
  findingId: string,
): Promise<(FindingHistory & { display_name: string | null })[]> {
  return db
    .selectFrom("finding_history as h")
    .leftJoin("users as u", "u.id", "h.changed_by")
    .selectAll("h")
    .select("u.display_name")
    .where("h.organization_id", "=", organizationId)
    .where("h.finding_id", "=", findingId)
    .orderBy("h.version")
    .orderBy("h.created_at")
    .execute();
}

/** Every finding of a scan in report order (SARIF export). */
export function allFindings(db: Db, organizationId: string, scanId: string): Promise<Finding[]> {
  return db
    .selectFrom("findings")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("scan_id", "=", scanId)
    .orderBy("severity_rank")
    .orderBy("file")
    .orderBy("start_line")
    .orderBy("id")
    .execute();
}

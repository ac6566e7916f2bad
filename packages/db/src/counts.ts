/**
 * A scan's counts, computed from its findings as they are now. The `scans.counts` column is
 * written once when a scan is stored and goes stale with the first triage, so nothing reads
 * it: every view of a scan (API, chat, webhooks) asks here, a page of scans in one query.
 */
import { sql, type RawBuilder } from "kysely";
import {
  FINDING_STATUSES,
  OPEN_STATUSES,
  SCAN_COUNT_KEYS,
  SEVERITIES,
  STATUS_COUNT_KEYS,
  type FindingStatus,
  type ScanCountKey,
  type Severity,
} from "@ax/contracts";
import type { Db } from "./client";

/** By key of SCAN_COUNT_KEYS; `{}` for a scan that has stored nothing (see scanCounts). */
export type ScanCounts = Record<string, number>;

// The three kinds of row a scan holds, exclusive: a finding that disappeared since the
// branch's previous scan (only ever `fixed`), one suppressed in the source (only
// `suppressed`), and the findings the scan reports, which the other keys break down.
const absent = sql<boolean>`f.baseline_state = 'absent'`;
const suppressed = sql<boolean>`f.baseline_state <> 'absent' and f.suppression is not null`;
const present = sql<boolean>`f.baseline_state <> 'absent' and f.suppression is null`;
const open = sql<boolean>`${present} and f.status in (${sql.join(OPEN_STATUSES.map((s) => sql.lit(s)))})`;

const tally = (where: RawBuilder<boolean>) => sql<number>`(count(*) filter (where ${where}))::int`;

/** Each key's condition on a finding row `f`; severities as a reviewer last set them. */
const KEYED: Record<ScanCountKey, RawBuilder<boolean>> = {
  ...(Object.fromEntries(SEVERITIES.map((s) => [s, sql<boolean>`${open} and f.severity = ${sql.lit(s)}`])) as Record<
    Severity,
    RawBuilder<boolean>
  >),
  total: open,
  new: sql<boolean>`${open} and f.baseline_state = 'new'`,
  fixed: absent,
  suppressed,
  introduced: sql<boolean>`${open} and f.introduced`,
  ...(Object.fromEntries(
    (Object.entries(STATUS_COUNT_KEYS) as [FindingStatus, string][]).map(([status, key]) => [
      key,
      sql<boolean>`${present} and f.status = ${sql.lit(status)}`,
    ]),
  ) as Record<(typeof STATUS_COUNT_KEYS)[FindingStatus], RawBuilder<boolean>>),
};

/**
 * Counts of the given scans of one organization, by scan id, in one query. Another
 * organization's scan, or an unknown id, is not in the map. A scan with findings, or a
 * completed one, has every key of SCAN_COUNT_KEYS (0 when none); a queued, running, failed
 * or cancelled scan without findings has `{}`, as it had before counts were computed: it
 * has not counted anything, which is not the same as having found nothing.
 */
export async function scanCounts(db: Db, organizationId: string, scanIds: readonly string[]): Promise<Map<string, ScanCounts>> {
  const ids = [...new Set(scanIds)];
  const out = new Map<string, ScanCounts>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom("scans as s")
    // The organization on both sides: findings carry it, and every query is scoped by it.
    .leftJoin("findings as f", (j) => j.onRef("f.scan_id", "=", "s.id").onRef("f.organization_id", "=", "s.organization_id"))
    .select(["s.id", "s.state"])
    .select(sql<number>`count(f.id)::int`.as("rows"))
    .select(SCAN_COUNT_KEYS.map((key) => tally(KEYED[key]).as(key)))
    .where("s.organization_id", "=", organizationId)
    .where("s.id", "in", ids)
    .groupBy(["s.id", "s.state"])
    .execute();
  for (const row of rows) {
    const r = row as unknown as Record<string, number> & { id: string; state: string; rows: number };
    out.set(r.id, r.rows === 0 && r.state !== "completed" ? {} : Object.fromEntries(SCAN_COUNT_KEYS.map((k) => [k, r[k] ?? 0])));
  }
  return out;
}

/**
 * The same figures grouped, for clients that want severities and statuses as maps of their own
 * rather than keys mixed with the other tallies in one flat map (which `counts` stays, for the
 * clients that read it). Null for a scan that has counted nothing (`counts` is `{}`).
 */
export interface ScanCountSummary {
  /** Open findings by current severity (flat keys CRITICAL … INFO). */
  by_severity: Record<Severity, number>;
  /** The findings the scan reports (present, not suppressed) by status (flat `to_review` … `marked_fixed`). */
  by_status: Record<FindingStatus, number>;
  /** Open findings (flat `total`). */
  open: number;
  new: number;
  introduced: number;
  fixed: number;
  suppressed: number;
}

export function summarizeCounts(counts: ScanCounts): ScanCountSummary | null {
  if (Object.keys(counts).length === 0) return null;
  const n = (key: string) => counts[key] ?? 0;
  return {
    by_severity: Object.fromEntries(SEVERITIES.map((s) => [s, n(s)])) as Record<Severity, number>,
    by_status: Object.fromEntries(FINDING_STATUSES.map((s) => [s, n(STATUS_COUNT_KEYS[s])])) as Record<FindingStatus, number>,
    open: n("total"),
    new: n("new"),
    introduced: n("introduced"),
    fixed: n("fixed"),
    suppressed: n("suppressed"),
  };
}

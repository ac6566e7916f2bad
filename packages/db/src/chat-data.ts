/**
 * What the chat assistant may read: scans and findings of one organization, optionally of
 * one group. Every query carries both filters, so a specialist cannot reach further even by
 * naming another tenant's id.
 */
import { sql } from "kysely";
import type { Db } from "./client";
import type { Finding, Scan } from "./schema";

export interface ChatScope {
  organizationId: string;
  groupId: string | null;
}

export type ScanWithGroup = Scan & { group_name: string };

function scans(db: Db, scope: ChatScope) {
  let q = db
    .selectFrom("scans")
    .innerJoin("groups", "groups.id", "scans.group_id")
    .selectAll("scans")
    .select("groups.name as group_name")
    .where("scans.organization_id", "=", scope.organizationId);
  if (scope.groupId) q = q.where("scans.group_id", "=", scope.groupId);
  return q;
}

export function recentScansInScope(db: Db, scope: ChatScope, limit: number): Promise<ScanWithGroup[]> {
  return scans(db, scope).orderBy("scans.created_at", "desc").orderBy("scans.id", "desc").limit(limit).execute();
}

export function scanInScope(db: Db, scope: ChatScope, scanId: string): Promise<ScanWithGroup | undefined> {
  return scans(db, scope).where("scans.id", "=", scanId).executeTakeFirst();
}

function findings(db: Db, scope: ChatScope) {
  let q = db
    .selectFrom("findings")
    .innerJoin("scans", "scans.id", "findings.scan_id")
    .selectAll("findings")
    .where("findings.organization_id", "=", scope.organizationId);
  if (scope.groupId) q = q.where("scans.group_id", "=", scope.groupId);
  return q;
}

/** Unsuppressed findings of a scan, most severe first. */
export function findingsInScope(db: Db, scope: ChatScope, scanId: string, limit: number): Promise<Finding[]> {
  return findings(db, scope)
    .where("findings.scan_id", "=", scanId)
    .where("findings.suppression", "is", null)
    .orderBy("findings.severity_rank")
    .orderBy("findings.file")
    .orderBy("findings.start_line")
    .orderBy("findings.id")
    .limit(limit)
    .execute();
}

export function findingInScope(db: Db, scope: ChatScope, findingId: string): Promise<Finding | undefined> {
  return findings(db, scope).where("findings.id", "=", findingId).executeTakeFirst();
}

export async function cweCountsInScope(
  db: Db,
  scope: ChatScope,
  scanId: string,
  limit: number,
): Promise<{ cwe_id: string; cwe_name: string | null; count: number }[]> {
  const rows = await findings(db, scope)
    .clearSelect()
    .select(["findings.cwe_id", sql<string | null>`max(findings.cwe_name)`.as("cwe_name"), sql<number>`count(*)::int`.as("count")])
    .where("findings.scan_id", "=", scanId)
    .where("findings.suppression", "is", null)
    .where("findings.cwe_id", "is not", null)
    .groupBy("findings.cwe_id")
    .orderBy(sql`count(*)`, "desc")
    .orderBy("findings.cwe_id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ cwe_id: r.cwe_id as string, cwe_name: r.cwe_name, count: r.count }));
}

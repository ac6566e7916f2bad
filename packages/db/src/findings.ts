import { sql } from "kysely";
import { TRIAGE_FIELDS, type FindingUpdateBody, type TriageField } from "@ax/contracts";
import type { Db } from "./client";
import { newId } from "./ids";
import type { Finding, FindingHistory } from "./schema";

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
interface FindingUpdateInput {
  organizationId: string;
  scanId: string;
  findingId: string;
  patch: FindingUpdateBody;
  userId: string;
  expectedVersion?: number | undefined;
}

export async function updateFinding(db: Db, input: FindingUpdateInput): Promise<UpdateOutcome> {
  return db.transaction().execute(async (trx) => {
    const current = await lockFinding(trx, input);
    if (!current) return { kind: "not_found" };
    if (input.expectedVersion !== undefined && input.expectedVersion !== current.version)
      return { kind: "conflict", version: current.version };

    const { changes, set } = triageChanges(current, input.patch);
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
    await recordDecision(trx, input, current, set);
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

/**
 * The finding, locked for update; undefined when it or its project is gone. Locks in the order
 * a group's hard delete takes them (project, then its rows): the project first (KEY SHARE: the
 * decision row references it), so that a delete under way is waited for instead of
 * deadlocking with this finding's row lock.
 */
async function lockFinding(trx: Db, input: FindingUpdateInput): Promise<Finding | undefined> {
  const owner = await trx
    .selectFrom("findings")
    .select("project_id")
    .where("organization_id", "=", input.organizationId)
    .where("scan_id", "=", input.scanId)
    .where("id", "=", input.findingId)
    .executeTakeFirst();
  if (!owner) return undefined;
  const project = await trx.selectFrom("projects").select("id").where("id", "=", owner.project_id).forKeyShare().executeTakeFirst();
  if (!project) return undefined;
  return trx
    .selectFrom("findings")
    .selectAll()
    .where("organization_id", "=", input.organizationId)
    .where("scan_id", "=", input.scanId)
    .where("id", "=", input.findingId)
    .forUpdate()
    .executeTakeFirst();
}

/** The triage fields of the patch whose value differs from the finding's: what changes, and the values to set. */
function triageChanges(current: Finding, patch: FindingUpdateBody) {
  const changes: Record<string, { from: string | null; to: string | null }> = {};
  const set: Partial<Record<TriageField, string>> = {};
  for (const field of TRIAGE_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (current[field] !== value) {
      changes[field] = { from: current[field], to: value };
      set[field] = value;
    }
  }
  return { changes, set };
}

/**
 * The decision belongs to the project: kept per identity and branch for every later scan,
 * whichever scan it was made on (merged into the branch's earlier decision on it).
 */
async function recordDecision(
  trx: Db,
  input: FindingUpdateInput,
  current: Finding,
  set: Partial<Record<TriageField, string>>,
): Promise<void> {
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

import { sql } from "kysely";
import type { AnalyzerRun, ScanPhase } from "@ax/contracts";
import type { Db } from "./client";
import { newId } from "./ids";
import type { Project, Scan } from "./schema";

export async function findOrCreateProject(
  db: Db,
  input: { organizationId: string; groupId: string; gitUrl: string; name: string },
): Promise<Project> {
  // A concurrent group delete can remove the existing row between the insert that found it
  // and the select: then insert again, which either creates the project or fails the
  // group's foreign key (the caller's "group not found").
  for (let attempt = 0; ; attempt++) {
    const inserted = await db
      .insertInto("projects")
      .values({ id: newId(), organization_id: input.organizationId, group_id: input.groupId, git_url: input.gitUrl, name: input.name })
      .onConflict((oc) => oc.columns(["group_id", "git_url"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return inserted;
    const existing = await db
      .selectFrom("projects")
      .selectAll()
      .where("group_id", "=", input.groupId)
      .where("git_url", "=", input.gitUrl)
      .executeTakeFirst();
    if (existing) return existing;
    if (attempt >= 2) throw new Error("findOrCreateProject: the project keeps disappearing");
  }
}

export function listProjects(db: Db, organizationId: string, groupId: string, after: string | undefined, limit: number) {
  let q = db.selectFrom("projects").selectAll().where("organization_id", "=", organizationId).where("group_id", "=", groupId);
  if (after) q = q.where("git_url", ">", after);
  return q.orderBy("git_url").limit(limit).execute();
}

export function getProject(db: Db, organizationId: string, projectId: string) {
  return db.selectFrom("projects").selectAll().where("organization_id", "=", organizationId).where("id", "=", projectId).executeTakeFirst();
}

export interface NewScan {
  organizationId: string;
  groupId: string;
  projectId: string;
  /** Null for public scans, which no user requests. */
  createdBy: string | null;
  gitUri: string;
  branch: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  baselineCommit?: string | null;
  /** Refuse (ScanLimitError) when the organization already has this many queued or running. */
  maxInFlight?: number;
}

/** The organization already has `limit` scans queued or running. */
export class ScanLimitError extends Error {
  constructor(readonly limit: number) {
    super(`organization has ${limit} scans in flight`);
  }
}

/**
 * Inserts a queued scan. With an idempotency key, a repeated request returns the scan the
 * first one made (`created: false`) instead of starting another, even at the in-flight limit.
 */
export async function createScan(db: Db, input: NewScan): Promise<{ scan: Scan; created: boolean }> {
  const max = input.maxInFlight;
  if (!max) return insertScan(db, input);
  return db.transaction().execute(async (trx) => {
    // Serialises scan creation per organization, so that the count below cannot be raced by a
    // burst of requests. NO KEY UPDATE leaves foreign-key checks on the row unblocked.
    await trx.selectFrom("organizations").select("id").where("id", "=", input.organizationId).forNoKeyUpdate().execute();
    if (input.idempotencyKey) {
      const existing = await findIdempotent(trx, input);
      if (existing) return { scan: existing, created: false };
    }
    const { n } = await trx
      .selectFrom("scans")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("organization_id", "=", input.organizationId)
      .where("state", "in", ["queued", "running"])
      .executeTakeFirstOrThrow();
    if (Number(n) >= max) throw new ScanLimitError(max);
    return insertScan(trx, input);
  });
}

async function insertScan(db: Db, input: NewScan): Promise<{ scan: Scan; created: boolean }> {
  const inserted = await db
    .insertInto("scans")
    .values({
      id: newId(),
      organization_id: input.organizationId,
      group_id: input.groupId,
      project_id: input.projectId,
      created_by: input.createdBy,
      git_uri: input.gitUri,
      requested_branch: input.branch,
      branch: input.branch,
      idempotency_key: input.idempotencyKey,
      request_hash: input.requestHash,
      baseline_commit: input.baselineCommit ?? null,
      analyzers: "[]",
      counts: "{}",
    })
    .onConflict((oc) =>
      oc.columns(["organization_id", "created_by", "idempotency_key"]).where("idempotency_key", "is not", null).doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { scan: inserted, created: true };
  const existing = await findIdempotent(db, input);
  if (!existing) throw new Error("createScan: the scan holding this idempotency key disappeared");
  return { scan: existing, created: false };
}

function findIdempotent(db: Db, input: NewScan): Promise<Scan | undefined> {
  return db
    .selectFrom("scans")
    .selectAll()
    .where("organization_id", "=", input.organizationId)
    .where("created_by", "=", input.createdBy)
    .where("idempotency_key", "=", input.idempotencyKey)
    .executeTakeFirst();
}

export function deleteScanRow(db: Db, scanId: string) {
  return db.deleteFrom("scans").where("id", "=", scanId).execute();
}

/** A scan of one of the given organizations (the caller's), or undefined. */
export function getScan(db: Db, organizationIds: string[], scanId: string): Promise<Scan | undefined> {
  if (organizationIds.length === 0) return Promise.resolve(undefined);
  return db.selectFrom("scans").selectAll().where("id", "=", scanId).where("organization_id", "in", organizationIds).executeTakeFirst();
}

/** Worker-side read: the worker acts for every tenant, the job names the org. */
export function getScanForJob(db: Db, organizationId: string, scanId: string) {
  return getScan(db, [organizationId], scanId);
}

export interface ScanListQuery {
  organizationId: string;
  groupId?: string | undefined;
  projectId?: string | undefined;
  state?: string | undefined;
  before?: { created_at: Date; id: string } | undefined;
  limit: number;
}

export function listScans(db: Db, q: ScanListQuery): Promise<Scan[]> {
  let query = db.selectFrom("scans").selectAll().where("organization_id", "=", q.organizationId);
  if (q.groupId) query = query.where("group_id", "=", q.groupId);
  if (q.projectId) query = query.where("project_id", "=", q.projectId);
  if (q.state) query = query.where("state", "=", q.state);
  if (q.before) {
    const b = q.before;
    query = query.where(sql<boolean>`(created_at, id) < (${b.created_at}, ${b.id})`);
  }
  return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(q.limit).execute();
}

/** queued|running → running, counting the attempt. Undefined when the scan ended or is gone. */
export function markRunning(db: Db, scanId: string): Promise<Scan | undefined> {
  return db
    .updateTable("scans")
    .set((eb) => ({
      state: "running",
      phase: "cloning",
      progress: 5,
      error: null,
      attempts: eb("attempts", "+", 1),
      started_at: sql`coalesce(started_at, now())`,
      updated_at: sql`now()`,
    }))
    .where("id", "=", scanId)
    .where("state", "in", ["queued", "running"])
    .returningAll()
    .executeTakeFirst();
}

export async function updateProgress(
  db: Db,
  scanId: string,
  patch: { phase?: ScanPhase; progress?: number; commit?: string; branch?: string; languages?: string[] },
): Promise<boolean> {
  const res = await db
    .updateTable("scans")
    .set({
      ...(patch.phase ? { phase: patch.phase } : {}),
      ...(patch.progress !== undefined ? { progress: Math.max(0, Math.min(100, Math.round(patch.progress))) } : {}),
      ...(patch.commit ? { commit_sha: patch.commit } : {}),
      ...(patch.branch ? { branch: patch.branch } : {}),
      ...(patch.languages ? { languages: patch.languages } : {}),
      updated_at: sql`now()`,
    })
    .where("id", "=", scanId)
    .where("state", "=", "running")
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function getState(db: Db, scanId: string): Promise<string | undefined> {
  const row = await db.selectFrom("scans").select("state").where("id", "=", scanId).executeTakeFirst();
  return row?.state;
}

/** Ends a scan as failed, once: a scan that already ended keeps its first ending. */
export async function failScan(db: Db, scanId: string, error: string, analyzers?: AnalyzerRun[]): Promise<boolean> {
  const res = await db
    .updateTable("scans")
    .set({
      state: "failed",
      error,
      finished_at: sql`now()`,
      updated_at: sql`now()`,
      ...(analyzers ? { analyzers: JSON.stringify(analyzers) } : {}),
    })
    .where("id", "=", scanId)
    .where("state", "in", ["queued", "running"])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export function cancelScan(db: Db, organizationId: string, scanId: string): Promise<Scan | undefined> {
  return db
    .updateTable("scans")
    .set({ state: "cancelled", finished_at: sql`now()`, updated_at: sql`now()`, error: "Cancelled by request." })
    .where("id", "=", scanId)
    .where("organization_id", "=", organizationId)
    .where("state", "in", ["queued", "running"])
    .returningAll()
    .executeTakeFirst();
}

/** Scans that should have a job in the queue and have not moved for a while. */
export function listStaleActiveScans(db: Db, olderThanMs: number, limit = 500) {
  return db
    .selectFrom("scans")
    .select(["id", "organization_id", "state"])
    .where("state", "in", ["queued", "running"])
    .where("updated_at", "<", new Date(Date.now() - olderThanMs))
    .orderBy("updated_at")
    .limit(limit)
    .execute();
}

/** A running scan whose job was lost goes back to queued, so that it is re-run from scratch. */
export async function requeueScan(db: Db, scanId: string): Promise<void> {
  await db
    .updateTable("scans")
    .set({ state: "queued", phase: null, progress: 0, updated_at: sql`now()` })
    .where("id", "=", scanId)
    .where("state", "in", ["queued", "running"])
    .execute();
}

export async function touchScan(db: Db, scanId: string): Promise<void> {
  await db
    .updateTable("scans")
    .set({ updated_at: sql`now()` })
    .where("id", "=", scanId)
    .execute();
}

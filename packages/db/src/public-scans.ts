import type { Db } from "./client";
import { newId } from "./ids";
import { ensureDefaultGroup } from "./orgs";
import type { Scan } from "./schema";

/** `organizations.internal_key` of the organization that owns every public scan. */
export const PUBLIC_ORG_KEY = "public";

/**
 * The internal organization with this key and its default group, created on first use. No
 * membership is ever added, so no token reaches its scans through the private endpoints.
 * Concurrent first calls race on the unique key: the loser reads the winner's row.
 */
export async function ensureInternalOrganization(db: Db, key: string): Promise<{ organizationId: string; groupId: string }> {
  await db
    .insertInto("organizations")
    .values({ id: newId(), name: key, internal_key: key })
    .onConflict((oc) => oc.column("internal_key").doNothing())
    .execute();
  const org = await db.selectFrom("organizations").select("id").where("internal_key", "=", key).executeTakeFirstOrThrow();
  const group = await ensureDefaultGroup(db, org.id);
  return { organizationId: org.id, groupId: group.id };
}

/** The internal organization's id, or undefined before its first use. */
export async function internalOrganizationId(db: Db, key: string): Promise<string | undefined> {
  const org = await db.selectFrom("organizations").select("id").where("internal_key", "=", key).executeTakeFirst();
  return org?.id;
}

/** Whether an organization is the public scans' (the worker applies their stricter URL policy). */
export async function isPublicOrganization(db: Db, organizationId: string): Promise<boolean> {
  const org = await db.selectFrom("organizations").select("internal_key").where("id", "=", organizationId).executeTakeFirst();
  return org?.internal_key === PUBLIC_ORG_KEY;
}

/** A public scan created after `notBefore` (older ones are expired: gone, as far as readers know). */
export function getPublicScan(db: Db, organizationId: string, scanId: string, notBefore: Date): Promise<Scan | undefined> {
  return db
    .selectFrom("scans")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("id", "=", scanId)
    .where("created_at", ">=", notBefore)
    .executeTakeFirst();
}

export interface PublicScanPurge {
  scans: number;
  findings: number;
  projects: number;
}

/**
 * Hard-deletes the public organization's scans created before `before`, their findings (by
 * cascade) and the projects left without scans. Idempotent: a second run finds nothing.
 */
export async function deleteExpiredPublicScans(db: Db, before: Date): Promise<PublicScanPurge> {
  const organizationId = await internalOrganizationId(db, PUBLIC_ORG_KEY);
  if (!organizationId) return { scans: 0, findings: 0, projects: 0 };
  return db.transaction().execute(async (trx) => {
    const expired = trx.selectFrom("scans").select("id").where("organization_id", "=", organizationId).where("created_at", "<", before);
    const { n } = await trx
      .selectFrom("findings")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("scan_id", "in", expired)
      .executeTakeFirstOrThrow();
    const scans = await trx
      .deleteFrom("scans")
      .where("organization_id", "=", organizationId)
      .where("created_at", "<", before)
      .executeTakeFirst();
    // Only projects older than the retention: a project created for a public scan that is
    // being started has no scan row yet, and deleting it would fail that scan's insert.
    const projects = await trx
      .deleteFrom("projects")
      .where("organization_id", "=", organizationId)
      .where("created_at", "<", before)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("scans").select("id").whereRef("scans.project_id", "=", "projects.id"))),
      )
      .executeTakeFirst();
    return { scans: Number(scans.numDeletedRows), findings: Number(n), projects: Number(projects.numDeletedRows) };
  });
}

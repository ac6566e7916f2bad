import type { Db } from "./client";
import { newId } from "./ids";
import type { Group, Organization, Role, User } from "./schema";

export const DEFAULT_GROUP = "default";

export async function createOrganization(db: Db, name: string): Promise<{ organization: Organization; group: Group }> {
  return db.transaction().execute(async (trx) => {
    const organization = await trx.insertInto("organizations").values({ id: newId(), name }).returningAll().executeTakeFirstOrThrow();
    const group = await trx
      .insertInto("groups")
      .values({ id: newId(), organization_id: organization.id, name: DEFAULT_GROUP })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { organization, group };
  });
}

export function getOrganization(db: Db, id: string): Promise<Organization | undefined> {
  return db.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirst();
}

export function countOrganizations(db: Db): Promise<number> {
  return (
    db
      .selectFrom("organizations")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      // Internal organizations (public scans) are nobody's: they do not make a database "used".
      .where("internal_key", "is", null)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n))
  );
}

export function createUser(
  db: Db,
  input: { email: string; displayName: string; identityProvider: string; isInstanceAdmin?: boolean },
): Promise<User> {
  return db
    .insertInto("users")
    .values({
      id: newId(),
      email: input.email,
      display_name: input.displayName,
      identity_provider: input.identityProvider,
      is_instance_admin: input.isInstanceAdmin ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function getUser(db: Db, id: string): Promise<User | undefined> {
  return db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function addMember(db: Db, organizationId: string, userId: string, role: Role): Promise<void> {
  await db
    .insertInto("memberships")
    .values({ organization_id: organizationId, user_id: userId, role })
    .onConflict((oc) => oc.columns(["organization_id", "user_id"]).doUpdateSet({ role }))
    .execute();
}

export function listGroups(db: Db, organizationId: string, after: string | undefined, limit: number): Promise<Group[]> {
  let q = db.selectFrom("groups").selectAll().where("organization_id", "=", organizationId);
  if (after) q = q.where("name", ">", after);
  return q.orderBy("name").limit(limit).execute();
}

export function getGroup(db: Db, organizationId: string, groupId: string): Promise<Group | undefined> {
  return db.selectFrom("groups").selectAll().where("organization_id", "=", organizationId).where("id", "=", groupId).executeTakeFirst();
}

/** Creates a group; undefined when the organization already has one of that name. */
export function createGroup(db: Db, organizationId: string, name: string): Promise<Group | undefined> {
  return db
    .insertInto("groups")
    .values({ id: newId(), organization_id: organizationId, name })
    .onConflict((oc) => oc.columns(["organization_id", "name"]).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * The organization's default group, created on first use. A concurrent delete of that group
 * between the insert and the select makes it be created again, as on first use.
 */
export async function ensureDefaultGroup(db: Db, organizationId: string): Promise<Group> {
  for (let attempt = 0; ; attempt++) {
    const created = await createGroup(db, organizationId, DEFAULT_GROUP);
    if (created) return created;
    const group = await db
      .selectFrom("groups")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("name", "=", DEFAULT_GROUP)
      .executeTakeFirst();
    if (group) return group;
    if (attempt >= 2) throw new Error("ensureDefaultGroup: the default group keeps disappearing");
  }
}

export interface GroupDeletion {
  projects: number;
  scans: number;
  findings: number;
  scanIds: string[];
  /** What the workers must forget too (their kept state of these projects). */
  projectIds: string[];
}

/**
 * Hard-deletes a group with its projects, scans and findings in one transaction. The group
 * row is locked first so that a scan created concurrently either lands before (and is
 * deleted) or fails its foreign key after. Undefined when the group is not the org's.
 */
export async function deleteGroup(db: Db, organizationId: string, groupId: string): Promise<GroupDeletion | undefined> {
  return db.transaction().execute(async (trx) => {
    const group = await trx
      .selectFrom("groups")
      .select("id")
      .where("organization_id", "=", organizationId)
      .where("id", "=", groupId)
      .forUpdate()
      .executeTakeFirst();
    if (!group) return undefined;
    // The projects next, before the cascade reaches their rows: a reviewer's change and a scan's
    // store lock the project before its rows too, so each waits for the other, never deadlocks.
    const projectIds = (
      await trx.selectFrom("projects").select("id").where("group_id", "=", groupId).orderBy("id").forUpdate().execute()
    ).map((p) => p.id);
    const scans = await trx.selectFrom("scans").select(["id"]).where("group_id", "=", groupId).execute();
    const scanIds = scans.map((s) => s.id);
    const counts = await trx
      .selectFrom("projects")
      .select((eb) => [
        eb.fn.countAll<string>().as("projects"),
        eb
          .selectFrom("findings")
          .innerJoin("scans", "scans.id", "findings.scan_id")
          .where("scans.group_id", "=", groupId)
          .select((e2) => e2.fn.countAll<string>().as("n"))
          .as("findings"),
      ])
      .where("group_id", "=", groupId)
      .executeTakeFirstOrThrow();
    await trx.deleteFrom("groups").where("id", "=", groupId).execute();
    return {
      projects: Number(counts.projects),
      scans: scanIds.length,
      findings: Number(counts.findings ?? 0),
      scanIds,
      projectIds,
    };
  });
}

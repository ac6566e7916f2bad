import { SCAN_QUEUE, type GroupDeleted, type GroupView } from "@ax/contracts";
import { createGroup, deleteGroup, getGroup, getProject, isId, listGroups, listProjects, type Group, type GroupDeletion } from "@ax/db";
import { publishProjectsDeleted } from "@ax/queue";
import type { AppDeps } from "../http/context";
import { conflict, notFound } from "../http/errors";
import { nameKeyOf, namePage } from "./paging";
import { presentGroup, presentProject } from "./presenters";
import { scanPage } from "./scans";
import { emitGroupDeleted } from "./webhooks";

/**
 * The group hard delete: the rows in one transaction, then what lives outside PostgreSQL —
 * the group's waiting jobs, what the workers keep of its projects on their own disks, the
 * webhook event. Each step after the commit is best effort: the delete has happened, and
 * what a step misses is caught up by whoever owns it (running scans stop on their own, the
 * workers sweep at start and hourly). Undefined when the group is not the organization's.
 */
export async function hardDeleteGroup(deps: AppDeps, organizationId: string, groupId: string): Promise<GroupDeletion | undefined> {
  const result = await deleteGroup(deps.db, organizationId, groupId);
  if (!result) return undefined;
  for (const scanId of result.scanIds) await deps.queue.removeIfWaiting(SCAN_QUEUE, scanId).catch(() => false);
  await announceDeletedProjects(deps, organizationId, result.projectIds);
  await emitGroupDeleted(deps, organizationId, groupId, { projects: result.projects, scans: result.scans, findings: result.findings });
  deps.logger.info("group deleted", { organization_id: organizationId, group_id: groupId, projects: result.projects, scans: result.scans });
  return result;
}

/** Workers may run on machines the API cannot reach: each removes its own copy on this notice. */
async function announceDeletedProjects(deps: AppDeps, organizationId: string, projectIds: string[]): Promise<void> {
  if (projectIds.length === 0) return;
  await publishProjectsDeleted(deps.redis, deps.config.redis.queuePrefix, {
    organization_id: organizationId,
    project_ids: projectIds,
  }).catch((err: Error) =>
    deps.logger.warn("could not notify the workers of deleted projects; their hourly sweep removes what they kept", {
      organization_id: organizationId,
      error: err.message,
    }),
  );
}

/** A group of the organization; 404 for an unknown one. */
export async function loadGroup(deps: AppDeps, organizationId: string, groupId: string): Promise<Group> {
  const group = isId(groupId) ? await getGroup(deps.db, organizationId, groupId) : undefined;
  if (!group) throw notFound("Group");
  return group;
}

/** The organization's groups in name order (the caller's role is checked by the route). */
export async function groupPage(
  deps: AppDeps,
  organizationId: string,
  cursor: string | undefined,
  limit: number,
): Promise<{ groups: GroupView[]; next_cursor: string | null }> {
  const rows = await listGroups(deps.db, organizationId, nameKeyOf(cursor), limit + 1);
  const page = namePage(rows, limit, (g) => g.name);
  return { groups: page.items.map(presentGroup), next_cursor: page.next_cursor };
}

/** A new group; 409 when the organization has one of that name. */
export async function addGroup(deps: AppDeps, organizationId: string, name: string): Promise<GroupView> {
  const group = await createGroup(deps.db, organizationId, name);
  if (!group) throw conflict("A group with this name already exists in the organization.");
  return presentGroup(group);
}

/** DELETE …/group/{id}: the hard delete, and what it removed. */
export async function deleteGroupFor(deps: AppDeps, organizationId: string, groupId: string): Promise<GroupDeleted> {
  if (!isId(groupId)) throw notFound("Group");
  const result = await hardDeleteGroup(deps, organizationId, groupId);
  if (!result) throw notFound("Group");
  return {
    message: "Group deleted",
    group_id: groupId,
    deleted: { projects: result.projects, scans: result.scans, findings: result.findings },
  };
}

/** A group's projects in repository URL order. */
export async function projectPage(deps: AppDeps, organizationId: string, groupId: string, cursor: string | undefined, limit: number) {
  const group = await loadGroup(deps, organizationId, groupId);
  const rows = await listProjects(deps.db, organizationId, group.id, nameKeyOf(cursor), limit + 1);
  const page = namePage(rows, limit, (r) => r.git_url);
  return { projects: page.items.map(presentProject), next_cursor: page.next_cursor };
}

/** The scans of a project of the group, newest first; 404 for a project of another group. */
export async function projectScanPage(
  deps: AppDeps,
  q: { organizationId: string; groupId: string; projectId: string; cursor: string | undefined; limit: number },
) {
  const group = await loadGroup(deps, q.organizationId, q.groupId);
  const project = isId(q.projectId) ? await getProject(deps.db, q.organizationId, q.projectId) : undefined;
  if (!project || project.group_id !== group.id) throw notFound("Project");
  return scanPage(deps, { organizationId: q.organizationId, projectId: project.id, cursor: q.cursor, limit: q.limit });
}

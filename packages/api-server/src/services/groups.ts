import { SCAN_QUEUE } from "@ax/contracts";
import { deleteGroup, type GroupDeletion } from "@ax/db";
import { publishProjectsDeleted } from "@ax/queue";
import type { AppDeps } from "../http/context";
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
  await publishProjectsDeleted(deps.redis, deps.config.redis.queuePrefix, { organization_id: organizationId, project_ids: projectIds }).catch((err: Error) =>
    deps.logger.warn("could not notify the workers of deleted projects; their hourly sweep removes what they kept", { organization_id: organizationId, error: err.message }),
  );
}

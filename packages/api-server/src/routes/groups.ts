import { z } from "zod";
import { ErrorBody, GroupCreateBody, GroupDeleted, GroupView, Id, ProjectView, ScanView, listOf } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit, commonErrors } from "../http/schemas";
import { requireRole } from "../services/access";
import { addGroup, deleteGroupFor, groupPage, projectPage, projectScanPage } from "../services/groups";

const OrgParams = z.object({ organization_id: Id });
const GroupParams = OrgParams.extend({ group_id: Id });

const listGroupsRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/organization/:organization_id/group",
    operationId: "listGroups",
    summary: "Groups of an organization",
    tags: ["Scan"],
    params: OrgParams,
    query: z.object({ cursor: Cursor, limit: Limit(200, 100) }),
    responses: { 200: { description: "A page of groups.", schema: listOf("groups", GroupView) }, ...commonErrors },
    handler: async ({ params, query, principal }) => {
      requireRole(principal, params.organization_id, "viewer");
      return groupPage(deps, params.organization_id, query.cursor, query.limit);
    },
  });

const createGroupRoute = (deps: AppDeps) =>
  defineRoute({
    method: "post",
    path: "/organization/:organization_id/group",
    operationId: "createGroup",
    summary: "Create a group (admin or owner)",
    tags: ["Scan"],
    params: OrgParams,
    body: GroupCreateBody,
    responses: {
      200: { description: "The new group.", schema: GroupView },
      ...commonErrors,
      403: { description: "Only admins and owners create groups.", schema: ErrorBody },
      409: { description: "A group of that name exists.", schema: ErrorBody },
    },
    handler: async ({ params, body, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return addGroup(deps, params.organization_id, body.name);
    },
  });

const DELETE_DESCRIPTION =
  "One transaction removes the group and everything under it; nothing can be restored. Queued scans of the group are removed from the queue " +
  "and running ones stop and discard their results. Cached analyses of its projects go with them, and every worker then removes what it kept " +
  "of them on its disk and in memory (clones, analyzer state). Owner or admin.";

const deleteGroupRoute = (deps: AppDeps) =>
  defineRoute({
    method: "delete",
    path: "/organization/:organization_id/group/:group_id",
    operationId: "deleteGroup",
    summary: "Hard-delete a group with its projects, scans and findings",
    description: DELETE_DESCRIPTION,
    tags: ["Public Scan"],
    params: GroupParams,
    responses: {
      200: { description: "Group deleted.", schema: GroupDeleted },
      ...commonErrors,
      403: { description: "Only admins and owners delete groups.", schema: ErrorBody },
    },
    handler: async ({ params, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return deleteGroupFor(deps, params.organization_id, params.group_id);
    },
  });

const listProjectsRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/organization/:organization_id/group/:group_id/project",
    operationId: "listProjects",
    summary: "Projects of a group (one per repository URL)",
    tags: ["Scan"],
    params: GroupParams,
    query: z.object({ cursor: Cursor, limit: Limit(200, 100) }),
    responses: { 200: { description: "A page of projects.", schema: listOf("projects", ProjectView) }, ...commonErrors },
    handler: async ({ params, query, principal }) => {
      requireRole(principal, params.organization_id, "viewer");
      return projectPage(deps, params.organization_id, params.group_id, query.cursor, query.limit);
    },
  });

const listProjectScansRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/organization/:organization_id/group/:group_id/project/:project_id/scan",
    operationId: "listProjectScans",
    summary: "Scans of a project, newest first",
    description: "Each scan's `counts` are computed when read, as in `GET /scan/{scan_id}`: they follow triage.",
    tags: ["Scan"],
    params: GroupParams.extend({ project_id: Id }),
    query: z.object({ cursor: Cursor, limit: Limit(200, 50) }),
    responses: { 200: { description: "A page of scans.", schema: listOf("scans", ScanView) }, ...commonErrors },
    handler: async ({ params, query, principal }) => {
      requireRole(principal, params.organization_id, "viewer");
      const { organization_id: organizationId, group_id: groupId, project_id: projectId } = params;
      return projectScanPage(deps, { organizationId, groupId, projectId, cursor: query.cursor, limit: query.limit });
    },
  });

export const groupRoutes = (deps: AppDeps): AnyRoute[] => [
  listGroupsRoute(deps),
  createGroupRoute(deps),
  deleteGroupRoute(deps),
  listProjectsRoute(deps),
  listProjectScansRoute(deps),
];

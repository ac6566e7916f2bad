import { z } from "zod";
import { bodyObject } from "@ax/contracts";
import { createGroup, getGroup, getProject, isId, listGroups, listProjects } from "@ax/db";
import type { AppDeps } from "../http/context";
import { badRequest, conflict, notFound } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, ErrorBody, GroupView, Id, Limit, ProjectView, ScanView, commonErrors, listOf } from "../http/schemas";
import { requireRole } from "../services/access";
import { hardDeleteGroup } from "../services/groups";
import { decodeCursor, encodeCursor, isCursorText, presentGroup, presentProject } from "../services/presenters";
import { scanPage } from "./scans";

const OrgParams = z.object({ organization_id: Id });
const GroupParams = OrgParams.extend({ group_id: Id });
const GroupCreateBody = bodyObject(
  {
    name: z
      .string({ error: "name is required and must be a string." })
      .trim()
      .min(1, { error: "name must not be empty." })
      .max(100, { error: "name must be at most 100 characters." })
      // eslint-disable-next-line no-control-regex
      .refine((n) => !/[\u0000-\u001f\u007f]/.test(n), { error: "name must not contain control characters." }),
  }
);
const isNameCursor = (v: unknown): v is { k: string } => typeof v === "object" && v !== null && isCursorText((v as { k?: unknown }).k, 300);

function page<T>(rows: T[], limit: number, key: (row: T) => string) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor({ k: key(last) }) : null };
}

function cursorKey(cursor: string | undefined): string | undefined {
  const c = decodeCursor(cursor, isNameCursor);
  if (cursor && !c) throw badRequest("Invalid query: cursor is not valid.");
  return c?.k;
}

async function loadGroup(deps: AppDeps, organizationId: string, groupId: string) {
  const group = isId(groupId) ? await getGroup(deps.db, organizationId, groupId) : undefined;
  if (!group) throw notFound("Group");
  return group;
}

export function groupRoutes(deps: AppDeps): AnyRoute[] {
  return [
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
        const rows = await listGroups(deps.db, params.organization_id, cursorKey(query.cursor), query.limit + 1);
        const p = page(rows, query.limit, (g) => g.name);
        return { groups: p.items.map(presentGroup), next_cursor: p.next_cursor };
      },
    }),
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
        const group = await createGroup(deps.db, params.organization_id, body.name);
        if (!group) throw conflict("A group with this name already exists in the organization.");
        return presentGroup(group);
      },
    }),
    defineRoute({
      method: "delete",
      path: "/organization/:organization_id/group/:group_id",
      operationId: "deleteGroup",
      summary: "Hard-delete a group with its projects, scans and findings",
      description:
        "One transaction removes the group and everything under it; nothing can be restored. Queued scans of the group are removed from the queue and running ones stop and discard their results. Cached analyses of its projects go with them, and every worker then removes what it kept of them on its disk and in memory (clones, analyzer state). Owner or admin.",
      tags: ["Public Scan"],
      params: GroupParams,
      responses: {
        200: {
          description: "Group deleted.",
          schema: z.object({
            message: z.string(),
            group_id: z.string(),
            deleted: z.object({ projects: z.number().int(), scans: z.number().int(), findings: z.number().int() }),
          }),
        },
        ...commonErrors,
        403: { description: "Only admins and owners delete groups.", schema: ErrorBody },
      },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        if (!isId(params.group_id)) throw notFound("Group");
        const result = await hardDeleteGroup(deps, params.organization_id, params.group_id);
        if (!result) throw notFound("Group");
        return {
          message: "Group deleted",
          group_id: params.group_id,
          deleted: { projects: result.projects, scans: result.scans, findings: result.findings },
        };
      },
    }),
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
        const group = await loadGroup(deps, params.organization_id, params.group_id);
        const rows = await listProjects(deps.db, params.organization_id, group.id, cursorKey(query.cursor), query.limit + 1);
        const p = page(rows, query.limit, (r) => r.git_url);
        return { projects: p.items.map(presentProject), next_cursor: p.next_cursor };
      },
    }),
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
        const group = await loadGroup(deps, params.organization_id, params.group_id);
        const project = isId(params.project_id) ? await getProject(deps.db, params.organization_id, params.project_id) : undefined;
        if (!project || project.group_id !== group.id) throw notFound("Project");
        return scanPage(deps, { organizationId: params.organization_id, projectId: project.id, cursor: query.cursor, limit: query.limit });
      },
    }),
  ];
}

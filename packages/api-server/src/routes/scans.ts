import { z } from "zod";
import { SCAN_QUEUE, SCAN_STATES, ScanCreateBody } from "@ax/contracts";
import { allFindings, cancelScan, getScan, isId, listScans, type Principal, type Scan } from "@ax/db";
import type { AppDeps } from "../http/context";
import { badRequest, conflict, notFound } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { COUNTS_DESCRIPTION, Cursor, ErrorBody, Id, Limit, OrgQuery, QueryBool, ScanView, commonErrors, listOf } from "../http/schemas";
import { orgIds, requireRole, resolveOrganization } from "../services/access";
import { decodeCursor, encodeCursor } from "../services/presenters";
import { scanSarif } from "../services/sarif";
import { parseIdempotencyKey, scanView, scanViews, startScan } from "../services/scans";

const ScanParams = z.object({ scan_id: Id });

/** The scan, if it belongs to one of the caller's organizations and their role allows `least`. */
export async function loadScan(deps: AppDeps, principal: Principal, scanId: string, least: "viewer" | "member" = "viewer"): Promise<Scan> {
  const scan = isId(scanId) ? await getScan(deps.db, orgIds(principal), scanId) : undefined;
  if (!scan) throw notFound("Scan");
  requireRole(principal, scan.organization_id, least);
  return scan;
}

const isScanCursor = (v: unknown): v is { t: string; id: string } => {
  const c = v as { t?: unknown; id?: unknown };
  return typeof c === "object" && c !== null && typeof c.t === "string" && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(c.t) && Number.isFinite(Date.parse(c.t)) && typeof c.id === "string" && isId(c.id);
};

/** One page of an organization's scans, newest first, with an opaque cursor. */
export async function scanPage(
  deps: AppDeps,
  q: { organizationId: string; groupId?: string | undefined; projectId?: string | undefined; state?: string | undefined; cursor: string | undefined; limit: number },
) {
  const after = decodeCursor(q.cursor, isScanCursor);
  if (q.cursor && !after) throw badRequest("Invalid query: cursor is not valid.");
  const rows = await listScans(deps.db, {
    organizationId: q.organizationId,
    groupId: q.groupId,
    projectId: q.projectId,
    state: q.state,
    before: after ? { created_at: new Date(after.t), id: after.id } : undefined,
    limit: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    scans: await scanViews(deps, q.organizationId, page),
    next_cursor: rows.length > q.limit && last ? encodeCursor({ t: new Date(last.created_at).toISOString(), id: last.id }) : null,
  };
}

export function scanRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "post",
      path: "/scan",
      operationId: "startScan",
      summary: "Start a scan of a git repository",
      description:
        "Queues a scan of `git_uri` at `branch` (default: the remote's default branch) and returns its id. `organization_id` may be omitted when the caller belongs to one organization; `group_id` defaults to the organization's `default` group. Send an `Idempotency-Key` header to make retries safe.",
      tags: ["Scan"],
      body: ScanCreateBody,
      query: OrgQuery.extend({ group_id: Id.optional() }),
      headers: [{ name: "Idempotency-Key", description: "Repeating a request with the same key returns the same scan." }],
      responses: {
        200: { description: "The scan was queued (or the idempotent repeat of one).", schema: z.object({ scan_id: z.string(), state: z.enum(SCAN_STATES) }) },
        ...commonErrors,
        403: { description: "Viewers cannot start scans.", schema: ErrorBody },
        409: { description: "Idempotency-Key reused for a different request.", schema: ErrorBody },
        429: { description: "The organization already has MAX_SCANS_IN_FLIGHT_PER_ORG scans queued or running (or a rate limit is spent); see Retry-After. Nothing was created.", schema: ErrorBody },
        503: { description: "The queue is unavailable; nothing was created.", schema: ErrorBody },
      },
      handler: async ({ body, query, principal, req }) => {
        const { scan } = await startScan(deps, principal, {
          body,
          organizationId: query.organization_id,
          groupId: query.group_id,
          idempotencyKey: parseIdempotencyKey(req.get("Idempotency-Key")),
          requestId: req.id,
        });
        return { scan_id: scan.id, state: scan.state };
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan",
      operationId: "listScans",
      summary: "List scans of an organization, newest first",
      description: "Each scan's `counts` are computed when read, as in `GET /scan/{scan_id}`: they follow triage.",
      tags: ["Scan"],
      query: OrgQuery.extend({ group_id: Id.optional(), project_id: Id.optional(), state: z.enum(SCAN_STATES).optional(), cursor: Cursor, limit: Limit(200, 50) }),
      responses: { 200: { description: "A page of scans.", schema: listOf("scans", ScanView) }, ...commonErrors },
      handler: async ({ query, principal }) => {
        const organizationId = resolveOrganization(principal, query.organization_id, "viewer");
        return scanPage(deps, { organizationId, groupId: query.group_id, projectId: query.project_id, state: query.state, cursor: query.cursor, limit: query.limit });
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan/:scan_id",
      operationId: "getScan",
      summary: "State, phase, progress, commit, timings, analyzers and counts of a scan",
      description: COUNTS_DESCRIPTION,
      tags: ["Scan"],
      params: ScanParams,
      responses: { 200: { description: "The scan.", schema: ScanView }, ...commonErrors },
      handler: async ({ params, principal }) => scanView(deps, await loadScan(deps, principal, params.scan_id)),
    }),
    defineRoute({
      method: "post",
      path: "/scan/:scan_id/cancel",
      operationId: "cancelScan",
      summary: "Cancel a queued or running scan",
      tags: ["Scan"],
      params: ScanParams,
      responses: {
        200: { description: "The scan is cancelled.", schema: ScanView },
        ...commonErrors,
        403: { description: "Viewers cannot cancel scans.", schema: ErrorBody },
        409: { description: "The scan has already ended.", schema: ErrorBody },
      },
      handler: async ({ params, principal }) => {
        const scan = await loadScan(deps, principal, params.scan_id, "member");
        const cancelled = await cancelScan(deps.db, scan.organization_id, scan.id);
        if (!cancelled) throw conflict(`The scan has already ended (${scan.state}).`);
        // A job not yet started is removed; a running one notices the state and stops.
        await deps.queue.removeIfWaiting(SCAN_QUEUE, scan.id).catch(() => false);
        return scanView(deps, cancelled);
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan/:scan_id/sarif",
      operationId: "getScanSarif",
      summary: "The scan's findings as SARIF 2.1.0",
      description:
        "The results of the scan's commit. `introduced=true` keeps only findings on lines changed since the scan's `baseline_commit`, for pull-request annotations. `include_absent=true` adds the findings of the branch's previous scan that this scan no longer has, as results with `baselineState: absent` (left out by default: a consumer that ignores baselineState would reopen them). A finding a reviewer set to FIXED that this commit still has stays an open result: its suppression has status `underReview` (which suppresses nothing in SARIF) with the reviewer's reason, until the scan of a commit without it records it absent; FALSE POSITIVE and ACCEPTED RISK are `accepted` external suppressions, `ax-ignore` comments `inSource` ones. Each run's rules describe the rule, the same for every one of its results whatever their triage: for the project's own rule pack (ast-grep) the rule's definition, for other analyzers the values the analyzer reported at scan time (the most severe of the rule's findings), recovered from the findings' history where a reviewer or a carried decision changed them. A result's `level` and `properties.severity` are the finding's current severity, as triaged.",
      tags: ["Scan"],
      params: ScanParams,
      query: z.object({ introduced: QueryBool, include_absent: QueryBool }),
      responses: { 200: { description: "A SARIF log.", contentType: "application/sarif+json" }, ...commonErrors },
      handler: async ({ params, query, principal, res }) => {
        const scan = await loadScan(deps, principal, params.scan_id);
        const all = await allFindings(deps.db, scan.organization_id, scan.id);
        const present = query.include_absent ? all : all.filter((f) => f.baseline_state !== "absent");
        const findings = query.introduced === undefined ? present : present.filter((f) => f.introduced === query.introduced);
        res.type("application/sarif+json").send(JSON.stringify(await scanSarif(deps.db, scan, all, findings)));
        return undefined;
      },
    }),
  ];
}

import { z } from "zod";
import { COUNTS_DESCRIPTION, ErrorBody, Id, SCAN_STATES, ScanCreateBody, ScanStarted, ScanView, listOf } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit, OrgQuery, QueryBool, commonErrors } from "../http/schemas";
import { resolveOrganization } from "../services/access";
import { cancelScanFor, loadScan, parseIdempotencyKey, sarifFor, scanPage, scanView, startScan } from "../services/scans";

const ScanParams = z.object({ scan_id: Id });

const START_DESCRIPTION =
  "Queues a scan of `git_uri` at `branch` (default: the remote's default branch) and returns its id. `organization_id` may be omitted when the " +
  "caller belongs to one organization; `group_id` defaults to the organization's `default` group. Send an `Idempotency-Key` header to make retries safe.";

const startScanRoute = (deps: AppDeps) =>
  defineRoute({
    method: "post",
    path: "/scan",
    operationId: "startScan",
    summary: "Start a scan of a git repository",
    description: START_DESCRIPTION,
    tags: ["Scan"],
    body: ScanCreateBody,
    query: OrgQuery.extend({ group_id: Id.optional() }),
    headers: [{ name: "Idempotency-Key", description: "Repeating a request with the same key returns the same scan." }],
    responses: {
      200: { description: "The scan was queued (or the idempotent repeat of one).", schema: ScanStarted },
      ...commonErrors,
      403: { description: "Viewers cannot start scans.", schema: ErrorBody },
      409: { description: "Idempotency-Key reused for a different request.", schema: ErrorBody },
      429: {
        description:
          "The organization already has MAX_SCANS_IN_FLIGHT_PER_ORG scans queued or running (or a rate limit is spent); see Retry-After. Nothing was created.",
        schema: ErrorBody,
      },
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
  });

const listScansRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan",
    operationId: "listScans",
    summary: "List scans of an organization, newest first",
    description: "Each scan's `counts` are computed when read, as in `GET /scan/{scan_id}`: they follow triage.",
    tags: ["Scan"],
    query: OrgQuery.extend({
      group_id: Id.optional(),
      project_id: Id.optional(),
      state: z.enum(SCAN_STATES).optional(),
      cursor: Cursor,
      limit: Limit(200, 50),
    }),
    responses: { 200: { description: "A page of scans.", schema: listOf("scans", ScanView) }, ...commonErrors },
    handler: async ({ query, principal }) => {
      const organizationId = resolveOrganization(principal, query.organization_id, "viewer");
      return scanPage(deps, {
        organizationId,
        groupId: query.group_id,
        projectId: query.project_id,
        state: query.state,
        cursor: query.cursor,
        limit: query.limit,
      });
    },
  });

const getScanRoute = (deps: AppDeps) =>
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
  });

const cancelScanRoute = (deps: AppDeps) =>
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
    handler: async ({ params, principal }) => cancelScanFor(deps, principal, params.scan_id),
  });

const SARIF_DESCRIPTION = [
  "The results of the scan's commit. `introduced=true` keeps only findings on lines changed since the scan's `baseline_commit`, for pull-request",
  "annotations. `include_absent=true` adds the findings of the branch's previous scan that this scan no longer has, as results with",
  "`baselineState: absent` (left out by default: a consumer that ignores baselineState would reopen them). A finding a reviewer set to FIXED",
  "that this commit still has stays an open result: its suppression has status `underReview` (which suppresses nothing in SARIF) with the",
  "reviewer's reason, until the scan of a commit without it records it absent; FALSE POSITIVE and ACCEPTED RISK are `accepted` external",
  "suppressions, `ax-ignore` comments `inSource` ones. Each run's rules describe the rule, the same for every one of its results whatever their",
  "triage: for the project's own rule pack (ast-grep) the rule's definition, for other analyzers the values the analyzer reported at scan time",
  "(the most severe of the rule's findings), recovered from the findings' history where a reviewer or a carried decision changed them. A",
  "result's `level` and `properties.severity` are the finding's current severity, as triaged.",
].join(" ");

const scanSarifRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/sarif",
    operationId: "getScanSarif",
    summary: "The scan's findings as SARIF 2.1.0",
    description: SARIF_DESCRIPTION,
    tags: ["Scan"],
    params: ScanParams,
    query: z.object({ introduced: QueryBool, include_absent: QueryBool }),
    responses: { 200: { description: "A SARIF log.", contentType: "application/sarif+json" }, ...commonErrors },
    handler: async ({ params, query, principal, res }) => {
      const sarif = await sarifFor(deps, principal, params.scan_id, { introduced: query.introduced, includeAbsent: query.include_absent });
      res.type("application/sarif+json").send(JSON.stringify(sarif));
      return undefined;
    },
  });

export const scanRoutes = (deps: AppDeps): AnyRoute[] => [
  startScanRoute(deps),
  listScansRoute(deps),
  getScanRoute(deps),
  cancelScanRoute(deps),
  scanSarifRoute(deps),
];

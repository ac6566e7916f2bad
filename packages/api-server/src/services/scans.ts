import { createHash } from "node:crypto";
import { SCAN_QUEUE, checkGitUri, type ScanCreateBody } from "@ax/contracts";
import {
  allFindings,
  cancelScan,
  createScan,
  deleteScanRow,
  ensureDefaultGroup,
  findOrCreateProject,
  getGroup,
  getScan,
  isForeignKeyViolation,
  isId,
  listScans,
  scanCounts,
  ScanLimitError,
  type Principal,
  type Role,
  type Scan,
} from "@ax/db";
import { badRequest, conflict, notFound, queueUnavailable, tooManyScans } from "../http/errors";
import type { AppDeps } from "../http/context";
import { orgIds, requireRole, resolveOrganization } from "./access";
import { timeKeyOf, timePage } from "./paging";
import { presentScan } from "./presenters";
import { scanSarif } from "./sarif";

export interface StartScanInput {
  body: ScanCreateBody;
  organizationId: string | undefined;
  groupId: string | undefined;
  idempotencyKey: string | undefined;
  requestId: string;
}

/**
 * POST /scan: validate the URL against the deployment's policy, find the project (one per
 * canonical URL and group), record the queued scan in PostgreSQL and enqueue its job. If the
 * queue cannot take it, the scan row is removed again and the caller gets 503, so a retry
 * does not leave a scan behind that nobody runs. An organization at its limit of scans in
 * flight gets 429 and no scan.
 */
export async function startScan(deps: AppDeps, principal: Principal, input: StartScanInput): Promise<{ scan: Scan; created: boolean }> {
  const check = checkGitUri(input.body.git_uri, { allowInsecure: deps.config.scan.allowInsecureGitUrls });
  if (!check.ok) throw badRequest(`Invalid body: git_uri: ${check.reason}`, [{ path: "body.git_uri", message: check.reason }]);

  const organizationId = resolveOrganization(principal, input.organizationId, "member");
  const group = input.groupId
    ? isId(input.groupId)
      ? await getGroup(deps.db, organizationId, input.groupId)
      : undefined
    : await ensureDefaultGroup(deps.db, organizationId);
  if (!group) throw notFound("Group");

  const name = check.canonical.split("/").filter(Boolean).pop() ?? check.canonical;
  // The group can be hard-deleted between the lookup above and the inserts below: that is
  // the group not being there, not a server error.
  const groupGone = (err: unknown): never => {
    throw isForeignKeyViolation(err) ? notFound("Group") : err;
  };
  const project = await findOrCreateProject(deps.db, { organizationId, groupId: group.id, gitUrl: check.canonical, name }).catch(groupGone);
  const requestHash = createHash("sha256")
    .update(JSON.stringify([check.canonical, input.body.branch ?? null, group.id, input.body.baseline_commit ?? null]))
    .digest("hex");

  const { scan, created } = await createScan(deps.db, {
    organizationId,
    maxInFlight: deps.config.limits.maxScansInFlightPerOrg,
    groupId: group.id,
    projectId: project.id,
    createdBy: principal.user.id,
    gitUri: check.url,
    branch: input.body.branch ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    requestHash: input.idempotencyKey ? requestHash : null,
    baselineCommit: input.body.baseline_commit ?? null,
  }).catch((err: unknown) => {
    if (!(err instanceof ScanLimitError)) return groupGone(err);
    throw tooManyScans(
      `This organization already has ${err.limit} scans queued or running, the most allowed at once. ` +
        "Wait for one to finish (or cancel one), then try again.",
    );
  });
  if (!created) {
    if (scan.request_hash !== requestHash) throw conflict("This Idempotency-Key was already used for a different scan request.");
    return { scan, created };
  }
  try {
    await deps.queue.enqueue(
      "scan.run",
      { scan_id: scan.id, organization_id: organizationId, request_id: input.requestId },
      { jobId: scan.id },
    );
  } catch (err) {
    await deleteScanRow(deps.db, scan.id).catch(() => undefined);
    deps.logger.warn("could not enqueue scan", { scan_id: scan.id, error: (err as Error).message });
    throw queueUnavailable("The scan queue is unavailable right now; try again shortly.");
  }
  return { scan, created };
}

export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return value;
}

/**
 * Scans of one organization as the API shows them. Their counts follow triage: computed from
 * the findings as they are now, for the whole list in one query.
 */
export async function scanViews(deps: AppDeps, organizationId: string, scans: Scan[]): Promise<ReturnType<typeof presentScan>[]> {
  const counts = await scanCounts(
    deps.db,
    organizationId,
    scans.map((s) => s.id),
  );
  return scans.map((s) => presentScan(s, counts.get(s.id) ?? {}));
}

export async function scanView(deps: AppDeps, scan: Scan): Promise<ReturnType<typeof presentScan>> {
  const [view] = await scanViews(deps, scan.organization_id, [scan]);
  return view!;
}

/** The scan, if it belongs to one of the caller's organizations and their role allows `least`. */
export async function loadScan(
  deps: AppDeps,
  principal: Principal,
  scanId: string,
  least: Extract<Role, "viewer" | "member"> = "viewer",
): Promise<Scan> {
  const scan = isId(scanId) ? await getScan(deps.db, orgIds(principal), scanId) : undefined;
  if (!scan) throw notFound("Scan");
  requireRole(principal, scan.organization_id, least);
  return scan;
}

export interface ScanPageQuery {
  organizationId: string;
  groupId?: string | undefined;
  projectId?: string | undefined;
  state?: string | undefined;
  cursor: string | undefined;
  limit: number;
}

/** One page of an organization's scans, newest first, with an opaque cursor. */
export async function scanPage(
  deps: AppDeps,
  q: ScanPageQuery,
): Promise<{ scans: ReturnType<typeof presentScan>[]; next_cursor: string | null }> {
  const before = timeKeyOf(q.cursor);
  const rows = await listScans(deps.db, {
    organizationId: q.organizationId,
    groupId: q.groupId,
    projectId: q.projectId,
    state: q.state,
    before,
    limit: q.limit + 1,
  });
  const page = timePage(rows, q.limit);
  return { scans: await scanViews(deps, q.organizationId, page.items), next_cursor: page.next_cursor };
}

/** POST /scan/{id}/cancel: 409 once the scan has ended. */
export async function cancelScanFor(deps: AppDeps, principal: Principal, scanId: string): Promise<ReturnType<typeof presentScan>> {
  const scan = await loadScan(deps, principal, scanId, "member");
  const cancelled = await cancelScan(deps.db, scan.organization_id, scan.id);
  if (!cancelled) throw conflict(`The scan has already ended (${scan.state}).`);
  // A job not yet started is removed; a running one notices the state and stops.
  await deps.queue.removeIfWaiting(SCAN_QUEUE, scan.id).catch(() => false);
  return scanView(deps, cancelled);
}

/** GET /scan/{id}/sarif: the scan's findings (absent ones on request, introduced ones only on request) as SARIF. */
export async function sarifFor(
  deps: AppDeps,
  principal: Principal,
  scanId: string,
  opts: { introduced?: boolean | undefined; includeAbsent?: boolean | undefined },
) {
  const scan = await loadScan(deps, principal, scanId);
  const all = await allFindings(deps.db, scan.organization_id, scan.id);
  const present = opts.includeAbsent ? all : all.filter((f) => f.baseline_state !== "absent");
  const findings = opts.introduced === undefined ? present : present.filter((f) => f.introduced === opts.introduced);
  return scanSarif(deps.db, scan, all, findings);
}

import { createHash } from "node:crypto";
import { checkGitUri, type ScanCreateBody } from "@ax/contracts";
import { createScan, deleteScanRow, ensureDefaultGroup, findOrCreateProject, getGroup, isForeignKeyViolation, isId, scanCounts, ScanLimitError, type Principal, type Scan } from "@ax/db";
import { AppError, badRequest, conflict, notFound, unavailable } from "../http/errors";
import type { AppDeps } from "../http/context";
import { resolveOrganization } from "./access";
import { presentScan } from "./presenters";

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
    // Scans take minutes; a retry much sooner than this would only be refused again.
    throw new AppError(
      429,
      "too_many_scans",
      `This organization already has ${err.limit} scans queued or running, the most allowed at once. Wait for one to finish (or cancel one), then try again.`,
      undefined,
      { "Retry-After": "30" },
    );
  });
  if (!created) {
    if (scan.request_hash !== requestHash) throw conflict("This Idempotency-Key was already used for a different scan request.");
    return { scan, created };
  }
  try {
    await deps.queue.enqueue("scan.run", { scan_id: scan.id, organization_id: organizationId, request_id: input.requestId }, { jobId: scan.id });
  } catch (err) {
    await deleteScanRow(deps.db, scan.id).catch(() => undefined);
    deps.logger.warn("could not enqueue scan", { scan_id: scan.id, error: (err as Error).message });
    throw unavailable("The scan queue is unavailable right now; try again shortly.");
  }
  return { scan, created };
}

export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new AppError(400, "bad_request", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return value;
}

/**
 * Scans of one organization as the API shows them. Their counts follow triage: computed from
 * the findings as they are now, for the whole list in one query.
 */
export async function scanViews(deps: AppDeps, organizationId: string, scans: Scan[]): Promise<ReturnType<typeof presentScan>[]> {
  const counts = await scanCounts(deps.db, organizationId, scans.map((s) => s.id));
  return scans.map((s) => presentScan(s, counts.get(s.id) ?? {}));
}

export async function scanView(deps: AppDeps, scan: Scan): Promise<ReturnType<typeof presentScan>> {
  const [view] = await scanViews(deps, scan.organization_id, [scan]);
  return view!;
}

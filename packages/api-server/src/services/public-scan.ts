import { checkGitUri, type PublicScanCreateBody } from "@ax/contracts";
import {
  PUBLIC_ORG_KEY,
  ScanLimitError,
  createScan,
  deleteScanRow,
  ensureInternalOrganization,
  findOrCreateProject,
  getPublicScan,
  internalOrganizationId,
  isForeignKeyViolation,
  isId,
  findingCursorOf,
  listFindings,
  scanCounts,
  type Scan,
} from "@ax/db";
import type { AppDeps } from "../http/context";
import { badRequest, notFound, queueUnavailable, tooManyScans } from "../http/errors";
import { isFindingCursor } from "./findings";
import { pageOf, readCursor } from "./paging";
import { presentPublicFinding, presentPublicScan, publicExpiry } from "./presenters";

/**
 * Public Scan (docs/public-scan.md): scans without a token. They belong to the internal
 * organization `public`, which has no members, so the private endpoints' tenant scoping never
 * shows them to anyone, and these endpoints never show anything else. The scan id, a random
 * UUID, is the capability that reads the results.
 */

/**
 * POST /public/scan. The URL must be https to a public host whatever ALLOW_INSECURE_GIT_URLS
 * says (only PUBLIC_SCAN_ALLOW_INSECURE, for tests, relaxes it). The in-flight cap is the
 * ordinary per-organization one, applied to the public organization.
 */
export async function startPublicScan(
  deps: AppDeps,
  body: PublicScanCreateBody,
  requestId: string,
): Promise<{ scan: Scan; expires_at: string }> {
  const check = checkGitUri(body.git_uri, { allowInsecure: deps.config.publicScan.allowInsecure });
  if (!check.ok) throw badRequest(`Invalid body: git_uri: ${check.reason}`, [{ path: "body.git_uri", message: check.reason }]);

  const name = check.canonical.split("/").filter(Boolean).pop() ?? check.canonical;
  const create = async () => {
    const { organizationId, groupId } = await ensureInternalOrganization(deps.db, PUBLIC_ORG_KEY);
    const project = await findOrCreateProject(deps.db, { organizationId, groupId, gitUrl: check.canonical, name });
    return createScan(deps.db, {
      organizationId,
      maxInFlight: deps.config.publicScan.maxInFlight,
      groupId,
      projectId: project.id,
      createdBy: null,
      gitUri: check.url,
      branch: body.branch ?? null,
      idempotencyKey: null,
      requestHash: null,
    });
  };
  const refused = (err: unknown): never => {
    if (!(err instanceof ScanLimitError)) throw err;
    throw tooManyScans(`${err.limit} public scans are queued or running, the most allowed at once. Try again in a few minutes.`);
  };
  // The retention job deletes projects left without scans; one can go between the lookup
  // and the insert (a foreign key violation), and a second try recreates it.
  const { scan } = await create()
    .catch((err: unknown) => (isForeignKeyViolation(err) ? create() : Promise.reject(err)))
    .catch(refused);
  try {
    await deps.queue.enqueue(
      "scan.run",
      { scan_id: scan.id, organization_id: scan.organization_id, request_id: requestId },
      { jobId: scan.id },
    );
  } catch (err) {
    await deleteScanRow(deps.db, scan.id).catch(() => undefined);
    deps.logger.warn("could not enqueue public scan", { scan_id: scan.id, error: (err as Error).message });
    throw queueUnavailable("The scan queue is unavailable right now; try again shortly.");
  }
  return { scan, expires_at: publicExpiry(scan, deps.config.publicScan.retentionHours) };
}

/** A public scan still within its retention period; anything else is 404, like an unknown id. */
export async function loadPublicScan(deps: AppDeps, scanId: string): Promise<Scan> {
  const organizationId = isId(scanId) ? await internalOrganizationId(deps.db, PUBLIC_ORG_KEY) : undefined;
  const notBefore = new Date(Date.now() - deps.config.publicScan.retentionHours * 3_600_000);
  const scan = organizationId ? await getPublicScan(deps.db, organizationId, scanId, notBefore) : undefined;
  if (!scan) throw notFound("Scan");
  return scan;
}

/** GET /public/scan/{id}: the scan with its counts as its findings are now (they cannot be triaged, but are counted alike). */
export async function publicScanView(deps: AppDeps, scanId: string): Promise<ReturnType<typeof presentPublicScan>> {
  const scan = await loadPublicScan(deps, scanId);
  const counts = (await scanCounts(deps.db, scan.organization_id, [scan.id])).get(scan.id) ?? {};
  return presentPublicScan(scan, counts, deps.config.publicScan.retentionHours);
}

/** A page of a public scan's findings, most severe first. */
export async function publicFindingPage(deps: AppDeps, scanId: string, cursor: string | undefined, limit: number) {
  const scan = await loadPublicScan(deps, scanId);
  const after = readCursor(cursor, isFindingCursor);
  // Only what this scan found: findings an earlier public scan of the same repository
  // had and this one does not ("absent", FIXED) belong to that other requester's scan.
  const filters = { baseline: ["new", "unchanged"] };
  const rows = await listFindings(deps.db, { organizationId: scan.organization_id, scanId: scan.id, filters, after, limit: limit + 1 });
  const page = pageOf(rows, limit, findingCursorOf);
  return { findings: page.items.map(presentPublicFinding), next_cursor: page.next_cursor };
}

import type { FindingUpdateBody, HistoryView } from "@ax/contracts";
import { cweWithChildren } from "@ax/rules";
import {
  aiCursorOf,
  findingCursorOf,
  findingHistory,
  getFinding,
  isId,
  listFindings,
  updateFinding,
  type AiFindingCursor,
  type Finding,
  type FindingCursor,
  type Principal,
} from "@ax/db";
import type { AppDeps } from "../http/context";
import { AppError, badRequest, notFound, preconditionFailed } from "../http/errors";
import { isPlaceKey, pageOf, readCursor } from "./paging";
import { presentFinding, presentHistory } from "./presenters";
import { loadScan } from "./scans";
import { emitFindingTriaged } from "./webhooks";

/** A severity-order cursor that PostgreSQL can take as it is: bounded numbers, safe text, a valid id. */
export const isFindingCursor = (v: unknown): v is FindingCursor => {
  const c = v as Partial<FindingCursor>;
  return (
    typeof c === "object" &&
    c !== null &&
    Number.isInteger(c.rank) &&
    (c.rank as number) >= 0 &&
    (c.rank as number) <= 100 &&
    isPlaceKey(c.file, c.line, c.id)
  );
};

const isAiCursor = (v: unknown): v is AiFindingCursor => {
  const c = v as Partial<AiFindingCursor>;
  return (
    typeof c === "object" && c !== null && typeof c.ai === "number" && c.ai >= -1 && c.ai <= 2 && typeof c.id === "string" && isId(c.id)
  );
};

type ListInput = Parameters<typeof listFindings>[1];
export type FindingFilters = NonNullable<ListInput["filters"]>;
export type FindingOrder = "severity" | "ai_confidence" | "-ai_confidence";

/** GET /scan/{id}/findings: one page in the chosen order, its cursor keyed by that order. */
export async function findingPage(
  deps: AppDeps,
  principal: Principal,
  scanId: string,
  q: { filters: FindingFilters; order: FindingOrder; cursor: string | undefined; limit: number },
): Promise<{ findings: ReturnType<typeof presentFinding>[]; next_cursor: string | null }> {
  const scan = await loadScan(deps, principal, scanId);
  const after = q.order === "severity" ? readCursor(q.cursor, isFindingCursor) : readCursor(q.cursor, isAiCursor);
  const rows = await listFindings(deps.db, {
    organizationId: scan.organization_id,
    scanId: scan.id,
    // A filter on a weakness class also finds its specific children (CWE-94 finds CWE-95).
    filters: q.filters.cwe ? { ...q.filters, cwe: cweWithChildren(q.filters.cwe) } : q.filters,
    order: q.order,
    after,
    limit: q.limit + 1,
  });
  const page = pageOf(rows, q.limit, (last) => (q.order === "severity" ? findingCursorOf(last) : aiCursorOf(last, q.order)));
  return { findings: page.items.map(presentFinding), next_cursor: page.next_cursor };
}

/** A finding of a scan the caller may read; 404 alike for an unknown scan or finding. */
export async function loadFinding(deps: AppDeps, principal: Principal, scanId: string, findingId: string): Promise<Finding> {
  const scan = await loadScan(deps, principal, scanId);
  const finding = isId(findingId) ? await getFinding(deps.db, scan.organization_id, scan.id, findingId) : undefined;
  if (!finding) throw notFound("Finding");
  return finding;
}

/**
 * If-Match: "3", W/"3" or 3 → 3; `*` (any current version, RFC 9110 §13.1.1) → no check.
 * `undefined`: update whatever the version.
 */
export function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "*") return undefined;
  const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value.trim());
  if (!m) throw badRequest("If-Match must be * or the finding's version, as given in its ETag.");
  return Number(m[1]);
}

/**
 * PUT /scan/{id}/finding/{fid}: a reviewer's change, kept in the finding's history, refused
 * (412) when `ifMatch` names a version that is no longer current. A change that changed
 * something is announced to the organization's webhooks.
 */
export async function triageFinding(
  deps: AppDeps,
  principal: Principal,
  input: { scanId: string; findingId: string; patch: FindingUpdateBody; ifMatch: string | undefined },
): Promise<{ version: number; answer: { message: string; finding: ReturnType<typeof presentFinding> } }> {
  const expectedVersion = parseIfMatch(input.ifMatch);
  const scan = await loadScan(deps, principal, input.scanId, "member");
  if (!isId(input.findingId)) throw notFound("Finding");
  const outcome = await updateFinding(deps.db, {
    organizationId: scan.organization_id,
    scanId: scan.id,
    findingId: input.findingId,
    patch: input.patch,
    userId: principal.user.id,
    expectedVersion,
  });
  if (outcome.kind === "not_found") throw notFound("Finding");
  if (outcome.kind === "conflict") throw preconditionFailed(`The finding was changed meanwhile; its version is now ${outcome.version}.`);
  if (outcome.changed.length > 0) await emitFindingTriaged(deps, outcome.finding, outcome.changed, principal.user.id);
  return { version: outcome.finding.version, answer: { message: "Finding updated", finding: presentFinding(outcome.finding) } };
}

/** The finding's mechanical fix; 404 when it has none. */
export async function findingFix(deps: AppDeps, principal: Principal, scanId: string, findingId: string) {
  const finding = await loadFinding(deps, principal, scanId, findingId);
  const diff = finding.fix?.diff;
  if (!diff) throw new AppError(404, "not_found", "This finding has no automatic fix.");
  const description = finding.fix?.description ?? finding.remediation ?? "Apply the suggested change.";
  return { finding_id: finding.id, file: finding.file, description, diff };
}

export async function findingHistoryOf(
  deps: AppDeps,
  principal: Principal,
  scanId: string,
  findingId: string,
): Promise<{ history: HistoryView[] }> {
  const finding = await loadFinding(deps, principal, scanId, findingId);
  const rows = await findingHistory(deps.db, finding.organization_id, finding.id);
  return { history: rows.map(presentHistory) };
}

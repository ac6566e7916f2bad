/**
 * The audit view of a scan's refuted pattern matches (docs/dataflow.md, "Refuted findings"):
 * what the pattern rules matched and the taint analysis showed unreachable from untrusted
 * input. Read-only, tenant-scoped through the scan, paged in file and line order.
 */
import type { RefutedMatchView } from "@ax/contracts";
import { listRefutedMatches, type Principal, type RefutedCursor, type RefutedMatch } from "@ax/db";
import type { AppDeps } from "../http/context";
import { isPlaceKey, pageOf, readCursor } from "./paging";
import { loadScan } from "./scans";

const isRefutedCursor = (v: unknown): v is RefutedCursor => {
  const c = v as Partial<RefutedCursor>;
  return typeof c === "object" && c !== null && isPlaceKey(c.file, c.start_line, c.id);
};

export async function refutedPage(
  deps: AppDeps,
  principal: Principal,
  scanId: string,
  q: { cursor?: string | undefined; limit: number },
): Promise<{ refuted: RefutedMatchView[]; next_cursor: string | null }> {
  const scan = await loadScan(deps, principal, scanId);
  const after = readCursor(q.cursor, isRefutedCursor);
  const rows = await listRefutedMatches(deps.db, { organizationId: scan.organization_id, scanId: scan.id, after, limit: q.limit + 1 });
  const page = pageOf(rows, q.limit, (last) => ({ file: last.file, start_line: last.start_line, id: last.id }));
  return { refuted: page.items.map(presentRefuted), next_cursor: page.next_cursor };
}

function presentRefuted(r: RefutedMatch): RefutedMatchView {
  return {
    refuted_id: r.id,
    scan_id: r.scan_id,
    analyzer: r.analyzer,
    rule_id: r.rule_id,
    title: r.title,
    cwe_id: r.cwe_id,
    severity: r.severity as RefutedMatchView["severity"],
    file: r.file,
    start_line: r.start_line,
    end_line: r.end_line,
    start_column: r.start_column,
    end_column: r.end_column,
    snippet: r.snippet,
    sources: r.sources.map((s) => ({ analyzer: s.analyzer, rule_id: s.rule_id })),
    reason: r.reason,
  };
}

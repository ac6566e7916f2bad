/**
 * Refuted pattern matches (migration 0011): stored with a scan's results, listed for
 * inspection, never counted or reported as findings.
 */
import type { NormalizedFinding } from "@ax/contracts";
import type { Db } from "./client";
import { newId } from "./ids";
import type { RefutedMatch } from "./schema";

/** Rows per INSERT: PostgreSQL takes at most 65,535 parameters a statement. */
const BATCH = 1000;

/** Replaces the scan's refuted matches (inside the transaction that stores its results). */
export async function replaceRefutedMatches(
  trx: Db,
  scan: { scanId: string; organizationId: string; projectId: string },
  matches: readonly NormalizedFinding[],
): Promise<void> {
  await trx.deleteFrom("refuted_matches").where("scan_id", "=", scan.scanId).execute();
  const rows = matches.map((f) => ({
    id: newId(),
    scan_id: scan.scanId,
    organization_id: scan.organizationId,
    project_id: scan.projectId,
    analyzer: f.analyzer,
    rule_id: f.rule_id,
    title: f.title,
    cwe_id: f.cwe_id,
    file: f.file,
    start_line: f.start_line,
    end_line: f.end_line,
    start_column: f.start_column,
    end_column: f.end_column,
    snippet: f.snippet,
    severity: f.severity,
    reason: f.dataflow?.reason ?? "The taint analysis found no untrusted source reaching this sink.",
    sources: JSON.stringify(f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]),
  }));
  for (let i = 0; i < rows.length; i += BATCH)
    await trx
      .insertInto("refuted_matches")
      .values(rows.slice(i, i + BATCH))
      .execute();
}

export interface RefutedCursor {
  file: string;
  start_line: number;
  id: string;
}

/** A page of a scan's refuted matches in file, line, id order, after `after`. */
export async function listRefutedMatches(
  db: Db,
  q: { organizationId: string; scanId: string; after: RefutedCursor | undefined; limit: number },
): Promise<RefutedMatch[]> {
  let query = db.selectFrom("refuted_matches").selectAll().where("organization_id", "=", q.organizationId).where("scan_id", "=", q.scanId);
  const after = q.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb("file", ">", after.file),
        eb.and([eb("file", "=", after.file), eb("start_line", ">", after.start_line)]),
        eb.and([eb("file", "=", after.file), eb("start_line", "=", after.start_line), eb("id", ">", after.id)]),
      ]),
    );
  return query.orderBy("file").orderBy("start_line").orderBy("id").limit(q.limit).execute();
}

import { sql } from "kysely";
import type { Db } from "./client";

const CHUNK = 500;

/**
 * The analysis cache of one project (the scanner's AnalysisCache, structurally): cached
 * findings of a cacheable analyzer per git blob, whole-scan results per commit, the review
 * model's labels. Per project rather than per organization because the entries hold code
 * (snippets, labels of it): a foreign key deletes them with their project in the group hard
 * delete's transaction, and refuses a late write by a scan of a deleted project. Entries
 * unused for a while are pruned.
 */
export class PgAnalysisCache {
  private readonly organizationId: string;
  private readonly projectId: string;

  constructor(
    private readonly db: Db,
    scope: { organizationId: string; projectId: string },
  ) {
    this.organizationId = scope.organizationId;
    this.projectId = scope.projectId;
  }

  async get<T>(analyzer: string, version: string, blobs: readonly string[]): Promise<Map<string, T[]>> {
    const out = new Map<string, T[]>();
    for (let i = 0; i < blobs.length; i += CHUNK) {
      const chunk = blobs.slice(i, i + CHUNK);
      const rows = await this.db
        .updateTable("analysis_cache")
        .set({ last_used_at: sql`now()` })
        .where("project_id", "=", this.projectId)
        // Implied by the project; kept as every tenant query has it.
        .where("organization_id", "=", this.organizationId)
        .where("analyzer", "=", analyzer)
        .where("analyzer_version", "=", version)
        .where("blob_sha", "in", chunk)
        .returning(["blob_sha", "findings"])
        .execute();
      for (const r of rows) out.set(r.blob_sha, r.findings as T[]);
    }
    return out;
  }

  async put<T>(analyzer: string, version: string, entries: ReadonlyMap<string, T[]>): Promise<void> {
    const rows = [...entries].map(([blob, findings]) => ({
      organization_id: this.organizationId,
      project_id: this.projectId,
      analyzer,
      analyzer_version: version,
      blob_sha: blob,
      findings: JSON.stringify(findings),
    }));
    for (let i = 0; i < rows.length; i += CHUNK) {
      await this.db
        .insertInto("analysis_cache")
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) =>
          oc.columns(["project_id", "analyzer", "analyzer_version", "blob_sha"]).doUpdateSet((eb) => ({
            findings: eb.ref("excluded.findings"),
            last_used_at: sql`now()`,
          })),
        )
        .execute();
    }
  }
}

/** Removes cache entries not used for `days`; returns how many. */
export async function pruneAnalysisCache(db: Db, days: number): Promise<number> {
  const res = await db
    .deleteFrom("analysis_cache")
    .where("last_used_at", "<", new Date(Date.now() - days * 86_400_000))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

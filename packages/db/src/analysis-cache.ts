import { sql } from "kysely";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import type { Db } from "./client";

const CHUNK = 500;

/** The review model's label of a finding (auto-triage): stored on the finding and kept in the cache. */
export interface AiLabel {
  class: string;
  confidence: number;
  model: string;
  /** The evidence that weighed most, in words (labels kept before reasons existed have none). */
  reasons?: string[];
}

/**
 * What each kind of entry holds: the JSON of a row's `findings` column, as written. The
 * shapes are the scanner's CachedFinding and StoredScanResult (its AnalysisCache port, which
 * this store implements: the compiler checks they agree where the worker passes one as the
 * other) and the worker's per-finding and per-commit labels.
 */
export interface AnalysisCacheEntries {
  /** A cacheable analyzer's findings in one file, by the file's cache key (without path or fingerprint). */
  findings: Omit<NormalizedFinding, "file" | "fingerprint">[];
  /** A commit's whole analysis, by commit id. */
  scanResult: { findings: NormalizedFinding[]; analyzers: AnalyzerRun[]; languages: string[]; selection: Record<string, unknown> };
  /** The review model's label of one finding, by a digest of the finding and its directory's code. */
  label: AiLabel;
  /** The labels of a whole commit's findings, by fingerprint. */
  commitLabels: Record<string, AiLabel>;
}

type CachedFindings = AnalysisCacheEntries["findings"];
type ScanResultEntry = AnalysisCacheEntries["scanResult"];

/**
 * The `analyzer` column of the entries that are not an analyzer's per-file findings (those
 * are under the analyzer's name). A value that holds one item is stored as a one-element
 * array, the column's original shape.
 */
const SCAN_RESULT = "scan-result";
const AI_LABEL = "ai-label";
const AI_COMMIT_LABELS = "ai-labels";

/**
 * The analysis cache of one project (the scanner's AnalysisCache, structurally): cached
 * findings of a cacheable analyzer per git blob, whole-scan results per commit, the review
 * model's labels — one typed pair of methods per kind of entry. Per project rather than per
 * organization because the entries hold code (snippets, labels of it): a foreign key deletes
 * them with their project in the group hard delete's transaction, and refuses a late write by
 * a scan of a deleted project. Entries unused for a while are pruned.
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

  /** An analyzer's cached findings of each file key that has an entry (empty: analyzed, nothing found). */
  get(analyzer: string, version: string, keys: readonly string[]): Promise<Map<string, CachedFindings>> {
    return this.read<CachedFindings>(analyzer, version, keys);
  }

  put(analyzer: string, version: string, entries: ReadonlyMap<string, CachedFindings>): Promise<void> {
    return this.write(analyzer, version, entries);
  }

  /** The stored analysis of `commit` under `version` (a digest of the analyzers and scanner code), if any. */
  async getScanResult(version: string, commit: string): Promise<ScanResultEntry | undefined> {
    return (await this.read<[ScanResultEntry]>(SCAN_RESULT, version, [commit])).get(commit)?.[0];
  }

  putScanResult(version: string, commit: string, result: ScanResultEntry): Promise<void> {
    return this.write(SCAN_RESULT, version, new Map([[commit, [result]]]));
  }

  /** The kept label of each key that has one; `model` is a digest of the review model. */
  async getLabels(model: string, keys: readonly string[]): Promise<Map<string, AiLabel>> {
    const rows = await this.read<[AiLabel]>(AI_LABEL, model, keys);
    return new Map([...rows].map(([key, [label]]) => [key, label]));
  }

  putLabels(model: string, labels: ReadonlyMap<string, AiLabel>): Promise<void> {
    return this.write(AI_LABEL, model, new Map([...labels].map(([key, label]) => [key, [label]])));
  }

  /** The labels of a whole commit's findings, by fingerprint, if kept. */
  async getCommitLabels(model: string, commit: string): Promise<Record<string, AiLabel> | undefined> {
    return (await this.read<[Record<string, AiLabel>]>(AI_COMMIT_LABELS, model, [commit])).get(commit)?.[0];
  }

  putCommitLabels(model: string, commit: string, labels: Record<string, AiLabel>): Promise<void> {
    return this.write(AI_COMMIT_LABELS, model, new Map([[commit, [labels]]]));
  }

  /**
   * The entries of `keys` under (analyzer, version), marked used. Each kind's rows are written
   * only by that kind's put, so a row reads back as the value its put was given.
   */
  private async read<V extends unknown[]>(analyzer: string, version: string, keys: readonly string[]): Promise<Map<string, V>> {
    const out = new Map<string, V>();
    for (let i = 0; i < keys.length; i += CHUNK) {
      const chunk = keys.slice(i, i + CHUNK);
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
      for (const r of rows) out.set(r.blob_sha, r.findings as V);
    }
    return out;
  }

  private async write(analyzer: string, version: string, entries: ReadonlyMap<string, unknown[]>): Promise<void> {
    const rows = [...entries].map(([key, value]) => ({
      organization_id: this.organizationId,
      project_id: this.projectId,
      analyzer,
      analyzer_version: version,
      blob_sha: key,
      findings: JSON.stringify(value),
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

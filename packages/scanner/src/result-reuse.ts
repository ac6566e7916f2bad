/**
 * Whole-scan reuse: a scan of a commit that the same project has already analysed, by
 * the same analyzers at the same versions and with the same scanner code, gets that analysis
 * back instead of running it again. The content of a commit is fixed (its id is a digest of
 * the tree), and so is everything a run reads from it (.ax.yml included), so the result is
 * the same one. It is kept in the project's analysis cache (one entry per commit), so it is
 * tenant-scoped, deleted with the project, pruned and switched off as the per-file entries are.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AnalysisCache, StoredScanResult } from "./cache";
import type { Analyzer } from "./analyzers/types";

let codeDigest: string | null | undefined;
/**
 * A digest of the scanner's own sources (selection, postprocessing, fingerprints, adapters'
 * mappings): a worker with different code never reuses another's results. Null when the
 * sources cannot be read (a bundled build): then nothing is reused.
 */
function scannerCodeDigest(): string | null {
  if (codeDigest !== undefined) return codeDigest;
  try {
    const root = dirname(fileURLToPath(import.meta.url));
    const hash = createHash("sha256");
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (/\.(ts|mjs|js|json)$/.test(e.name) && !/\.test\.ts$/.test(e.name))
          hash.update(e.name).update("\0").update(readFileSync(full)).update("\0");
      }
    };
    walk(root);
    codeDigest = hash.digest("hex");
  } catch {
    codeDigest = null;
  }
  return codeDigest;
}

/**
 * The cache version of a whole-scan entry for these analyzers, or null when one of them cannot
 * say its version (nothing is then reused or stored).
 */
export async function scanResultVersion(analyzers: readonly Analyzer[]): Promise<string | null> {
  const digest = scannerCodeDigest();
  if (!digest) return null;
  try {
    const versions = await Promise.all(analyzers.map(async (a) => [a.name, await a.version(), a.languages, a.cacheable] as const));
    return createHash("sha256")
      .update(JSON.stringify([1, digest, versions]))
      .digest("hex");
  } catch {
    return null;
  }
}

export async function loadScanResult(cache: AnalysisCache, version: string, commit: string): Promise<StoredScanResult | null> {
  const entry = await cache.getScanResult(version, commit).catch(() => undefined);
  if (!entry || !Array.isArray(entry.findings) || !Array.isArray(entry.analyzers)) return null;
  return {
    ...entry,
    // Reported as what it is: nothing ran, every file's results came from the cache.
    analyzers: entry.analyzers.map((a) => ({ ...a, duration_ms: 0, ...(a.files !== undefined ? { cached_files: a.files } : {}) })),
  };
}

/** Stores a result only when every analyzer completed or was skipped: a failed or timed-out run is not the commit's result. */
export async function storeScanResult(cache: AnalysisCache, version: string, commit: string, result: StoredScanResult): Promise<void> {
  if (!result.analyzers.every((a) => a.status === "completed" || a.status === "skipped")) return;
  await cache.putScanResult(version, commit, result).catch(() => undefined);
}

/** The stored analysis of `commit` by these analyzers, if the project's cache has one. */
export async function reusableScanResult(
  cache: AnalysisCache,
  analyzers: readonly Analyzer[],
  commit: string,
): Promise<StoredScanResult | null> {
  const version = await scanResultVersion(analyzers);
  return version ? loadScanResult(cache, version, commit) : null;
}

/**
 * Incremental rescans: a cacheable analyzer's findings for a file depend only on the file's
 * content and the analyzer's version (which includes the rule pack's), so they are stored
 * per (analyzer, version, git blob id) and reused by every later scan of any repository
 * that contains the same blob. A file is re-analyzed only when its content changed.
 */
import type { NormalizedFinding } from "@ax/contracts";

/** A finding as cached: without the path (the same blob may sit at several paths) or fingerprint. */
export type CachedFinding = Omit<NormalizedFinding, "file" | "fingerprint">;

export interface AnalysisCache {
  /** The cached findings of each blob that has an entry (an empty array: analyzed, nothing found). */
  get(analyzer: string, version: string, blobs: readonly string[]): Promise<Map<string, CachedFinding[]>>;
  put(analyzer: string, version: string, entries: ReadonlyMap<string, CachedFinding[]>): Promise<void>;
}

export function toCached(f: NormalizedFinding): CachedFinding {
  const { file: _file, fingerprint: _fp, ...rest } = f;
  return rest;
}

export function fromCached(f: CachedFinding, file: string): NormalizedFinding {
  return { ...f, file, fingerprint: "" };
}

/** An in-memory cache, for tests and single runs. */
export class MemoryAnalysisCache implements AnalysisCache {
  readonly entries = new Map<string, CachedFinding[]>();
  async get(analyzer: string, version: string, blobs: readonly string[]) {
    const out = new Map<string, CachedFinding[]>();
    for (const blob of blobs) {
      const hit = this.entries.get(`${analyzer}\0${version}\0${blob}`);
      if (hit) out.set(blob, structuredClone(hit));
    }
    return out;
  }
  async put(analyzer: string, version: string, entries: ReadonlyMap<string, CachedFinding[]>) {
    for (const [blob, findings] of entries) this.entries.set(`${analyzer}\0${version}\0${blob}`, structuredClone(findings));
  }
}

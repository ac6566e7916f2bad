/**
 * Incremental rescans: a cacheable analyzer's findings for a file depend only on the file —
 * its content and its path — and the analyzer's version (which includes the rule pack's), so
 * they are stored per (analyzer, version, git blob id and path) and reused by every later
 * scan of any repository that has the same blob at the same path. A file is re-analyzed only
 * when its content or its path changed.
 */
import { createHash } from "node:crypto";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";

/** A finding as cached: without the path (the key has it) or fingerprint. */
export type CachedFinding = Omit<NormalizedFinding, "file" | "fingerprint">;

/**
 * The key of a file's entry: its blob id and its path. The content alone does not decide what
 * an analyzer reports: the language comes from the extension, bandit drops asserts and
 * ast-grep rules ignore some matches under test directories, the secrets detector reads bare
 * `KEY=value` lines only in config files. So a blob's results are reused only at the path
 * they were found at; renamed or copied content is analysed again, which costs one file. The
 * path is hashed: the key stays short and plain text whatever the path's length or bytes.
 */
export function cacheKey(blob: string, path: string): string {
  return `${blob}:${createHash("sha256").update(path).digest("hex").slice(0, 32)}`;
}

/** A commit's whole analysis, as kept for a later scan of the same commit (result-reuse.ts). */
export interface StoredScanResult {
  findings: NormalizedFinding[];
  analyzers: AnalyzerRun[];
  languages: string[];
  selection: Record<string, unknown>;
  /** Pattern matches the taint analysis refuted (absent in results stored before they were kept). */
  refuted?: NormalizedFinding[];
}

/** A project's analysis cache: one typed pair of methods per kind of entry. */
export interface AnalysisCache {
  /**
   * An analyzer's cached findings of each file that has an entry (an empty array: analyzed,
   * nothing found), by the file's cacheKey.
   */
  get(analyzer: string, version: string, keys: readonly string[]): Promise<Map<string, CachedFinding[]>>;
  put(analyzer: string, version: string, entries: ReadonlyMap<string, CachedFinding[]>): Promise<void>;
  /** The stored analysis of a commit under `version` (result-reuse.ts: analyzers and scanner code). */
  getScanResult(version: string, commit: string): Promise<StoredScanResult | undefined>;
  putScanResult(version: string, commit: string, result: StoredScanResult): Promise<void>;
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
  readonly scanResults = new Map<string, StoredScanResult>();
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
  async getScanResult(version: string, commit: string) {
    const hit = this.scanResults.get(`${version}\0${commit}`);
    return hit && structuredClone(hit);
  }
  async putScanResult(version: string, commit: string, result: StoredScanResult) {
    this.scanResults.set(`${version}\0${commit}`, structuredClone(result));
  }
}

/**
 * Runs every applicable analyzer over a checkout, two at a time (each may use all cores),
 * and turns each outcome into an AnalyzerRun: a missing tool is "skipped", a slow
 * one "timeout", a broken one "failed" — always with a notice and never a throw, so one bad
 * tool doesn't cost the scan the others' findings. Only cancellation stops the loop.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import { defaultAnalyzers } from "./analyzers/registry";
import { cacheKey, fromCached, toCached, type AnalysisCache, type CachedFinding } from "./cache";
import { postprocess } from "./postprocess";
import { filesFor, selectFiles, type Selection } from "./selection";
import {
  AnalyzerFailedError,
  AnalyzerOutputLimitError,
  AnalyzerTimeoutError,
  AnalyzerUnavailableError,
  type Analyzer,
  type AnalyzerContext,
  type AnalyzerNotes,
} from "./analyzers/types";
import { DATAFLOW } from "./analyzers/dataflow";
import { ScanAbortedError, throwIfAborted } from "./errors";
import { formatDuration } from "./format";
import { loadScanResult, scanResultVersion, storeScanResult } from "./result-reuse";

export interface RunAnalyzersOptions {
  dir: string;
  /** Per analyzer. The scan's overall limit is the caller's signal. */
  timeoutMs: number;
  /** Per analyzer, on the tool's stdout. */
  maxOutputBytes: number;
  signal?: AbortSignal;
  threads?: number;
  /** 0–100, after each analyzer. */
  onProgress?: (pct: number) => void;
  /** Defaults to the registry; tests and operators can pass their own list. */
  analyzers?: Analyzer[];
  /** Per-file result cache for cacheable analyzers; needs `blobs`. */
  cache?: AnalysisCache;
  /** Git blob id of each repo-relative path (checkoutRepository's `blobs`). */
  blobs?: ReadonlyMap<string, string>;
  /**
   * The checkout's commit. With `cache`, an earlier analysis of this commit by the same
   * analyzers (same versions, same scanner code) is returned instead of running them again,
   * and a new one is stored for later scans (result-reuse.ts).
   */
  commit?: string;
  /** Analyzer state kept between scans of this project on this worker (AnalyzerContext.stateDir). */
  stateDir?: string;
}

export interface SelectionSummary {
  files: number;
  skipped: Selection["skipped"];
  config_file: string | null;
  /** A problem with the repository's .ax.yml (it was ignored), or null. */
  config_notice: string | null;
  excluded_by_rule: number;
  suppressed: number;
  merged: number;
  /** Pattern matches the taint analysis refuted (in `refuted`, not in `findings`). */
  refuted: number;
}

export interface RunAnalyzersResult {
  findings: NormalizedFinding[];
  /**
   * Pattern matches the taint analysis refuted: it read the sink and no untrusted source
   * reaches it. Not findings — not stored, listed or counted as such; kept for inspection
   * with the reason (`dataflow.status = "refuted"`).
   */
  refuted: NormalizedFinding[];
  analyzers: AnalyzerRun[];
  languages: string[];
  selection: SelectionSummary;
}

export async function runAnalyzers(opts: RunAnalyzersOptions): Promise<RunAnalyzersResult> {
  throwIfAborted(opts.signal);
  const analyzers = opts.analyzers ?? defaultAnalyzers();
  const reuse = opts.cache && opts.commit ? { cache: opts.cache, commit: opts.commit, version: await scanResultVersion(analyzers) } : null;
  if (reuse?.version) {
    const earlier = await loadScanResult(reuse.cache, reuse.version, reuse.commit);
    if (earlier) {
      opts.onProgress?.(100);
      return { ...earlier, refuted: earlier.refuted ?? [], selection: earlier.selection as unknown as SelectionSummary };
    }
  }
  const result = await analyze(opts, analyzers);
  if (reuse?.version) await storeScanResult(reuse.cache, reuse.version, reuse.commit, { ...result, selection: { ...result.selection } });
  return result;
}

/**
 * Analyzers of the sequence running at once. Two: on the benchmark's 1% rescan the sequence
 * went from the sum of the analyzers' start-ups to about the longest of them, and a first
 * scan still runs at most two tools beside the dataflow thread (docs/performance.md).
 */
const SEQUENCE_LANES = 2;

/**
 * Threads for the tools of the sequence: all the scan may use, less one core while a
 * concurrent analyzer (the dataflow thread, single-threaded and the longest run of a first
 * scan) has files to analyse, so that it is not slowed by tools that finish sooner anyway.
 */
function sequenceThreads(threads: number | undefined, analyzers: readonly Analyzer[], selection: Selection): number | undefined {
  const busy = analyzers.some((a) => a.concurrent && filesFor(selection, a.languages).length > 0);
  if (!busy) return threads;
  return Math.max(1, (threads && threads > 0 ? threads : availableParallelism()) - 1);
}

async function analyze(opts: RunAnalyzersOptions, analyzers: Analyzer[]): Promise<RunAnalyzersResult> {
  const selection = await selectFiles(opts.dir);
  const runs: AnalyzerRun[] = [];
  const collected: NormalizedFinding[] = [];
  const scratchRoot = await mkdtemp(join(tmpdir(), "ax-analyzers-"));
  const notes: AnalyzerNotes = {};
  try {
    let done = 0;
    const threads = sequenceThreads(opts.threads, analyzers, selection);
    const start = async (analyzer: Analyzer) => {
      const scratchDir = await mkdtemp(join(scratchRoot, "run-"));
      const files = filesFor(selection, analyzer.languages);
      const own = analyzer.concurrent ? {} : { threads };
      const outcome = await runOne(analyzer, { ...opts, ...own, languages: selection.languages, scratchDir, files, notes });
      opts.onProgress?.(Math.round((++done / analyzers.length) * 100));
      return outcome;
    };
    // Concurrent analyzers start first and run beside the sequence; results keep registry order.
    const background = new Map(analyzers.filter((a) => a.concurrent).map((a) => [a, start(a)] as const));
    // Each background promise is awaited below; until then a rejection must not go unhandled.
    for (const p of background.values()) p.catch(() => undefined);
    const outcomes = new Map<Analyzer, Awaited<ReturnType<typeof start>>>();
    let failure: unknown = null;
    // The others in registry order, SEQUENCE_LANES at a time: on a rescan each gets a few
    // changed files and its run is mostly its own start-up, which two lanes overlap; a
    // stopped scan starts no further analyzer.
    const waiting = analyzers.filter((a) => !a.concurrent);
    const lane = async () => {
      for (let analyzer = waiting.shift(); analyzer && !failure; analyzer = waiting.shift()) {
        try {
          throwIfAborted(opts.signal);
          outcomes.set(analyzer, await start(analyzer));
        } catch (err) {
          failure ??= err;
        }
      }
    };
    await Promise.all(Array.from({ length: SEQUENCE_LANES }, lane));
    // Even when the sequence stopped (cancellation), the concurrent ones are waited for: no
    // thread outlives the scan.
    for (const [analyzer, p] of background) {
      try {
        outcomes.set(analyzer, await p);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure) throw failure;
    for (const analyzer of analyzers) {
      const outcome = outcomes.get(analyzer);
      if (!outcome) continue;
      runs.push(outcome.run);
      collected.push(...outcome.findings);
    }
  } finally {
    await rm(scratchRoot, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
  const dataflowAnalyzed = runs.some((r) => r.name === DATAFLOW && r.status === "completed");
  const { findings, refuted, stats } = await postprocess(
    opts.dir,
    collected,
    selection.config,
    analyzers.map((a) => a.name),
    dataflowAnalyzed ? { sites: notes.dataflowSites ?? [] } : null,
  );
  return {
    findings,
    refuted,
    analyzers: runs,
    languages: [...selection.languages].sort(),
    selection: {
      files: selection.files.length,
      skipped: selection.skipped,
      config_file: selection.config.file,
      config_notice: selection.config.notice,
      ...stats,
    },
  };
}

type RunInput = Omit<RunAnalyzersOptions, "analyzers" | "onProgress"> & {
  languages: ReadonlySet<string>;
  scratchDir: string;
  files: string[];
  notes: AnalyzerNotes;
};

async function runOne(analyzer: Analyzer, input: RunInput): Promise<{ run: AnalyzerRun; findings: NormalizedFinding[] }> {
  const started = performance.now();
  let version: string | null = null;
  let cachedFiles = 0;
  const done = (status: AnalyzerRun["status"], findings: NormalizedFinding[], notice?: string) => ({
    run: {
      name: analyzer.name,
      version,
      status,
      ...(notice ? { notice } : {}),
      duration_ms: Math.round(performance.now() - started),
      findings: findings.length,
      files: input.files.length,
      cached_files: cachedFiles,
    },
    findings,
  });

  if (input.files.length === 0) return done("skipped", [], `No files in a language ${analyzer.name} analyzes.`);
  const limit = new AnalyzerLimit(analyzer.name, input.timeoutMs, input.signal);
  try {
    version = await raceAbort(analyzer.version(), limit.signal);
    if (version === null) return done("skipped", [], `${analyzer.name} is not installed on this worker.`);
    // The cache only saves work: if it cannot be read (its database restarting), every file is
    // analysed, and if it cannot be written the results still stand. Its failure must never
    // cost an analyzer its findings.
    const cached =
      analyzer.cacheable && input.cache && input.blobs
        ? await lookupCache(analyzer.name, version, input.files, input.cache, input.blobs).catch(() => null)
        : null;
    const fromCache = cached?.findings ?? [];
    cachedFiles = input.files.length - (cached?.toRun.length ?? input.files.length);
    const toRun = cached?.toRun ?? input.files;
    if (toRun.length === 0) return done("completed", fromCache);
    const ctx: AnalyzerContext = { ...input, files: toRun, signal: limit.signal };
    const fresh = await raceAbort(analyzer.run(ctx), limit.signal);
    if (input.cache && input.blobs && analyzer.cacheable)
      await storeCache(analyzer.name, version, toRun, fresh, input.cache, input.blobs).catch(() => undefined);
    return done("completed", [...fromCache, ...fresh]);
  } catch (err) {
    if (input.signal?.aborted) throw new ScanAbortedError();
    if (err instanceof AnalyzerUnavailableError) return done("skipped", [], err.message);
    if (err instanceof AnalyzerTimeoutError) return done("timeout", [], err.message);
    if (err instanceof AnalyzerOutputLimitError) return done("failed", err.partial, err.message);
    if (err instanceof AnalyzerFailedError) return done("failed", [], err.notice);
    // Unknown errors may carry paths or internals: the notice stays generic.
    return done("failed", [], `${analyzer.name} failed unexpectedly.`);
  } finally {
    limit.dispose();
  }
}

/** Each file's cache key (cache.ts: its blob id and path); files without a blob id are never cached. */
function cacheKeys(files: readonly string[], blobs: ReadonlyMap<string, string>): Map<string, string> {
  const keys = new Map<string, string>();
  for (const file of files) {
    const blob = blobs.get(file);
    if (blob) keys.set(file, cacheKey(blob, file));
  }
  return keys;
}

async function lookupCache(name: string, version: string, files: string[], cache: AnalysisCache, blobs: ReadonlyMap<string, string>) {
  const keys = cacheKeys(files, blobs);
  const hits = await cache.get(name, version, [...new Set(keys.values())]);
  const findings: NormalizedFinding[] = [];
  const toRun: string[] = [];
  for (const file of files) {
    const key = keys.get(file);
    const hit = key ? hits.get(key) : undefined;
    if (hit) findings.push(...hit.map((f) => fromCached(f, file)));
    else toRun.push(file);
  }
  return { findings, toRun };
}

/** Only a completed run is cached, and every analyzed file gets an entry, empty or not. */
async function storeCache(
  name: string,
  version: string,
  files: string[],
  findings: NormalizedFinding[],
  cache: AnalysisCache,
  blobs: ReadonlyMap<string, string>,
) {
  const keys = cacheKeys(files, blobs);
  const entries = new Map<string, CachedFinding[]>([...keys.values()].map((key) => [key, []]));
  for (const f of findings) {
    const key = keys.get(f.file);
    if (key) entries.get(key)?.push(toCached(f));
  }
  await cache.put(name, version, entries);
}

/** The analyzer's signal: fires with an AnalyzerTimeoutError at the limit, or on the caller's cancel. */
class AnalyzerLimit {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onOuter = (): void => this.controller.abort(new ScanAbortedError());

  constructor(
    name: string,
    timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    const message = `${name} did not finish within ${formatDuration(timeoutMs)}.`;
    this.timer = setTimeout(() => this.controller.abort(new AnalyzerTimeoutError(message)), timeoutMs);
    // A signal that fired already never fires again: an analyzer started after the scan was
    // cancelled must stop at once.
    if (outer?.aborted) this.onOuter();
    else outer?.addEventListener("abort", this.onOuter, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuter);
  }
}

/** Rejects with the signal's reason as soon as it fires, even if the analyzer ignores it. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // The work started before this call (the scan was stopped meanwhile): its own rejection,
    // when it notices the signal, must still be observed, or it is an unhandled rejection.
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

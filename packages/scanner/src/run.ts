/**
 * Runs every applicable analyzer over a checkout, one after another (each may use all
 * cores), and turns each outcome into an AnalyzerRun: a missing tool is "skipped", a slow
 * one "timeout", a broken one "failed" — always with a notice and never a throw, so one bad
 * tool doesn't cost the scan the others' findings. Only cancellation stops the loop.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import { defaultAnalyzers } from "./analyzers/registry";
import {
  AnalyzerFailedError,
  AnalyzerOutputLimitError,
  AnalyzerTimeoutError,
  AnalyzerUnavailableError,
  type Analyzer,
  type AnalyzerContext,
} from "./analyzers/types";
import { ScanAbortedError, throwIfAborted } from "./errors";
import { fingerprintFindings } from "./fingerprint";
import { formatDuration } from "./format";
import { detectLanguages } from "./languages";

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
}

export interface RunAnalyzersResult {
  findings: NormalizedFinding[];
  analyzers: AnalyzerRun[];
  languages: string[];
}

export async function runAnalyzers(opts: RunAnalyzersOptions): Promise<RunAnalyzersResult> {
  throwIfAborted(opts.signal);
  const languages = await detectLanguages(opts.dir);
  const analyzers = opts.analyzers ?? defaultAnalyzers();
  const runs: AnalyzerRun[] = [];
  const collected: NormalizedFinding[] = [];
  const scratchRoot = await mkdtemp(join(tmpdir(), "ax-analyzers-"));
  try {
    for (const [index, analyzer] of analyzers.entries()) {
      throwIfAborted(opts.signal);
      const scratchDir = await mkdtemp(join(scratchRoot, "run-"));
      const outcome = await runOne(analyzer, { ...opts, languages, scratchDir });
      runs.push(outcome.run);
      collected.push(...outcome.findings);
      opts.onProgress?.(Math.round(((index + 1) / analyzers.length) * 100));
    }
  } finally {
    await rm(scratchRoot, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
  return { findings: finalize(collected), analyzers: runs, languages: [...languages].sort() };
}

type RunInput = Omit<RunAnalyzersOptions, "analyzers" | "onProgress"> & { languages: ReadonlySet<string>; scratchDir: string };

async function runOne(analyzer: Analyzer, input: RunInput): Promise<{ run: AnalyzerRun; findings: NormalizedFinding[] }> {
  const started = performance.now();
  let version: string | null = null;
  const done = (status: AnalyzerRun["status"], findings: NormalizedFinding[], notice?: string) => ({
    run: { name: analyzer.name, version, status, ...(notice ? { notice } : {}), duration_ms: Math.round(performance.now() - started), findings: findings.length },
    findings,
  });

  if (!analyzer.appliesTo(input.languages)) return done("skipped", [], `No files in a language ${analyzer.name} analyzes.`);
  const limit = new AnalyzerLimit(analyzer.name, input.timeoutMs, input.signal);
  try {
    version = await raceAbort(analyzer.version(), limit.signal);
    if (version === null) return done("skipped", [], `${analyzer.name} is not installed on this worker.`);
    const ctx: AnalyzerContext = { ...input, signal: limit.signal };
    return done("completed", await raceAbort(analyzer.run(ctx), limit.signal));
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

/** The analyzer's signal: fires with an AnalyzerTimeoutError at the limit, or on the caller's cancel. */
class AnalyzerLimit {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onOuter = (): void => this.controller.abort(new ScanAbortedError());

  constructor(name: string, timeoutMs: number, private readonly outer: AbortSignal | undefined) {
    const message = `${name} did not finish within ${formatDuration(timeoutMs)}.`;
    this.timer = setTimeout(() => this.controller.abort(new AnalyzerTimeoutError(message)), timeoutMs);
    outer?.addEventListener("abort", this.onOuter, { once: true });
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
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One finding per rule and location, fingerprinted, one per fingerprint, in file/line order. */
function finalize(findings: NormalizedFinding[]): NormalizedFinding[] {
  const byLocation = new Map<string, NormalizedFinding>();
  for (const f of findings) {
    const key = [f.rule_id, f.file, f.start_line, f.start_column, f.end_line, f.end_column].join("\0");
    if (!byLocation.has(key)) byLocation.set(key, f);
  }
  const byFingerprint = new Map<string, NormalizedFinding>();
  for (const f of fingerprintFindings([...byLocation.values()])) {
    if (!byFingerprint.has(f.fingerprint)) byFingerprint.set(f.fingerprint, f);
  }
  return [...byFingerprint.values()].sort(
    (a, b) => a.file.localeCompare(b.file) || a.start_line - b.start_line || a.start_column - b.start_column || a.rule_id.localeCompare(b.rule_id),
  );
}

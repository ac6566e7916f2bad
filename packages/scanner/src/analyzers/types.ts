/**
 * The contract every analyzer adapter implements. runAnalyzers (run.ts) owns the policy —
 * which analyzers run, time limits, turning failures into AnalyzerRun notices — so an
 * adapter only has to run its tool and normalise the output. To add a tool (bandit,
 * flawfinder, cppcheck, shellcheck, secrets, SARIF), implement Analyzer and add it to
 * registry.ts.
 */
import type { NormalizedFinding } from "@ax/contracts";
import type { SinkSite } from "@ax/dataflow";

/**
 * What an analyzer tells the scan besides its findings, for the scan's post-processing: the
 * taint analysis's judged sink places, which refute pattern findings (dataflow-verdicts.ts).
 */
export interface AnalyzerNotes {
  dataflowSites?: SinkSite[];
}

export interface AnalyzerContext {
  /** The checkout, the analyzer's cwd. Paths in findings are relative to it, POSIX style. */
  dir: string;
  /** Languages found by detectLanguages, e.g. "python", "javascript". */
  languages: ReadonlySet<string>;
  timeoutMs: number;
  /** Cap on the tool's stdout; past it the tool is stopped and the run reported as incomplete. */
  maxOutputBytes: number;
  /** Fires on caller cancellation or this analyzer's time limit; kill the tool on it. */
  signal: AbortSignal;
  /** A private writable directory for HOME/TMPDIR of the tool; removed after the run. */
  scratchDir: string;
  /**
   * A directory kept between scans of the same project on this worker, for state an analyzer
   * can reuse (cppcheck's build directory). Absent: nothing is kept. Never shared across
   * projects or organizations.
   */
  stateDir?: string;
  threads?: number;
  /** Written by an analyzer for the scan's post-processing (one object per scan). */
  notes?: AnalyzerNotes;
  /**
   * Repo-relative POSIX paths of the files to analyze: already filtered by the selection
   * (vendored, generated and minified files, the repository's own excludes) and by this
   * analyzer's `languages`, and, for a cacheable analyzer, only files whose results are not
   * cached. Never empty. May be long: pass it to the tool in chunks (command lines are limited).
   */
  files: readonly string[];
}

export interface Analyzer {
  readonly name: string;
  /** Languages (as named by selection.ts) whose files it reads, or "*" for every text file. */
  readonly languages: readonly string[] | "*";
  /**
   * True when a file's findings depend only on that file (its content and its path) and the
   * analyzer's version: results are then cached per git blob and path (cache.ts) and reused
   * by later scans.
   */
  readonly cacheable: boolean;
  /**
   * Runs beside the others instead of after them (it works in its own thread, so the tools
   * the others start can use the remaining cores meanwhile).
   */
  readonly concurrent?: boolean;
  /**
   * The tool's version, or null when it is not installed (the run is then skipped). Part of
   * the cache key: include anything else that changes results (e.g. the rule pack version).
   */
  version(): Promise<string | null>;
  /** Findings with `fingerprint` left empty; runAnalyzers fingerprints all analyzers together. */
  run(ctx: AnalyzerContext): Promise<NormalizedFinding[]>;
}

/** The tool or something it needs (e.g. the rule pack) is absent: the run is "skipped". */
export class AnalyzerUnavailableError extends Error {
  override readonly name = "AnalyzerUnavailableError";
}

/** The tool ran past ctx.timeoutMs: the run is "timeout". */
export class AnalyzerTimeoutError extends Error {
  override readonly name = "AnalyzerTimeoutError";
}

/**
 * The tool's output passed ctx.maxOutputBytes. The findings parsed before the cap are kept,
 * but the run is "failed": a consumer must not conclude that a missing finding was fixed.
 */
export class AnalyzerOutputLimitError extends Error {
  override readonly name = "AnalyzerOutputLimitError";
  constructor(
    message: string,
    readonly partial: NormalizedFinding[],
  ) {
    super(message);
  }
}

/**
 * The tool failed. `notice` is safe to show to the scan's owner (no stack, paths or env);
 * `detail` is for operator logs.
 */
export class AnalyzerFailedError extends Error {
  override readonly name = "AnalyzerFailedError";
  constructor(
    readonly notice: string,
    readonly detail?: string,
  ) {
    super(notice);
  }
}

/**
 * How every adapter runs its tool. One place owns the process hygiene the README promises:
 * execa with an environment built from nothing (analyzerEnv: no DATABASE_URL, keys or
 * tokens reach a tool that parses attacker-controlled files), stdin closed, a deadline, the
 * analyzer's cancel signal, a byte cap on the result stream shared by every process of the
 * run, each tool in a process group of its own (a stop reaches its children; a dying worker
 * takes them along), and `reject: false` so outcomes are mapped here, once, onto the analyzer
 * error family:
 *
 * | Outcome | Error |
 * |---|---|
 * | binary missing or not executable | AnalyzerUnavailableError → run "skipped" |
 * | past ctx.timeoutMs | AnalyzerTimeoutError → "timeout" |
 * | ctx.signal fired | its reason (AnalyzerTimeoutError) or ScanAbortedError |
 * | result stream past ctx.maxOutputBytes | `truncated: true`; see finishRun |
 * | unexpected exit code or a signal | AnalyzerFailedError with a path-free notice |
 *
 * File lists are passed in chunks that keep each command line far below the kernel's limits
 * (ARG_MAX, and 128 KiB for one argument), so a checkout of any size works.
 */
import { availableParallelism } from "node:os";
import { execa } from "execa";
import type { NormalizedFinding } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { analyzerEnv, stderrSummary, toolPath } from "../process-env";
import {
  AnalyzerFailedError,
  AnalyzerOutputLimitError,
  AnalyzerTimeoutError,
  AnalyzerUnavailableError,
  type AnalyzerContext,
} from "./types";

const MAX_DIAGNOSTIC_BYTES = 1024 * 1024;
/** Bytes of file arguments per command line: far below ARG_MAX (2 MiB) and ~100 KB. */
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
export const DEFAULT_CHUNK_FILES = 1000;

export interface ToolCommand {
  /** The tool's name in notices: "bandit is not installed on this worker." */
  tool: string;
  /** An absolute path, or a name looked up on PATH. */
  binary: string;
  /** Whether the exit code means the tool ran to the end (findings or not). Default: 0 only. */
  succeeded?: (exitCode: number, diagnostics: string) => boolean;
  /** The stream carrying the machine-readable result; it is the one capped. Default stdout. */
  resultStream?: "stdout" | "stderr";
  /** Added to analyzerEnv(ctx.scratchDir). Never the worker's own environment. */
  env?: Record<string, string>;
  /** Default ctx.dir. */
  cwd?: string;
}

export interface ToolOutput {
  /** The result stream (UTF-8), cut at the byte cap when `truncated`. */
  output: string;
  /** The other stream, capped at 1 MiB: for error notices. */
  diagnostics: string;
  exitCode: number;
}

export interface ChunkOptions {
  /** Most bytes of file arguments per command line. */
  maxBytes?: number;
  maxFiles?: number;
}

export interface FilesRun<T> {
  /** The parsed items of every chunk, in chunk order. */
  items: T[];
  /** The output cap was hit: items holds what was parsed before it. */
  truncated: boolean;
}

/**
 * Splits a file list into chunks whose arguments stay under `maxBytes` (and `maxFiles`). A
 * single name longer than the limit gets a chunk of its own rather than being dropped.
 */
export function chunkFiles(files: readonly string[], opts: ChunkOptions = {}): string[][] {
  const maxBytes = opts.maxBytes ?? DEFAULT_CHUNK_BYTES;
  const maxFiles = opts.maxFiles ?? DEFAULT_CHUNK_FILES;
  const chunks: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const file of files) {
    const size = Buffer.byteLength(file) + 1;
    if (current.length > 0 && (bytes + size > maxBytes || current.length >= maxFiles)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** `./name` for names a tool could read as an option (leading `-`); others unchanged. */
export function safeFileArg(file: string): string {
  return file.startsWith("-") ? `./${file}` : file;
}

/** Processes to run at once for single-threaded tools (threads 0 or unset: the machine's cores, at most 8). */
export function concurrencyFor(ctx: AnalyzerContext): number {
  const threads = ctx.threads && ctx.threads > 0 ? ctx.threads : availableParallelism();
  return Math.max(1, Math.min(threads, 8));
}

/** Runs the tool once (no file chunking): for tools that take a file list file. */
export async function runTool(ctx: AnalyzerContext, cmd: ToolCommand, args: string[]): Promise<ToolOutput & { truncated: boolean }> {
  const budget = new OutputBudget(ctx.maxOutputBytes);
  const run = new RunState(ctx);
  try {
    const outcome = await spawnOnce(ctx, cmd, args, budget, run);
    if (outcome.kind === "ok") return { ...outcome, truncated: false };
    if (outcome.kind === "limit") return { output: outcome.output, diagnostics: "", exitCode: -1, truncated: true };
    throw run.errorFor(outcome, cmd.tool);
  } finally {
    run.dispose();
  }
}

/**
 * Runs the tool over `files` in chunks, `concurrency` processes at a time, and parses each
 * chunk's output. The output cap is shared: the run stops when all chunks together pass it.
 * The first failure stops the other processes and is thrown.
 */
export async function runToolOnFiles<T>(
  ctx: AnalyzerContext,
  cmd: ToolCommand,
  opts: {
    files: readonly string[];
    args: (chunk: string[]) => string[];
    /** `complete` is false for output cut at the cap (parse what is whole, drop the rest). */
    parse: (output: ToolOutput, complete: boolean, chunk: string[]) => T[];
    concurrency?: number;
    chunk?: ChunkOptions;
  },
): Promise<FilesRun<T>> {
  const chunks = chunkFiles(opts.files, opts.chunk);
  const results: (T[] | undefined)[] = new Array(chunks.length);
  const budget = new OutputBudget(ctx.maxOutputBytes);
  const run = new RunState(ctx);
  let truncated = false;
  let failure: Outcome | undefined;
  let next = 0;

  const worker = async (): Promise<void> => {
    while (next < chunks.length && !failure && !truncated) {
      const index = next++;
      const chunk = chunks[index] as string[];
      const outcome = await spawnOnce(ctx, cmd, opts.args(chunk), budget, run);
      if (outcome.kind === "ok") results[index] = opts.parse(outcome, true, chunk);
      else if (outcome.kind === "limit") {
        truncated = true;
        results[index] = opts.parse({ output: outcome.output, diagnostics: "", exitCode: -1 }, false, chunk);
        run.stopOthers();
      } else if (outcome.kind !== "stopped") {
        failure ??= outcome;
        run.stopOthers();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 1, chunks.length) }, worker));
    if (failure) throw run.errorFor(failure, cmd.tool);
    if (ctx.signal.aborted) throw run.errorFor({ kind: "canceled" }, cmd.tool);
    return { items: results.flatMap((r) => r ?? []), truncated };
  } finally {
    run.dispose();
  }
}

/** Returns the findings, or throws AnalyzerOutputLimitError carrying them when the cap was hit. */
export function finishRun(ctx: AnalyzerContext, tool: string, findings: NormalizedFinding[], truncated: boolean): NormalizedFinding[] {
  if (!truncated) return findings;
  throw new AnalyzerOutputLimitError(
    `${tool} produced more than ${formatBytes(ctx.maxOutputBytes)} of output; ${findings.length} findings were kept and the rest dropped.`,
    findings,
  );
}

/**
 * `binary args` → the first capture of `pattern` in its output, or null when the tool is
 * missing or says something else. For Analyzer.version().
 */
export async function toolVersion(binary: string, args: string[], pattern: RegExp): Promise<string | null> {
  const result = await execa(binary, args, {
    reject: false,
    timeout: 15_000,
    extendEnv: false,
    env: { PATH: toolPath(), LANG: "C", LC_ALL: "C" },
    stdin: "ignore",
    maxBuffer: 64 * 1024,
    cleanup: true,
  });
  if (result.failed) return null;
  return pattern.exec(`${String(result.stdout)}\n${String(result.stderr)}`)?.[1] ?? null;
}

/** version() once per analyzer instance; a missing tool (null or a throw) is asked again next time. */
export function memoVersion(get: () => Promise<string | null>): () => Promise<string | null> {
  let found: Promise<string | null> | undefined;
  return () => {
    found ??= get().then(
      (v) => {
        if (v === null) found = undefined;
        return v;
      },
      (err: unknown) => {
        found = undefined;
        throw err;
      },
    );
    return found;
  };
}

type Outcome =
  | ({ kind: "ok" } & ToolOutput)
  | { kind: "limit"; output: string }
  | { kind: "timeout" }
  | { kind: "canceled" }
  | { kind: "stopped" }
  | { kind: "unavailable" }
  | { kind: "failed"; notice: string; detail: string };

/** Bytes left under the cap, shared by every process of one run. */
class OutputBudget {
  private used = 0;
  constructor(readonly max: number) {}
  /** False once the total passes the cap. */
  take(bytes: number): boolean {
    this.used += bytes;
    return this.used <= this.max;
  }
}

/** The run's deadline and a cancel signal that also stops sibling processes. */
class RunState {
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly onAbort = (): void => this.controller.abort();

  constructor(private readonly ctx: AnalyzerContext) {
    this.deadline = Date.now() + ctx.timeoutMs;
    if (ctx.signal.aborted) this.controller.abort();
    else ctx.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  remainingMs(): number {
    return this.deadline - Date.now();
  }

  stopOthers(): void {
    this.controller.abort();
  }

  dispose(): void {
    this.ctx.signal.removeEventListener("abort", this.onAbort);
  }

  errorFor(outcome: Outcome, tool: string): Error {
    switch (outcome.kind) {
      case "timeout":
        return new AnalyzerTimeoutError(`${tool} did not finish within ${formatDuration(this.ctx.timeoutMs)}.`);
      case "unavailable":
        return new AnalyzerUnavailableError(`${tool} is not installed on this worker.`);
      case "failed":
        return new AnalyzerFailedError(outcome.notice, outcome.detail);
      default: {
        // Our signal fires for the caller's cancel and for the per-analyzer time limit alike.
        const reason: unknown = this.ctx.signal.reason;
        if (reason instanceof AnalyzerTimeoutError) return reason;
        return new ScanAbortedError();
      }
    }
  }
}

/** Seconds timeout(1) waits past our own deadline before it stops, then kills, the tool. */
const OS_DEADLINE_GRACE_S = 5;

async function spawnOnce(ctx: AnalyzerContext, cmd: ToolCommand, args: string[], budget: OutputBudget, run: RunState): Promise<Outcome> {
  if (ctx.signal.aborted) return { kind: "canceled" };
  if (run.signal.aborted) return { kind: "stopped" };
  const timeout = run.remainingMs();
  if (timeout <= 0) return { kind: "timeout" };
  const resultStream = cmd.resultStream ?? "stdout";
  const other = resultStream === "stdout" ? "stderr" : "stdout";
  let stop: "timeout" | "cancel" | "limit" | null = null;

  // coreutils timeout(1) as a second line of defence: our timer below stops the group, but a
  // worker killed with SIGKILL runs no timer, and its analyzers would run on unbounded.
  const deadline = `${Math.ceil(timeout / 1000) + OS_DEADLINE_GRACE_S}s`;
  const subprocess = execa("timeout", [`--kill-after=${OS_DEADLINE_GRACE_S}s`, deadline, cmd.binary, ...args], {
    cwd: cmd.cwd ?? ctx.dir,
    extendEnv: false,
    env: { ...analyzerEnv(ctx.scratchDir), ...cmd.env },
    stdin: "ignore",
    // Its own process group, so a stop reaches the tool's children too (cppcheck -j workers,
    // wrapper scripts): killing only the leader leaves them running with our pipes open.
    detached: true,
    // Bytes, not characters: the cap is a memory bound.
    encoding: "buffer",
    stripFinalNewline: false,
    maxBuffer: { [resultStream]: budget.max, [other]: MAX_DIAGNOSTIC_BYTES },
    // execa's `cleanup` skips detached processes; liveGroups below does that job for the group.
    reject: false,
  });
  const group = new ProcessGroup(subprocess.pid);
  const halt = (why: "timeout" | "cancel" | "limit") => {
    stop ??= why;
    group.stop();
  };
  const timer = setTimeout(() => halt("timeout"), timeout);
  const onAbort = () => halt("cancel");
  run.signal.addEventListener("abort", onAbort, { once: true });
  subprocess[resultStream]?.on("data", (chunk: Uint8Array) => {
    if (!budget.take(chunk.length)) halt("limit");
  });
  let result: Awaited<typeof subprocess>;
  try {
    result = await subprocess;
  } finally {
    clearTimeout(timer);
    run.signal.removeEventListener("abort", onAbort);
    group.dispose();
  }
  const output = Buffer.from((result[resultStream] as Uint8Array | undefined) ?? new Uint8Array()).toString("utf8");
  const diagnostics = Buffer.from((result[other] as Uint8Array | undefined) ?? new Uint8Array()).toString("utf8");

  if (stop === "timeout") return { kind: "timeout" };
  if (ctx.signal.aborted) return { kind: "canceled" };
  if (stop === "limit") return { kind: "limit", output };
  if (stop === "cancel") return { kind: "stopped" };
  if (result.isMaxBuffer) {
    // execa stops the process when either stream passes its buffer: the result stream is the
    // output cap; the other one is a tool spamming diagnostics, which is a failure.
    const resultBytes = (result[resultStream] as Uint8Array | undefined)?.length ?? 0;
    if (resultBytes >= budget.max) return { kind: "limit", output };
    return {
      kind: "failed",
      notice: `${cmd.tool} failed: it wrote more than ${formatBytes(MAX_DIAGNOSTIC_BYTES)} of diagnostics.`,
      detail: diagnostics.slice(0, 4000),
    };
  }
  const code = (result as { code?: unknown }).code;
  if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR") return { kind: "unavailable" };
  const exitCode = result.exitCode;
  // timeout(1): 127 the command was not found, 126 it could not be run.
  if ((exitCode === 127 || exitCode === 126) && /^timeout: failed to run command/m.test(`${output}\n${diagnostics}`))
    return { kind: "unavailable" };
  const ok = exitCode !== undefined && (cmd.succeeded ? cmd.succeeded(exitCode, diagnostics) : exitCode === 0);
  if (!ok) {
    const summary = stderrSummary(diagnostics);
    const how = exitCode === undefined ? (result.signal ? `killed by ${result.signal}` : "no exit code") : `exit code ${exitCode}`;
    return { kind: "failed", notice: `${cmd.tool} failed (${how})${summary ? `: ${summary}` : "."}`, detail: diagnostics.slice(0, 4000) };
  }
  return { kind: "ok", output, diagnostics, exitCode };
}

/**
 * Tool process groups still running. execa's `cleanup` does not cover detached processes, so
 * the worker kills these itself when it exits (graceful shutdown, process.exit, crash).
 */
const liveGroups = new Set<ProcessGroup>();
let exitHook = false;

/** SIGTERM to the tool's whole process group, SIGKILL two seconds later if it is still there. */
class ProcessGroup {
  private killTimer: NodeJS.Timeout | undefined;
  private exited = false;

  constructor(private readonly pid: number | undefined) {
    liveGroups.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once("exit", () => {
        for (const g of liveGroups) g.signal("SIGKILL");
      });
    }
  }

  stop(): void {
    if (this.killTimer || this.exited) return;
    this.signal("SIGTERM");
    this.killTimer = setTimeout(() => this.signal("SIGKILL"), 2_000);
  }

  /** After the leader exited: children that ignored SIGTERM are killed now, not later. */
  dispose(): void {
    this.exited = true;
    liveGroups.delete(this);
    if (this.killTimer) {
      clearTimeout(this.killTimer);
      this.signal("SIGKILL");
    }
  }

  signal(sig: NodeJS.Signals): void {
    if (!this.pid) return;
    try {
      process.kill(-this.pid, sig);
    } catch {
      // The group is gone already.
    }
  }
}

/**
 * The taint analysis as an analyzer of the scan: reads the Java, Python and JavaScript/
 * TypeScript files of the checkout (regular files only, bounded), lowers them and runs the
 * engine in process over all of them at once — flows cross files, so its results are not
 * cached per blob. The engine's memo of the last analysis lets a rescan replay the
 * interpretations whose inputs did not change.
 */
import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { extname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { repoPath } from "../analyzers/normalize";
import { loadTaxonomy } from "../analyzers/taxonomy";
import { AnalyzerFailedError, type Analyzer, type AnalyzerContext } from "../analyzers/types";
import { languageOfExtension } from "../languages";
import { analyzeModules, DATAFLOW } from "./engine";
import type { ModuleIR } from "./ir";
import { LOWERERS, SPECS } from "./languages";
import { engineMemo } from "./memo";

/** Larger files are generated or data more often than code, and cost the most to walk. */
const MAX_FILE_BYTES = 512 * 1024;
const ENGINE_REVISION = 1;

export const DATAFLOW_LANGUAGES = ["java", "python", "javascript", "typescript"] as const;

export function dataflowAnalyzer(): Analyzer {
  return {
    name: DATAFLOW,
    languages: [...DATAFLOW_LANGUAGES],
    cacheable: false,
    concurrent: true,
    version: () => Promise.resolve(dataflowVersion()),
    run: (ctx) => runDataflow(ctx),
  };
}

let version: string | undefined;
/** The engine revision and a digest of the language tables: a change to either is a new version. */
export function dataflowVersion(): string {
  version ??= `${ENGINE_REVISION} (tables ${createHash("sha256")
    .update(JSON.stringify([...SPECS.values()], (_k, v: unknown) => (v instanceof RegExp ? v.source : v)))
    .digest("hex")
    .slice(0, 12)})`;
  return version;
}

/** Read, lower and analyse `files` of the checkout at `dir` (in whichever thread calls it). */
export async function analyzeCheckout(dir: string, files: readonly string[], signal?: AbortSignal): Promise<NormalizedFinding[]> {
  const started = generation;
  try {
    return await analyzeFiles(dir, files, signal);
  } finally {
    // Forgotten while this ran: its files may be the deleted project's, and it has just
    // lowered them into the cache and left its interpretations in the memo.
    if (generation !== started) dropKept();
  }
}

async function analyzeFiles(dir: string, files: readonly string[], signal?: AbortSignal): Promise<NormalizedFinding[]> {
  const modules: ModuleIR[] = [];
  const lines = new Map<string, string[]>();
  for (const file of files) {
    if (signal?.aborted) break;
    const language = languageOfExtension(extname(file).toLowerCase());
    const lower = language ? LOWERERS.get(language) : undefined;
    if (!lower) continue;
    const source = await readBounded(dir, file);
    if (source === null) continue;
    const lowered = lowerCached(lower, file, source);
    if (!lowered) continue;
    modules.push(lowered.module);
    lines.set(file, lowered.lines);
    // Lowering is synchronous: let timers and cancellation in between files.
    if (modules.length % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const taxonomy = await loadTaxonomy();
  return analyzeModules(modules, { specs: SPECS, lines: (f) => lines.get(f) ?? [], taxonomy, memo, ...(signal ? { signal } : {}) });
}

/**
 * The last analysis's interpretations, for the next one in this thread. It only helps with
 * the lowered files below: an unchanged file must come back as the same IR and lines.
 */
const memo = engineMemo();

interface Lowered {
  module: ModuleIR;
  lines: string[];
  bytes: number;
}

/**
 * Lowered files of the last scans, by path and content (Map order is use order: least
 * recently used first). Lowering is half of the analysis and a rescan's files are mostly
 * unchanged; the interprocedural part, which crosses files, always runs. The IR is read-only
 * to the engine. Bounded by the source bytes it stands for.
 */
const LOWERED_CACHE_SOURCE_BYTES = 16 * 1024 * 1024;
const lowered = new Map<string, Lowered>();
let loweredBytes = 0;

/** Bumped by each forgetKeptAnalyses: an analysis that saw it change drops what it kept. */
let generation = 0;

function dropKept(): void {
  lowered.clear();
  loweredBytes = 0;
  memo.last = null;
}

/**
 * Drops the lowered files and the memo, in this thread and the analyzer's thread: both hold
 * source lines of the last scans, keyed by content, not by project, so after a project is
 * deleted (a group hard delete) none of it may stay. The next scan lowers and interprets
 * every file afresh, once; its findings are the same.
 */
export function forgetKeptAnalyses(): void {
  generation++;
  dropKept();
  thread?.forget();
}

/** What this thread keeps from earlier analyses: lowered files, and whether a memo is held. */
export function keptAnalyses(): { files: number; memo: boolean } {
  return { files: lowered.size, memo: memo.last !== null };
}

function lowerCached(lower: (file: string, source: string) => ModuleIR, file: string, source: string): Lowered | null {
  const key = createHash("sha256").update(file).update("\0").update(source).digest("hex");
  const hit = lowered.get(key);
  if (hit) {
    lowered.delete(key);
    lowered.set(key, hit);
    return hit;
  }
  let entry: Lowered;
  try {
    entry = { module: lower(file, source), lines: source.split("\n"), bytes: source.length };
  } catch {
    // A file the lowering cannot read contributes nothing; the others are still analysed.
    return null;
  }
  if (entry.bytes <= LOWERED_CACHE_SOURCE_BYTES / 4) {
    lowered.set(key, entry);
    loweredBytes += entry.bytes;
    for (const [k, v] of lowered) {
      if (loweredBytes <= LOWERED_CACHE_SOURCE_BYTES) break;
      lowered.delete(k);
      loweredBytes -= v.bytes;
    }
  }
  return entry;
}

/**
 * In a worker thread when one can be started, so that the other analyzers' tools use the
 * other core meanwhile; in this thread otherwise.
 */
async function runDataflow(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const threaded = await sharedThread().run(ctx.dir, ctx.files, ctx.signal);
  return threaded ?? analyzeCheckout(ctx.dir, ctx.files, ctx.signal);
}

export type ThreadRequest = { kind: "job"; id: number; dir: string; files: readonly string[] } | { kind: "forget" };
export type ThreadMessage = { kind: "ready" } | { kind: "done"; id: number; findings: NormalizedFinding[] } | { kind: "failed"; id: number; message: string };

interface Job {
  dir: string;
  files: readonly string[];
  resolve: (findings: NormalizedFinding[] | null) => void;
  reject: (err: Error) => void;
}

/**
 * One long-lived thread per process (starting one costs ~0.4 s: loading the TypeScript
 * sources); it holds the process open only while it has jobs. A job's cancellation ends
 * the thread — the analysis runs to completion otherwise — and the other jobs it had are
 * given to a new one.
 */
class DataflowThread {
  private worker: Worker | null = null;
  private ready: Promise<boolean> | null = null;
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private unavailable = false;

  async run(dir: string, files: readonly string[], signal: AbortSignal): Promise<NormalizedFinding[] | null> {
    if (this.unavailable || !(await this.start())) return null;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.jobs.delete(id)) return;
        reject(signal.reason instanceof Error ? signal.reason : new Error("dataflow analysis aborted"));
        this.restart();
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const done = () => signal.removeEventListener("abort", onAbort);
      this.jobs.set(id, {
        dir,
        files,
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
      this.worker?.ref();
      this.send(id);
    });
  }

  private start(): Promise<boolean> {
    this.ready ??= new Promise<boolean>((resolve) => {
      let worker: Worker;
      try {
        worker = new Worker(new URL("./thread-boot.mjs", import.meta.url));
      } catch {
        this.unavailable = true;
        resolve(false);
        return;
      }
      this.worker = worker;
      let ready = false;
      worker.on("message", (msg: ThreadMessage) => {
        if (msg.kind === "ready") {
          ready = true;
          if (!this.jobs.size) worker.unref();
          resolve(true);
          return;
        }
        const job = this.jobs.get(msg.id);
        if (!job) return;
        this.jobs.delete(msg.id);
        if (!this.jobs.size) worker.unref();
        if (msg.kind === "done") job.resolve(msg.findings);
        else job.reject(new AnalyzerFailedError("The dataflow analysis failed.", msg.message));
      });
      const lost = (why: string) => {
        if (this.worker !== worker) return;
        this.worker = null;
        this.ready = null;
        if (!ready) {
          // The thread could not load its module (e.g. under a test runner): analyse in the caller's thread from now on.
          this.unavailable = true;
          resolve(false);
        }
        for (const [id, job] of this.jobs) {
          this.jobs.delete(id);
          job.reject(new AnalyzerFailedError("The dataflow analysis stopped unexpectedly.", why));
        }
      };
      worker.on("error", (err) => lost(err.message));
      worker.on("exit", (code) => lost(`exit ${code}`));
    });
    return this.ready;
  }

  /** A thread not running holds nothing (one being replaced starts empty). */
  forget(): void {
    this.worker?.postMessage({ kind: "forget" } satisfies ThreadRequest);
  }

  private send(id: number): void {
    const job = this.jobs.get(id);
    if (job && this.worker) this.worker.postMessage({ kind: "job", id, dir: job.dir, files: job.files } satisfies ThreadRequest);
  }

  /** Ends the thread (a cancelled job cannot be interrupted inside it) and hands the other jobs to a new one. */
  private restart(): void {
    const old = this.worker;
    this.worker = null;
    this.ready = null;
    void old?.terminate();
    if (!this.jobs.size) return;
    void this.start().then((ok) => {
      if (ok && this.jobs.size) this.worker?.ref();
      for (const [id, job] of this.jobs) {
        if (ok) this.send(id);
        else {
          this.jobs.delete(id);
          job.resolve(null);
        }
      }
    });
  }
}

let thread: DataflowThread | undefined;
function sharedThread(): DataflowThread {
  thread ??= new DataflowThread();
  return thread;
}

async function readBounded(dir: string, file: string): Promise<string | null> {
  if (repoPath(file) !== file) return null;
  const full = join(dir, file);
  try {
    const info = await lstat(full);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
    return (await readFile(full)).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * The taint analysis (@ax/dataflow) as an analyzer of the scan: reads the Java, Python and
 * JavaScript/TypeScript files of the checkout (regular files only, bounded) and analyses them
 * all at once, in a worker thread when one can be started — flows cross files, so its results
 * are not cached per blob. The traces become findings here.
 */
import { lstat, readFile } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { extname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import {
  analyzeRepository,
  DATAFLOW_LANGUAGES,
  dataflowVersion,
  forgetKeptAnalyses as forgetInThisThread,
  keptAnalyses,
  type AlgorithmUse,
  type SinkSite,
  type TaintTrace,
} from "@ax/dataflow";
import { readConfigFiles } from "./dataflow-configs";
import { languageOfExtension } from "../languages";
import { buildFinding } from "./finding";
import { repoPath } from "./normalize";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { AnalyzerFailedError, type Analyzer, type AnalyzerContext } from "./types";

export const DATAFLOW = "dataflow";
export { dataflowVersion, keptAnalyses };

/** Larger files are generated or data more often than code, and cost the most to walk. */
const MAX_FILE_BYTES = 512 * 1024;

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

/** The analysis of a checkout: its findings, and the sink places it judged with no tainted path. */
export interface CheckoutAnalysis {
  findings: NormalizedFinding[];
  sites: SinkSite[];
}

/** Read, lower and analyse `files` of the checkout at `dir` (in whichever thread calls it). */
export async function analyzeCheckout(dir: string, files: readonly string[], signal?: AbortSignal): Promise<CheckoutAnalysis> {
  const input = {
    files,
    languageOf: (file: string) => languageOfExtension(extname(file).toLowerCase()),
    read: (file: string) => readBounded(dir, file),
    configs: () => readConfigFiles(dir, signal),
  };
  const { traces, sites, algorithms } = await analyzeRepository(input, undefined, signal);
  const taxonomy = await loadTaxonomy();
  return {
    findings: [...traces.map((trace) => findingOf(trace, taxonomy)), ...algorithms.map((use) => algorithmFinding(use, taxonomy))],
    sites,
  };
}

/**
 * A weak algorithm the analysis resolved at a crypto factory (not a taint trace: no `dataflow`
 * record). A pattern finding of the same weakness on the same line merges with it (postprocess.ts).
 */
function algorithmFinding(use: AlgorithmUse, taxonomy: Taxonomy): NormalizedFinding {
  const { loc } = use;
  return buildFinding(
    {
      analyzer: DATAFLOW,
      rule_id: use.rule_id,
      title: use.title,
      message: use.message,
      cwe_id: use.cwe_id,
      file: use.file,
      start_line: loc.line,
      end_line: loc.endLine,
      start_column: loc.column,
      ...(loc.endLine === loc.line ? { end_column: loc.endColumn } : {}),
      snippet: use.snippet ?? "",
      severity: "MEDIUM",
      // Read from a configuration file: what runs unless the deployment overrides it.
      confidence: use.from ? "MEDIUM" : "HIGH",
      remediation: use.remediation,
      raw: { algorithm: use.algorithm, ...(use.from ? { from: use.from } : {}) },
    },
    taxonomy,
  );
}

function findingOf(trace: TaintTrace, taxonomy: Taxonomy): NormalizedFinding {
  const { dataflow, ...input } = trace;
  return { ...buildFinding({ analyzer: DATAFLOW, ...input }, taxonomy), dataflow: { ...dataflow, entry: trace.raw.entry } };
}

/**
 * Drops the lowered files and the memo, in this thread and the analyzer's thread: both hold
 * source lines of the last scans, keyed by content, not by project, so after a project is
 * deleted (a group hard delete) none of it may stay. The next scan lowers and interprets
 * every file afresh, once; its findings are the same.
 */
export function forgetKeptAnalyses(): void {
  forgetInThisThread();
  thread?.forget();
}

/**
 * In a worker thread when one can be started, so that the other analyzers' tools use the
 * other core meanwhile; in this thread otherwise.
 */
async function runDataflow(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const threaded = await sharedThread().run(ctx.dir, ctx.files, ctx.signal);
  const { findings, sites } = threaded ?? (await analyzeCheckout(ctx.dir, ctx.files, ctx.signal));
  if (ctx.notes) ctx.notes.dataflowSites = sites;
  return findings;
}

export type ThreadRequest = { kind: "job"; id: number; dir: string; files: readonly string[] } | { kind: "forget" };
export type ThreadMessage =
  { kind: "ready" } | ({ kind: "done"; id: number } & CheckoutAnalysis) | { kind: "failed"; id: number; message: string };

interface Job {
  dir: string;
  files: readonly string[];
  resolve: (analysis: CheckoutAnalysis | null) => void;
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

  async run(dir: string, files: readonly string[], signal: AbortSignal): Promise<CheckoutAnalysis | null> {
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
        worker = new Worker(new URL("./dataflow-thread-boot.mjs", import.meta.url));
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
        if (msg.kind === "done") job.resolve({ findings: msg.findings, sites: msg.sites });
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

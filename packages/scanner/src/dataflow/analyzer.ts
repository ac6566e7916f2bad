/**
 * The taint analysis as an analyzer of the scan: reads the Java, Python and JavaScript/
 * TypeScript files of the checkout (regular files only, bounded), lowers them and runs the
 * engine in process over all of them at once — flows cross files, so its results are not
 * cached per blob.
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
  const modules: ModuleIR[] = [];
  const lines = new Map<string, string[]>();
  for (const file of files) {
    if (signal?.aborted) break;
    const language = languageOfExtension(extname(file).toLowerCase());
    const lower = language ? LOWERERS.get(language) : undefined;
    if (!lower) continue;
    const source = await readBounded(dir, file);
    if (source === null) continue;
    try {
      modules.push(lower(file, source));
      lines.set(file, source.split("\n"));
    } catch {
      // A file the lowering cannot read contributes nothing; the others are still analysed.
    }
    // Lowering is synchronous: let timers and cancellation in between files.
    if (modules.length % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const taxonomy = await loadTaxonomy();
  return analyzeModules(modules, { specs: SPECS, lines: (f) => lines.get(f) ?? [], taxonomy, ...(signal ? { signal } : {}) });
}

/**
 * In a worker thread when one can be started (the service runs under tsx, whose loader the
 * thread inherits), so that the other analyzers' tools use the other core meanwhile; in this
 * thread otherwise (e.g. under the test runner, which cannot load the thread's module).
 */
async function runDataflow(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const threaded = await runInThread(ctx);
  return threaded ?? analyzeCheckout(ctx.dir, ctx.files, ctx.signal);
}

function runInThread(ctx: AnalyzerContext): Promise<NormalizedFinding[] | null> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL("./thread-boot.mjs", import.meta.url), { workerData: { dir: ctx.dir, files: ctx.files } });
    } catch {
      resolve(null);
      return;
    }
    let ready = false;
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => settle(() => {
      void worker.terminate();
      reject(ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("dataflow analysis aborted"));
    });
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    worker.on("message", (msg: ThreadMessage) => {
      if (msg.kind === "ready") ready = true;
      else if (msg.kind === "done") settle(() => resolve(msg.findings));
      else settle(() => reject(new AnalyzerFailedError("The dataflow analysis failed.", msg.message)));
      if (msg.kind !== "ready") void worker.terminate();
    });
    // Before "ready" the thread could not load its module: analyse here instead.
    worker.on("error", (err) => settle(() => (ready ? reject(new AnalyzerFailedError("The dataflow analysis failed.", err.message)) : resolve(null))));
    worker.on("exit", (code) => settle(() => (ready ? reject(new AnalyzerFailedError("The dataflow analysis stopped unexpectedly.", `exit ${code}`)) : resolve(null))));
  });
}

export type ThreadMessage = { kind: "ready" } | { kind: "done"; findings: NormalizedFinding[] } | { kind: "failed"; message: string };

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

/**
 * The evidence of a bare snippet (snippet-evidence-here.ts) off the API's thread: parsing and
 * lowering a hostile 64 KiB snippet, or matching the evidence's code shapes over it, can take
 * seconds, and the engine only checks its time limit between functions, so in the API's own
 * thread it would hold every other request. Here one worker thread handles one snippet at a
 * time; at the time limit it is ended (whatever it was doing) and replaced. A few requests
 * wait their turn; more get no evidence at once.
 *
 * Where no thread can be started (a test runner that cannot load its module), the analysis
 * runs in the caller's thread with the engine's own time limit.
 */
import { Worker } from "node:worker_threads";
import { SNIPPET_TIME_LIMIT_MS, type SnippetInput } from "@ax/scanner";
import { snippetEvidenceHere, type SnippetEvidence } from "./snippet-evidence-here";

export type SnippetRequest = { id: number; input: SnippetInput; timeLimitMs: number };
export type SnippetResponse = { kind: "ready" } | { kind: "done"; id: number; result: SnippetEvidence | null };

/** Snippets waiting for the thread besides the one it analyses; more get no evidence. */
const MAX_WAITING = 4;
/** What the thread may take beyond the engine's own limit (the engine stops only between functions). */
const GRACE_MS = 250;

interface Job {
  id: number;
  input: SnippetInput;
  limitMs: number;
  resolve: (result: SnippetEvidence | null) => void;
}

class SnippetThread {
  private worker: Worker | null = null;
  private ready: Promise<boolean> | null = null;
  private unavailable = false;
  private readonly waiting: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private nextId = 0;

  /** The evidence, null (none: time limit, error, too many waiting), or undefined when no thread can run. */
  async run(input: SnippetInput, limitMs: number, signal?: AbortSignal): Promise<SnippetEvidence | null | undefined> {
    if (this.unavailable) return undefined;
    if (this.waiting.length >= MAX_WAITING) return null;
    if (!(await this.start())) return undefined;
    if (signal?.aborted) return null;
    return new Promise((resolve) => {
      const job: Job = { id: this.nextId++, input, limitMs, resolve };
      signal?.addEventListener(
        "abort",
        () => {
          const at = this.waiting.indexOf(job);
          if (at >= 0) this.waiting.splice(at, 1);
          if (at >= 0) resolve(null);
        },
        { once: true },
      );
      this.waiting.push(job);
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.current || !this.worker) return;
    const job = this.waiting.shift();
    if (!job) {
      this.worker.unref();
      return;
    }
    const timer = setTimeout(() => this.expire(job), job.limitMs + GRACE_MS);
    this.current = { job, timer };
    this.worker.ref();
    this.worker.postMessage({ id: job.id, input: job.input, timeLimitMs: job.limitMs } satisfies SnippetRequest);
  }

  private finish(id: number, result: SnippetEvidence | null): void {
    if (this.current?.job.id !== id) return;
    clearTimeout(this.current.timer);
    const { job } = this.current;
    this.current = null;
    job.resolve(result);
  }

  /** Past its time limit: no evidence, and the thread (stuck in a parse or a function) is replaced. */
  private expire(job: Job): void {
    this.finish(job.id, null);
    this.replace();
  }

  private replace(): void {
    const old = this.worker;
    this.worker = null;
    this.ready = null;
    void old?.terminate();
    if (!this.waiting.length) return;
    void this.start().then((ok) => {
      if (ok) return this.dispatch();
      for (const job of this.waiting.splice(0)) job.resolve(null);
    });
  }

  private start(): Promise<boolean> {
    this.ready ??= new Promise<boolean>((resolve) => {
      let worker: Worker;
      try {
        worker = new Worker(new URL("./snippet-thread-boot.mjs", import.meta.url));
      } catch {
        this.unavailable = true;
        return resolve(false);
      }
      this.worker = worker;
      let started = false;
      worker.on("message", (msg: SnippetResponse) => {
        if (msg.kind === "ready") {
          started = true;
          resolve(true);
          return this.dispatch();
        }
        this.finish(msg.id, msg.result);
        this.dispatch();
      });
      const lost = () => {
        if (this.worker !== worker) return;
        if (!started) {
          // The thread could not load its module: analyse in the caller's thread from now on.
          this.unavailable = true;
          this.worker = null;
          resolve(false);
          for (const job of this.waiting.splice(0)) job.resolve(snippetEvidenceHere(job.input, job.limitMs));
          return;
        }
        if (this.current) this.finish(this.current.job.id, null);
        this.replace();
      };
      worker.on("error", lost);
      worker.on("exit", lost);
    });
    return this.ready;
  }
}

let thread: SnippetThread | undefined;

/**
 * The snippet's facts and evidence, from the snippet thread under a hard time limit (default
 * 2 s); null — no evidence — when the limit passes, the analysis fails, or too many wait.
 */
export async function snippetEvidenceInThread(
  input: SnippetInput,
  opts: { timeLimitMs?: number; signal?: AbortSignal } = {},
): Promise<SnippetEvidence | null> {
  const limitMs = opts.timeLimitMs ?? SNIPPET_TIME_LIMIT_MS;
  thread ??= new SnippetThread();
  const result = await thread.run(input, limitMs, opts.signal);
  return result === undefined ? snippetEvidenceHere(input, limitMs) : result;
}

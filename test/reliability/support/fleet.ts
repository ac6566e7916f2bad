/**
 * Worker processes of one test stack, each running the probe SARIF tool under a marker of its
 * own, so that the processes a given worker left behind can be told apart in /proc.
 */
import fs from "node:fs";
import path from "node:path";
import type { Express } from "express";
import request from "supertest";
import { SCAN_QUEUE } from "@ax/contracts";
import type { JobQueue } from "@ax/queue";
import { tmpDir } from "@ax/testkit";
import {
  crashCause,
  killAllSpawned,
  killPids,
  pidsWithMarker,
  spawnWorker,
  workerByName,
  workerEnv,
  type WorkerProcess,
} from "./processes";
import type { ProbeTools, ToolMode } from "./tools";

export interface FleetWorker {
  process: WorkerProcess;
  marker: string;
  /** Its own WORKSPACE_DIR, to see what it leaves behind. */
  workspace: string;
}

export interface FleetOptions {
  /** Extra worker environment. */
  env?: Record<string, string>;
  modes?: ToolMode[];
  /**
   * Act as a process supervisor (systemd, Kubernetes): a worker that exits on its own is
   * recorded (in `crashes` once it had started, else in `startFailures`) and replaced a
   * second later. Workers the test stops itself must be stopped with `kill()`.
   */
  supervise?: boolean;
}

export class Fleet {
  readonly all: FleetWorker[] = [];
  /** Running workers that exited on their own: "pid N exited with C: <cause>". */
  readonly crashes: string[] = [];
  /** Workers that exited before they were ready (e.g. the database was down). */
  startFailures = 0;
  private readonly root = tmpDir("ax-reliability-ws-");
  private readonly stopped = new Set<WorkerProcess>();
  private stopping = false;

  constructor(
    private readonly config: Parameters<typeof workerEnv>[0],
    private readonly tools: ProbeTools,
    private readonly queue: JobQueue,
    private readonly opts: FleetOptions = {},
  ) {}

  start(): FleetWorker {
    const marker = this.tools.marker();
    // Not named after the marker: git's command line names the workspace.
    const workspace = path.join(this.root, `worker-${this.all.length}`);
    fs.mkdirSync(workspace);
    const env = { SARIF_TOOLS: this.tools.config(marker, this.opts.modes ?? ["slow"]), WORKSPACE_DIR: workspace, ...this.opts.env };
    const process = spawnWorker(workerEnv(this.config, env));
    const w = { process, marker, workspace };
    this.all.push(w);
    let ready = false;
    process.ready.then(
      () => (ready = true),
      () => undefined,
    );
    void process.exited.then((e) => {
      if (this.stopping || this.stopped.has(process) || !this.opts.supervise) return;
      if (ready) this.crashes.push(`pid ${process.pid} exited with ${e.code ?? e.signal}: ${crashCause(process.tail())}`);
      else this.startFailures++;
      setTimeout(() => {
        if (!this.stopping) this.start();
      }, 1_000);
    });
    return w;
  }

  /** Signals a worker on purpose (not a crash). */
  kill(w: FleetWorker, signal: NodeJS.Signals): void {
    this.stopped.add(w.process);
    w.process.child.kill(signal);
  }

  /** The worker of this fleet that holds the scan's job right now, if any. */
  async holder(scanId: string): Promise<FleetWorker | undefined> {
    const job = await this.queue.queue(SCAN_QUEUE).getJob(scanId);
    const p = workerByName(job?.processedBy);
    return p && job && (await job.getState()) === "active" ? this.all.find((w) => w.process === p) : undefined;
  }

  /** Each worker's state and last log lines, for a failure message. */
  describe(lines = 3): string {
    return this.all
      .map((w) => `[worker ${w.process.pid} ${w.process.status()}: ${w.process.tail().split("\n").slice(-lines).join(" | ")}]`)
      .join(" ");
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await killAllSpawned();
    for (const w of this.all) killPids(pidsWithMarker(w.marker));
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

export async function submitScan(app: Express, token: string, gitUri: string, query = ""): Promise<string> {
  const r = await request(app).post(`/api/v2/scan${query}`).set("X-AX-KEY", token).send({ git_uri: gitUri });
  if (r.status !== 200) throw new Error(`POST /scan answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body.scan_id as string;
}

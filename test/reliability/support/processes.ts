/**
 * Real worker and API processes (the `npm run start:worker` / `start:api` entry points) and
 * the /proc look-ups the fault tests make: which processes still carry a marker in their
 * command line, and free loopback ports for private servers.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** A worker or API process of ours. */
export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  /**
   * Resolves when it logged that it started ("worker started": it consumes the queue from
   * then on; "API listening"); rejects if it exits first.
   */
  ready: Promise<void>;
  /** Resolves with the exit code (null when killed by a signal) and the time of exit. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** The last lines it wrote, for failure messages. */
  tail(): string;
  /** "running", or how it ended. */
  status(): string;
}

const live = new Set<WorkerProcess>();

/** Starts apps/worker/src/main.ts with exactly `env` (plus PATH and HOME) and JSON logs. */
export function spawnWorker(env: Record<string, string>): WorkerProcess {
  return spawnService("apps/worker/src/main.ts", env, "worker started");
}

/** Starts apps/api/src/main.ts likewise; ready once it listens. */
export function spawnApi(env: Record<string, string>): WorkerProcess {
  return spawnService("apps/api/src/main.ts", env, "API listening");
}

function spawnService(entry: string, env: Record<string, string>, readyMessage: string): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NODE_ENV: "test",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (!child.pid) throw new Error(`could not start ${entry}`);
  const lines: string[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const reader = () => {
    let partial = "";
    return (chunk: Buffer) => {
      const parts = (partial + chunk.toString("utf8")).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        if (!line) continue;
        lines.push(line.slice(0, 500));
        if (lines.length > 40) lines.shift();
        if (line.includes(`"message":"${readyMessage}"`)) markReady();
      }
    };
  };
  child.stdout?.on("data", reader());
  child.stderr?.on("data", reader());
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const readyOrExit = Promise.race([
    ready,
    exited.then((e) => {
      throw new Error(`${entry} exited with ${e.code ?? e.signal} before it was ready: ${lines.slice(-5).join(" | ")}`);
    }),
  ]);
  readyOrExit.catch(() => undefined);
  let ended = "running";
  void exited.then((e) => (ended = `exited with ${e.code ?? e.signal}`));
  const wp: WorkerProcess = { child, pid: child.pid, ready: readyOrExit, exited, tail: () => lines.join("\n"), status: () => ended };
  live.add(wp);
  void exited.then(() => live.delete(wp));
  return wp;
}

/** SIGKILLs every process spawned here that is still alive (afterAll). */
export async function killAllSpawned(): Promise<void> {
  const all = [...live];
  for (const w of all) w.child.kill("SIGKILL");
  await Promise.all(all.map((w) => w.exited));
}

/** The worker process named in a BullMQ `processedBy` ("host:pid:suffix"), if it is ours. */
export function workerByName(name: string | undefined): WorkerProcess | undefined {
  const pid = Number(name?.split(":")[1]);
  return [...live].find((w) => w.pid === pid);
}

/** Why a process of ours died, from its last lines: the unhandled error, or its last words. */
export function crashCause(tail: string): string {
  const lines = tail.split("\n").map((l) => l.trim());
  const unhandled = lines.findIndex((l) => l.includes("Unhandled 'error' event"));
  if (unhandled >= 0) return `unhandled 'error' event: ${lines.slice(unhandled).find((l) => /^\w*error: /i.test(l)) ?? "?"}`;
  return [...lines].reverse().find((l) => /failed to start|^\w*error: /i.test(l)) ?? lines.filter(Boolean).pop() ?? "";
}

/**
 * Pids of live (non-zombie) processes whose command line contains `marker` and, when given,
 * the argument `arg` too.
 */
export function pidsWithMarker(marker: string, arg?: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes(marker)) continue;
      if (arg !== undefined && !cmdline.split("\0").includes(arg)) continue;
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      if (state !== "Z" && state !== "X") found.push(Number(entry));
    } catch {
      // Gone between readdir and read.
    }
  }
  return found;
}

/** Kills, by pid, what our own tests left behind (analyzer processes orphaned by a SIGKILL). */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
    srv.on("error", reject);
  });
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => {
      s.end();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });
}

/** The environment a worker process needs to share a test stack's database and queue. */
export function workerEnv(
  config: { database: { url: string | undefined }; redis: { url: string; queuePrefix: string } },
  extra: Record<string, string> = {},
): Record<string, string> {
  if (!config.database.url) throw new Error("worker processes need a PostgreSQL URL");
  return {
    DATABASE_URL: config.database.url,
    REDIS_URL: config.redis.url,
    QUEUE_PREFIX: config.redis.queuePrefix,
    ALLOW_INSECURE_GIT_URLS: "true",
    WORKER_CONCURRENCY: "1",
    // A dead worker's job is noticed within about 3 s instead of 30.
    WORKER_LOCK_MS: "2000",
    WORKER_STALLED_INTERVAL_MS: "1000",
    ANALYZER_THREADS: "1",
    ...extra,
  };
}

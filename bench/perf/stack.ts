/**
 * What every perf bench needs: a fresh PostgreSQL database and a Redis queue prefix of its
 * own, the API and worker as separate processes (as `npm run start:api` / `start:worker`
 * start them), their peak RSS, a bare Express server to compare with, and cleanup of all
 * of it (processes by pid, the database, the prefix's Redis keys, temp dirs).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, freemem, loadavg, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bootstrap, migrate, openDatabase, type BootstrapResult, type DbHandle } from "@ax/db";
import { createTestDatabase, dropQueueKeys } from "@ax/testkit";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** PostgreSQL: TEST_PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres), as for the tests. */
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Settings every bench process gets; each is also written into docs/performance.md. */
export const BENCH_ENV: Record<string, string> = {
  NODE_ENV: "production",
  LOG_LEVEL: "warn",
  HOST: "127.0.0.1",
  REDIS_AUTOSTART: "false",
  // The benchmark repositories are local file:// URIs.
  ALLOW_INSECURE_GIT_URLS: "true",
  // Defaults are 600/min per token and 1200/min per IP, and 20 scans in flight per
  // organization: a load test from one token and one IP would measure the 429 path.
  RATE_LIMIT_TOKEN_PER_MINUTE: "1000000",
  RATE_LIMIT_IP_PER_MINUTE: "1000000",
  MAX_SCANS_IN_FLIGHT_PER_ORG: "0",
};

export interface Machine {
  nproc: number;
  memGiB: number;
  freeGiB: number;
  load: string;
  node: string;
}

export function machine(): Machine {
  return {
    nproc: cpus().length,
    memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    load: loadavg()
      .map((l) => l.toFixed(2))
      .join(" "),
    node: process.version,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface Proc {
  child: ChildProcess;
  pid: number;
  /** VmHWM of the process, in MiB (peak resident set). */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

export function startProc(
  script: string,
  env: Record<string, string>,
  label: string,
  extraNodeArgs: string[] = [],
  stdoutFile?: string,
): Proc {
  const out = stdoutFile ? openSync(stdoutFile, "a") : "ignore";
  const child = spawn(process.execPath, [...extraNodeArgs, "--import", "tsx", script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", out, "pipe"],
  });
  if (typeof out === "number") closeSync(out);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  child.on("exit", (code, signal) => {
    if (code && code !== 0) process.stderr.write(`[${label}] exited ${code} ${signal ?? ""}\n${stderr}\n`);
  });
  const pid = child.pid ?? 0;
  let lastPeak = 0;
  return {
    child,
    pid,
    peakRssMiB() {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) lastPeak = Math.round(Number(m[1]) / 1024);
      } catch {
        /* exited: keep the last reading */
      }
      return lastPeak;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

export async function waitHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface BenchStack {
  dbUrl: string;
  dbName: string;
  prefix: string;
  handle: DbHandle;
  tenant: BootstrapResult;
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A fresh, migrated database with one organization and its owner's token; a queue prefix of its own. */
export async function createBenchStack(): Promise<BenchStack> {
  const database = await createTestDatabase();
  const dbUrl = database.url;
  const dbName = database.name;
  const prefix = `{axbench-${randomBytes(4).toString("hex")}}`;
  const handle = await openDatabase({ url: dbUrl, dataDir: "/tmp", poolSize: 4 });
  await migrate(handle);
  const tenant = await newTenant(handle);
  return {
    dbUrl,
    dbName,
    prefix,
    handle,
    tenant,
    env: { ...BENCH_ENV, DATABASE_URL: dbUrl, REDIS_URL, QUEUE_PREFIX: prefix },
    async close() {
      await handle.close().catch(() => undefined);
      await database.drop();
      await dropQueueKeys(REDIS_URL, prefix);
    },
  };
}

export function newTenant(handle: DbHandle): Promise<BootstrapResult> {
  const tag = randomBytes(3).toString("hex");
  return bootstrap(handle.db, {
    orgName: `Bench-${tag}`,
    email: `bench-${tag}@bench.test`,
    displayName: "Bench",
    identityProvider: "github",
    expiresInDays: 1,
  });
}

/** Starts the API process against the stack; resolves when /api/v2/health answers. */
export async function startApiProc(stack: BenchStack, extra: Record<string, string> = {}): Promise<Proc & { base: string }> {
  const port = await freePort();
  const prof = process.env.BENCH_API_PROF;
  const p = startProc(
    "apps/api/src/main.ts",
    { ...stack.env, PORT: String(port), ...extra },
    "api",
    prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : [],
  );
  const base = `http://127.0.0.1:${port}`;
  await waitHttp(`${base}/api/v2/health`);
  return { ...p, base };
}

export function startWorkerProc(stack: BenchStack, extra: Record<string, string> = {}, nodeArgs: string[] = [], logFile?: string): Proc {
  return startProc("apps/worker/src/main.ts", { ...stack.env, ...extra }, "worker", nodeArgs, logFile);
}

/** The phase timings of each completed scan, from the worker's JSON log (LOG_LEVEL=info). */
export function scanPhases(logFile: string): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (!line.includes("scan completed")) continue;
    try {
      const entry = JSON.parse(line) as { scan_id?: string; phases_ms?: Record<string, number> };
      if (entry.scan_id && entry.phases_ms) out.set(entry.scan_id, entry.phases_ms);
    } catch {
      /* not a JSON line */
    }
  }
  return out;
}

export async function api<T>(base: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const r = await fetch(`${base}/api/v2${path}`, {
    method,
    headers: { "X-AX-KEY": token, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Polls the scan until it ends; resolves with its final view. */
export async function waitScan(base: string, token: string, scanId: string, timeoutMs = 20 * 60_000): Promise<ScanView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await api<ScanView>(base, token, "GET", `/scan/${scanId}`);
    if (["completed", "failed", "cancelled"].includes(s.state)) return s;
    if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${s.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ScanView {
  scan_id?: string;
  id?: string;
  state: string;
  error?: string | null;
  commit?: string | null;
  counts?: Record<string, number>;
  analyzers?: { name: string; status: string; duration_ms: number; files: number; cached_files: number; findings: number }[];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

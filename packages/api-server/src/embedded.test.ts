// `npm start`'s entry point as a real child process: embedded PGlite under a fresh DATA_DIR,
// the real Redis, the real worker and analyzers, reached over HTTP on loopback.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeGitRepo, testQueuePrefix, tmpDir, waitFor, TEST_REDIS_URL } from "@ax/testkit";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dataDir = tmpDir("ax-embedded-");
const prefix = testQueuePrefix();
let child: ChildProcess | undefined;

function spawnStandalone(extraEnv: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "apps/standalone/src/main.ts"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      ALLOW_INSECURE_GIT_URLS: "true",
      LOG_FORMAT: "json",
      LOG_LEVEL: "info",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function start(extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess; port: number; stdout: () => string }> {
  const proc = spawnStandalone(extraEnv);
  child = proc;
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return waitFor(
    async () => {
      const m = /"message":"API listening"[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"message":"API listening"/.exec(out);
      if (proc.exitCode !== null) throw new Error(`standalone exited early:\n${out}`);
      return m ? { child: proc, port: Number(m[1] ?? m[2]), stdout: () => out } : undefined;
    },
    { timeoutMs: 60_000, what: "standalone to listen" },
  );
}

async function stop(proc: ChildProcess): Promise<number | null> {
  proc.kill("SIGTERM");
  return new Promise((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.once("exit", (code) => resolve(code))));
}

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it("starts on PGlite, bootstraps a token once, completes a scan, and keeps its data across restarts", async () => {
  const first = await start();
  const tokenFile = path.join(dataDir, "initial-token");
  expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
  const token = fs.readFileSync(tokenFile, "utf8").trim();
  expect(first.stdout()).toContain(token);
  const base = `http://127.0.0.1:${first.port}/api/v2`;
  const headers = { "X-AX-KEY": token, "Content-Type": "application/json" };

  const repo = makeGitRepo({ "app.py": "import pickle\n\n\ndef load(blob):\n    return pickle.loads(blob)\n" });
  const created = await fetch(`${base}/scan`, { method: "POST", headers, body: JSON.stringify({ git_uri: repo }) });
  expect(created.status).toBe(200);
  const { scan_id } = (await created.json()) as { scan_id: string };
  const scan = await waitFor(
    async () => {
      const s = (await (await fetch(`${base}/scan/${scan_id}`, { headers })).json()) as { state: string; counts: { total: number } };
      return s.state === "completed" || s.state === "failed" ? s : undefined;
    },
    { timeoutMs: 60_000, what: "embedded scan" },
  );
  expect(scan.state).toBe("completed");
  expect(scan.counts.total).toBeGreaterThanOrEqual(1);
  expect(await stop(first.child)).toBe(0);

  const second = await start();
  expect(second.stdout()).not.toContain("First start");
  const again = await fetch(`http://127.0.0.1:${second.port}/api/v2/scan/${scan_id}`, { headers });
  expect(again.status).toBe(200);
  expect(fs.readFileSync(tokenFile, "utf8").trim()).toBe(token);
  expect(await stop(second.child)).toBe(0);
}, 150_000);

describe("Redis for npm start", () => {
  const deadPort = async () => {
    const net = await import("node:net");
    return new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
  };

  it("exits with a message that says how to get Redis when none answers and it may not start one", async () => {
    const proc = spawnStandalone({
      REDIS_URL: `redis://127.0.0.1:${await deadPort()}`,
      REDIS_AUTOSTART: "false",
      DATA_DIR: tmpDir("ax-noredis-"),
    });
    let err = "";
    proc.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/Redis is not reachable at 127\.0\.0\.1:\d+\. Start one \(Debian\/Ubuntu: apt-get install redis-server/);
  }, 60_000);

  it("starts redis-server itself when nothing answers at a local REDIS_URL, and stops it on exit", async () => {
    const port = await deadPort();
    const dir = tmpDir("ax-autoredis-");
    const running = await start({ REDIS_URL: `redis://127.0.0.1:${port}`, DATA_DIR: dir });
    expect(running.stdout()).toContain("started redis-server for this process");
    const ready = await fetch(`http://127.0.0.1:${running.port}/api/v2/health/ready`);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
    expect(await stop(running.child)).toBe(0);
    const net = await import("node:net");
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const s = net.connect(port, "127.0.0.1", () => (s.destroy(), resolve(false)));
          s.on("error", () => resolve(true));
        }),
      { timeoutMs: 10_000, what: "the auto-started redis-server to stop" },
    );
    fs.rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

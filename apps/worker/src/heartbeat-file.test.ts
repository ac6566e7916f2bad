// The worker's heartbeat file and the container health check that reads it, on a real
// PostgreSQL database and, for the worker's own probe, a real worker on the real Redis.
import { spawnSync } from "node:child_process";
import { statSync, utimesSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, pingDb, type DbHandle } from "@ax/db";
import { createLogger } from "@ax/logger";
import { createTestDatabase, createTestStack, tmpDir, type TestDatabase } from "@ax/testkit";
import { heartbeatPath, startHeartbeatFile } from "./heartbeat-file";
import { startWorker } from "@ax/scan-worker";

const HEALTHCHECK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../bin/healthcheck.js");
let database: TestDatabase;
let handle: DbHandle;

function healthcheck(workspaceDir: string, maxAge = "60") {
  const r = spawnSync(process.execPath, [HEALTHCHECK], {
    env: { PATH: process.env.PATH ?? "", WORKSPACE_DIR: workspaceDir, WORKER_HEALTH_MAX_AGE_SECONDS: maxAge },
    encoding: "utf8",
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

beforeAll(async () => {
  database = await createTestDatabase();
  handle = await openDatabase({ url: database.url, dataDir: tmpDir() });
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe("worker heartbeat file", () => {
  it("is written while the database answers, in a workspace folder that does not exist yet", async () => {
    const workspace = path.join(tmpDir(), "not-yet");
    const hb = startHeartbeatFile(heartbeatPath(workspace), 60_000, () => pingDb(handle.db));
    try {
      expect(await hb.beat()).toBe(true);
      expect(statSync(heartbeatPath(workspace)).isFile()).toBe(true);
      expect(healthcheck(workspace)).toEqual({ code: 0, out: expect.stringMatching(/^healthy/) });
    } finally {
      hb.stop();
    }
  });

  it("is not refreshed when the probe fails, and the health check then reports unhealthy", async () => {
    const workspace = tmpDir();
    const other = await openDatabase({ url: database.url, dataDir: tmpDir() });
    const hb = startHeartbeatFile(heartbeatPath(workspace), 60_000, () => pingDb(other.db));
    try {
      expect(await hb.beat()).toBe(true);
      // Age the file as if the last good beat was two minutes ago, then lose the database.
      const old = new Date(Date.now() - 120_000);
      utimesSync(heartbeatPath(workspace), old, old);
      await other.close();
      expect(await hb.beat()).toBe(false);
      expect(statSync(heartbeatPath(workspace)).mtimeMs).toBeLessThan(Date.now() - 100_000);
      const r = healthcheck(workspace);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/unhealthy: .* s old \(limit 60 s\)/);
      expect(healthcheck(workspace, "600").code).toBe(0);
    } finally {
      hb.stop();
    }
  });

  it("reports unhealthy when there is no heartbeat at all", () => {
    const r = healthcheck(tmpDir());
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/no heartbeat/);
  });

  it("stops writing once stopped", async () => {
    const workspace = tmpDir();
    const hb = startHeartbeatFile(heartbeatPath(workspace), 60_000, () => pingDb(handle.db));
    hb.stop();
    expect(await hb.beat()).toBe(false);
  });
});

it("counts a probe that never answers as failed", async () => {
  const workspace = tmpDir();
  const hb = startHeartbeatFile(heartbeatPath(workspace), 200, () => new Promise(() => undefined));
  try {
    expect(await hb.beat()).toBe(false);
    expect(healthcheck(workspace).code).toBe(1);
  } finally {
    hb.stop();
  }
});

it("beats on a running worker's own probe, and stops once the worker is closed", async () => {
  const stack = await createTestStack();
  const worker = await startWorker({
    config: stack.config,
    db: stack.handle.db,
    logger: createLogger({ level: "error", format: "json", silent: true }),
  });
  const workspace = tmpDir();
  const hb = startHeartbeatFile(heartbeatPath(workspace), 60_000, () => worker.probe());
  try {
    expect(await hb.beat()).toBe(true);
    await worker.close(5_000);
    await expect(worker.probe()).rejects.toThrow(/not running/);
    expect(await hb.beat()).toBe(false);
  } finally {
    hb.stop();
    await worker.close();
    await stack.close();
  }
});

// A Redis server of this test's own (real redis-server on a spare loopback port), stopped
// and started again empty, with the real API, worker and PostgreSQL around it.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { instanceAdminToken } from "../test/admin-support";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let redis: ChildProcess | undefined;
let port: number;
let h: ApiHarness;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
    srv.on("error", reject);
  });
}

async function startRedis(): Promise<void> {
  redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, "127.0.0.1", () => (s.end(), resolve(true)));
        s.on("error", () => resolve(false));
      }),
    { timeoutMs: 10_000, what: "redis-server" },
  );
}

async function stopRedis(): Promise<void> {
  const r = redis!;
  r.kill("SIGKILL");
  await new Promise((res) => (r.exitCode !== null ? res(null) : r.once("exit", res)));
}

beforeAll(async () => {
  port = await freePort();
  await startRedis();
  h = await createApiHarness({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, RECONCILE_INTERVAL_MS: "1000" } });
});
afterAll(async () => {
  await h.close();
  if (redis && redis.exitCode === null) redis.kill("SIGKILL");
});

it("answers 503 while Redis is down, creates nothing then, and loses no queued scan across a restart", async () => {
  const key = { "X-AX-KEY": h.tenant.token };
  const admin = { "X-AX-KEY": await instanceAdminToken(h) };
  const repo = makeGitRepo({ "a.py": "import pickle\npickle.loads(b)\n" });
  const queued = [];
  for (let i = 0; i < 3; i++) {
    const r = await request(h.app).post("/api/v2/scan").set(key).send({ git_uri: repo });
    expect(r.status).toBe(200);
    queued.push(r.body.scan_id as string);
  }

  await stopRedis(); // no persistence: the three jobs are gone with it
  const refused = await request(h.app).post("/api/v2/scan").set(key).send({ git_uri: repo });
  expect(refused.status).toBe(503);
  expect(refused.headers["retry-after"]).toBe("5");
  expect(refused.body).toEqual({
    code: 503,
    error: "queue_unavailable",
    message: "The scan queue is unavailable right now; try again shortly.",
  });
  const ready = await request(h.app).get("/api/v2/health/ready");
  expect(ready.status).toBe(503);
  expect(ready.body.checks).toEqual({ database: "ok", redis: "failing" });
  // Any other route that needs Redis says it is unavailable too (503), not an internal error.
  const workers = await request(h.app).get("/api/v2/admin/workers").set(admin);
  expect(workers.status).toBe(503);
  expect(workers.headers["retry-after"]).toBe("5");
  expect(workers.body).toEqual({
    code: 503,
    error: "redis_unavailable",
    message: "The service's queue store is unavailable right now; try again shortly.",
  });
  const rows = await h.stack.handle.db.selectFrom("scans").select("id").execute();
  expect(rows.map((r) => r.id).sort()).toEqual([...queued].sort());

  await startRedis();
  await waitFor(async () => (await request(h.app).get("/api/v2/health/ready")).status === 200, {
    timeoutMs: 20_000,
    what: "API to see Redis again",
  });
  await h.startWorker();
  for (const id of queued) {
    const scan = await waitFor(
      async () => {
        const r = await request(h.app).get(`/api/v2/scan/${id}`).set(key);
        return r.body.state === "completed" || r.body.state === "failed" ? r.body : undefined;
      },
      { timeoutMs: 60_000, what: `scan ${id} after the restart` },
    );
    expect(scan).toMatchObject({ state: "completed", attempts: 1 });
    expect(scan.counts.total).toBeGreaterThanOrEqual(1);
  }
}, 120_000);

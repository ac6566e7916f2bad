// The Admin tag end to end: real PostgreSQL, Redis, BullMQ and an in-process worker. Jobs are
// made to fail by a BullMQ worker of the test's own (failScanJobs): no real job fails on demand.
import fs from "node:fs";
import request from "supertest";
import { WorkerRegistry } from "@ax/queue";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { failScanJobs, instanceAdminToken, sessionCookie } from "../test/admin-support";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let admin: string;
const A = "/api/v2/admin";
const as = (token: string) => ({ "X-AX-KEY": token });

beforeAll(async () => {
  h = await createApiHarness({
    env: { RATE_LIMIT_ENABLED: "false", WORKER_HEARTBEAT_MS: "200", WORKER_HEARTBEAT_TTL_MS: "1000", ADMIN_SESSION_TTL_MS: "2000" },
  });
  admin = await instanceAdminToken(h);
}, 60_000);
afterAll(() => h.close());

const queues = async () => {
  const res = await request(h.app).get(`${A}/queues`).set(as(admin)).expect(200);
  return Object.fromEntries(
    (res.body.queues as { name: string; paused: boolean; counts: Record<string, number> }[]).map((q) => [q.name, q]),
  );
};

describe("who may use the Admin endpoints", () => {
  const endpoints: [string, string, number][] = [
    ["get", `${A}/workers`, 200],
    ["get", `${A}/queues`, 200],
    ["post", `${A}/queues/maintenance/pause`, 200],
    ["post", `${A}/queues/maintenance/resume`, 200],
    ["get", `${A}/queues/scans/failed`, 200],
    ["post", `${A}/queues/scans/failed/retry`, 200],
    ["delete", `${A}/queues/scans/failed`, 200],
    ["post", `${A}/queues/scans/failed/no-such-job/retry`, 404],
    ["delete", `${A}/queues/scans/failed/no-such-job`, 404],
    ["post", `${A}/session`, 200],
    ["get", "/admin/queues/api/queues", 200],
  ];
  test.each(endpoints)("%s %s: instance admin, owner who is not one, no token", async (method, path, adminStatus) => {
    const call = () => (request(h.app) as unknown as Record<string, (p: string) => request.Test>)[method]!(path);
    expect((await call().set(as(admin))).status).toBe(adminStatus);
    const owner = await call().set(as(h.tenant.token));
    expect(owner.status).toBe(403);
    expect(owner.body).toEqual({ code: 403, error: "forbidden", message: expect.any(String) });
    const none = await call();
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ code: 401, error: "unauthorized", message: expect.any(String) });
  });

  test("an unknown queue is 404", async () => {
    await request(h.app).post(`${A}/queues/nope/pause`).set(as(admin)).expect(404);
  });
});

describe("queues", () => {
  test("counts change as jobs are added", async () => {
    const before = await queues();
    expect(Object.keys(before).sort()).toEqual(["maintenance", "scans", "webhooks"]);
    const scans = h.deps.queue.queue("scans");
    await scans.add("bogus", {}, { jobId: "count-1" });
    await scans.add("bogus", {}, { jobId: "count-2" });
    await scans.add("bogus", {}, { jobId: "count-3", delay: 60_000 });
    const after = await queues();
    expect(after.scans!.counts.waiting).toBe(before.scans!.counts.waiting! + 2);
    expect(after.scans!.counts.delayed).toBe(before.scans!.counts.delayed! + 1);
    await scans.drain(true);
    expect((await queues()).scans!.counts.waiting).toBe(0);
  });

  test("pause stops a running worker from taking jobs; resume lets it", async () => {
    const paused = await request(h.app).post(`${A}/queues/scans/pause`).set(as(admin)).expect(200);
    expect(paused.body.paused).toBe(true);
    await h.startWorker();
    const scans = h.deps.queue.queue("scans");
    const job = await scans.add("bogus", {}, { jobId: "paused-1" });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await job.getState()).toBe("waiting");
    expect((await queues()).scans).toMatchObject({ paused: true, counts: { waiting: 1, paused: 1 } });
    const resumed = await request(h.app).post(`${A}/queues/scans/resume`).set(as(admin)).expect(200);
    expect(resumed.body.paused).toBe(false);
    await waitFor(async () => (await job.getState()) === "completed", { what: "the job to be taken after resume" });
    await h.worker!.close(5_000);
  });
});

describe("workers", () => {
  test("a started worker is listed with its concurrency and disappears after it stops", async () => {
    const w = await h.startWorker();
    const res = await request(h.app).get(`${A}/workers`).set(as(admin)).expect(200);
    const me = (res.body.workers as { worker_id: string }[]).find((x) => x.worker_id === w.id);
    expect(me).toMatchObject({
      worker_id: w.id,
      pid: process.pid,
      host: expect.any(String),
      concurrency: { scans: 2, webhooks: expect.any(Number), maintenance: 1 },
      active_jobs: [],
    });
    expect(Date.parse((me as unknown as { started_at: string }).started_at)).toBeLessThanOrEqual(Date.now());
    await w.close(5_000);
    const after = await request(h.app).get(`${A}/workers`).set(as(admin)).expect(200);
    expect((after.body.workers as { worker_id: string }[]).map((x) => x.worker_id)).not.toContain(w.id);
  });

  test("a running scan is among its worker's active jobs until it ends", async () => {
    const w = await h.startWorker();
    const repo = makeGitRepo({
      "src/app.js": "const x = req.body.code;\neval(x);\n",
      "src/db.js": "db.query('select ' + req.query.id);\n",
    });
    const scan = await request(h.app).post("/api/v2/scan").set(as(h.tenant.token)).send({ git_uri: repo }).expect(200);
    const scanId = scan.body.scan_id as string;
    const mine = async () =>
      (
        (await request(h.app).get(`${A}/workers`).set(as(admin)).expect(200)).body.workers as {
          worker_id: string;
          active_jobs: { queue: string; scan_id?: string }[];
        }[]
      ).find((x) => x.worker_id === w.id);
    const running = await waitFor(async () => (await mine())?.active_jobs.find((j) => j.scan_id === scanId), {
      intervalMs: 20,
      what: "the scan among the active jobs",
    });
    expect(running).toMatchObject({ queue: "scans", name: "scan.run", job_id: expect.any(String), started_at: expect.any(String) });
    await waitFor(
      async () =>
        ["completed", "failed"].includes((await request(h.app).get(`/api/v2/scan/${scanId}`).set(as(h.tenant.token))).body.state as string),
      { what: "the scan to end" },
    );
    await waitFor(async () => (await mine())?.active_jobs.length === 0, { what: "no active jobs" });
    await w.close(5_000);
    fs.rmSync(repo, { recursive: true, force: true });
  });

  test("a worker that stops heartbeating drops out after the TTL", async () => {
    const registry = new WorkerRegistry(h.deps.redis, h.stack.config.redis.queuePrefix);
    const now = new Date().toISOString();
    await registry.publish(
      {
        worker_id: "crashed-1",
        host: "gone",
        pid: 1,
        started_at: now,
        heartbeat_at: now,
        concurrency: { scans: 1 },
        active_jobs: [{ queue: "scans", job_id: "j1", name: "scan.run", scan_id: "s1", started_at: now }],
      },
      500,
    );
    const listed = await request(h.app).get(`${A}/workers`).set(as(admin)).expect(200);
    expect(listed.body.workers).toContainEqual(
      expect.objectContaining({ worker_id: "crashed-1", active_jobs: [expect.objectContaining({ scan_id: "s1" })] }),
    );
    await new Promise((r) => setTimeout(r, 700));
    const later = await request(h.app).get(`${A}/workers`).set(as(admin)).expect(200);
    expect((later.body.workers as { worker_id: string }[]).map((x) => x.worker_id)).not.toContain("crashed-1");
  });
});

describe("failed jobs", () => {
  const SECRET_URI = "https://alice:s3cret-pw@git.example.test/acme/app.git";
  const failJobs = (n: number) => failScanJobs(h, n, `git clone ${SECRET_URI} failed: exit 128`);
  const failed = async () =>
    (await request(h.app).get(`${A}/queues/scans/failed`).set(as(admin)).expect(200)).body as {
      jobs: Record<string, unknown>[];
      total: number;
    };

  test("listed with the URI redacted, retried, removed", async () => {
    const scans = h.deps.queue.queue("scans");
    await scans.add("scan.run", { scan_id: "scan-f1", organization_id: "org-1", git_uri: SECRET_URI }, { jobId: "fail-1", attempts: 1 });
    await failJobs(1);
    const list = await failed();
    expect(list.total).toBe(1);
    expect(list.jobs[0]).toMatchObject({ job_id: "fail-1", name: "scan.run", scan_id: "scan-f1", attempts_made: 1, max_attempts: 1 });
    expect(JSON.stringify(list)).not.toContain("s3cret");
    expect(list.jobs[0]!.data).toMatchObject({ git_uri: "https://[REDACTED]@git.example.test/acme/app.git" });
    expect(list.jobs[0]!.failed_reason).toContain("https://[REDACTED]@git.example.test");
    // The dashboard's own API shows job data, errors and stack traces: redacted there too.
    const board = await request(h.app).get("/admin/queues/api/queues?activeQueue=scans&status=failed&page=1").set(as(admin)).expect(200);
    expect(board.text).toContain("fail-1");
    expect(board.text).toContain("[REDACTED]@git.example.test");
    expect(board.text).not.toContain("s3cret");

    await request(h.app).post(`${A}/queues/scans/failed/fail-1/retry`).set(as(admin)).expect(200);
    expect(await (await scans.getJob("fail-1"))!.getState()).toBe("waiting");
    // Not failed any more: retrying or removing it through the failed list is a conflict.
    await request(h.app).delete(`${A}/queues/scans/failed/fail-1`).set(as(admin)).expect(409);

    await failJobs(1);
    await request(h.app).delete(`${A}/queues/scans/failed/fail-1`).set(as(admin)).expect(200);
    expect(await scans.getJob("fail-1")).toBeUndefined();
    expect((await failed()).total).toBe(0);
  });

  test("all failed jobs at once: retried, then removed", async () => {
    const scans = h.deps.queue.queue("scans");
    for (const id of ["all-1", "all-2"]) await scans.add("bogus", { git_uri: SECRET_URI }, { jobId: id, attempts: 1 });
    await failJobs(2);
    expect((await request(h.app).post(`${A}/queues/scans/failed/retry`).set(as(admin)).expect(200)).body).toEqual({
      message: "Failed jobs retried",
      retried: 2,
    });
    expect((await queues()).scans!.counts).toMatchObject({ failed: 0, waiting: 2 });
    await failJobs(2);
    expect((await request(h.app).delete(`${A}/queues/scans/failed`).set(as(admin)).expect(200)).body).toEqual({
      message: "Failed jobs removed",
      removed: 2,
    });
    expect((await queues()).scans!.counts.failed).toBe(0);
  });
});

describe("dashboard sessions", () => {
  test("an admin gets a short-lived cookie that opens the dashboard until it expires", async () => {
    const res = await request(h.app).post(`${A}/session`).set(as(admin)).expect(200);
    expect(res.body).toMatchObject({ dashboard_url: "/admin/queues", read_only: false, max_age_seconds: 2 });
    const header = ([] as string[]).concat(res.headers["set-cookie"] ?? []).join("\n");
    expect(header).toMatch(/^ax_admin_session=[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=2; HttpOnly; SameSite=Strict$/);
    const cookie = sessionCookie(res.headers["set-cookie"]);
    const api = await request(h.app).get("/admin/queues/api/queues").set("Cookie", cookie).expect(200);
    expect((api.body.queues as { name: string }[]).map((q) => q.name).sort()).toEqual(["maintenance", "scans", "webhooks"]);
    const page = await request(h.app).get("/admin/queues").set("Cookie", cookie).set("Accept", "text/html").expect(200);
    expect(page.text).toContain("__UI_CONFIG__");
    expect(page.text).not.toContain("fonts.googleapis.com");
    await new Promise((r) => setTimeout(r, 2_200));
    await request(h.app).get("/admin/queues/api/queues").set("Cookie", cookie).expect(401);
  });

  test("without a session the dashboard is refused: a page for browsers, JSON otherwise", async () => {
    const page = await request(h.app).get("/admin/queues").set("Accept", "text/html").expect(401);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    const json = await request(h.app).get("/admin/queues/api/queues").set("Accept", "application/json").expect(401);
    expect(json.body).toEqual({ code: 401, error: "unauthorized", message: expect.any(String) });
    await request(h.app).get("/admin/queues").set("Cookie", "ax_admin_session=forged-value-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").expect(401);
    await request(h.app).get("/admin/queues").set(as(h.tenant.token)).expect(403);
  });

  test("a read-only session cannot change anything; a full one only from this origin", async () => {
    const ro = sessionCookie((await request(h.app).post(`${A}/session?read_only=true`).set(as(admin)).expect(200)).headers["set-cookie"]);
    await request(h.app).put("/admin/queues/api/queues/maintenance/pause").set("Cookie", ro).expect(403);
    const list = await request(h.app).get("/admin/queues/api/queues").set("Cookie", ro).expect(200);
    expect((list.body.queues as { readOnlyMode: boolean }[]).every((q) => q.readOnlyMode)).toBe(true);

    const full = sessionCookie((await request(h.app).post(`${A}/session`).set(as(admin)).expect(200)).headers["set-cookie"]);
    await request(h.app)
      .put("/admin/queues/api/queues/maintenance/pause")
      .set("Cookie", full)
      .set("Origin", "https://evil.example")
      .expect(403);
    await request(h.app)
      .put("/admin/queues/api/queues/maintenance/pause")
      .set("Cookie", full)
      .set("Sec-Fetch-Site", "cross-site")
      .expect(403);
    const host = "127.0.0.1:9";
    await request(h.app)
      .put("/admin/queues/api/queues/maintenance/pause")
      .set("Cookie", full)
      .set("Host", host)
      .set("Origin", `http://${host}`)
      .expect(200);
    expect((await queues()).maintenance!.paused).toBe(true);
    await request(h.app).post(`${A}/queues/maintenance/resume`).set(as(admin)).expect(200);
  });

  test("ADMIN_DASHBOARD_READ_ONLY makes every session and token read-only on the dashboard", async () => {
    const cookie = sessionCookie((await request(h.app).post(`${A}/session`).set(as(admin)).expect(200)).headers["set-cookie"]);
    h.deps.config.admin.dashboardReadOnly = true; // the setting is read per request
    try {
      expect((await request(h.app).post(`${A}/session`).set(as(admin)).expect(200)).body.read_only).toBe(true);
      await request(h.app).put("/admin/queues/api/queues/maintenance/pause").set("Cookie", cookie).expect(403);
      await request(h.app).put("/admin/queues/api/queues/maintenance/pause").set(as(admin)).expect(403);
      expect((await queues()).maintenance!.paused).toBe(false);
    } finally {
      h.deps.config.admin.dashboardReadOnly = false;
    }
  });

  test("a session ends when its user is no longer an instance admin", async () => {
    const token = await instanceAdminToken(h);
    const cookie = sessionCookie((await request(h.app).post(`${A}/session`).set(as(token)).expect(200)).headers["set-cookie"]);
    const me = await request(h.app).get("/api/v2/profile").set(as(token)).expect(200);
    await h.stack.handle.db
      .updateTable("users")
      .set({ is_instance_admin: false })
      .where("id", "=", me.body.user_id as string)
      .execute();
    await request(h.app).get("/admin/queues/api/queues").set("Cookie", cookie).expect(401);
    await request(h.app).post(`${A}/session`).set(as(token)).expect(403);
  });
});

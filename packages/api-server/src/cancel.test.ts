// Real PostgreSQL, Redis and worker; the worker starts only after the scan was cancelled.
import request from "supertest";
import { makeGitRepo } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(() => h.close());

it("cancels a queued scan: its job leaves the queue and it never runs", async () => {
  const key = { "X-AX-KEY": h.tenant.token };
  const repo = makeGitRepo({ "a.js": "eval(x);\n" });
  const r = await request(h.app).post("/api/v2/scan").set(key).send({ git_uri: repo });
  expect(r.status).toBe(200);
  expect(await h.deps.queue.queue("scans").getJob(r.body.scan_id)).toBeDefined();

  const cancel = await request(h.app).post(`/api/v2/scan/${r.body.scan_id}/cancel`).set(key);
  expect(cancel.status).toBe(200);
  expect(cancel.body).toMatchObject({ scan_id: r.body.scan_id, state: "cancelled", error: "Cancelled by request." });
  expect(await h.deps.queue.queue("scans").getJob(r.body.scan_id)).toBeUndefined();
  const again = await request(h.app).post(`/api/v2/scan/${r.body.scan_id}/cancel`).set(key);
  expect(again.status).toBe(409);
  expect(again.body.message).toMatch(/already ended \(cancelled\)/);

  // A worker (and its start-up reconcile) must leave it alone.
  const worker = await h.startWorker();
  await worker.reconcileNow();
  await new Promise((res) => setTimeout(res, 1000));
  const after = await request(h.app).get(`/api/v2/scan/${r.body.scan_id}`).set(key);
  expect(after.body).toMatchObject({ state: "cancelled", attempts: 0, progress: 0 });
});

it("lets a viewer read the scan but not cancel it", async () => {
  const viewer = await h.member("viewer");
  const r = await request(h.app)
    .post("/api/v2/scan")
    .set("X-AX-KEY", h.tenant.token)
    .send({ git_uri: makeGitRepo({ "b.py": "x = 1\n" }) });
  expect((await request(h.app).get(`/api/v2/scan/${r.body.scan_id}`).set("X-AX-KEY", viewer)).status).toBe(200);
  expect((await request(h.app).post(`/api/v2/scan/${r.body.scan_id}/cancel`).set("X-AX-KEY", viewer)).status).toBe(403);
});

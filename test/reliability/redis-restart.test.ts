// Fault: Redis restarted while scans are being processed, repeated AX_FAULT_REPEAT times,
// alternating a restart that loses everything (no persistence) with a crash-and-restart that
// keeps its data (append-only file). A redis-server of the test's own; real worker
// processes, PostgreSQL, git and analyzers; the API in process.
import fs from "node:fs";
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";
import { expectSameAsReference, installStateAudit, scanOutcome, waitForEnd } from "./support/audit";
import { Fleet, submitScan } from "./support/fleet";
import { PrivateRedis } from "./support/redis-server";
import { Tally, budgetMs, repeatCount, report, sleep } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
const SCANS_PER_RESTART = 3;
const DOWN_MS = 2_000;

let redis: PrivateRedis;
let h: ApiHarness;
let tools: ProbeTools;
let repo: string;
let fleet: Fleet;
const whileDown: Record<string, Record<number, number>> = { "POST /scan": {}, "GET /scan/{id}": {}, "GET /health/ready": {} };

beforeAll(async () => {
  redis = await PrivateRedis.start();
  h = await createApiHarness({ env: { REDIS_URL: redis.url } });
  await installStateAudit(h.stack.handle.db);
  tools = probeTools(1000);
  repo = makeGitRepo(pythonFiles());
  // The reconciler puts back what an empty Redis forgot; once a second here (default 30 s).
  fleet = new Fleet(h.stack.config, tools, h.deps.queue, { env: { RECONCILE_INTERVAL_MS: "1000" }, supervise: true });
});

afterAll(async () => {
  await fleet.stop();
  await h.close();
  await redis.destroy();
  for (const dir of [tools.dir, repo]) fs.rmSync(dir, { recursive: true, force: true });
});

const key = () => ({ "X-AX-KEY": h.tenant.token });
const submit = () => submitScan(h.app, h.tenant.token, repo);
function count(what: string, status: number) {
  const m = whileDown[what]!;
  m[status] = (m[status] ?? 0) + 1;
}

it(
  `Redis restarted during processing: workers resume and every scan completes exactly once (${N}×)`,
  async () => {
    const db = h.stack.handle.db;
    await Promise.all([fleet.start(), fleet.start()].map((w) => w.process.ready));
    const refId = await submit();
    expect(await waitForEnd(db, refId)).toBe("completed");
    const ref = await scanOutcome(db, refId);

    const tally = new Tally(N);
    const modes = { lossy: 0, persistent: 0 };
    let scans = 0;
    let completedOnce = 0;
    while (tally.more) {
      const persistent = tally.done % 2 === 1;
      await tally.run(async () => {
        if (redis.persistent !== persistent) {
          // Switch modes while idle: restarted empty, with or without an append-only file.
          await redis.kill();
          redis.wipe();
          redis.persistent = persistent;
          await redis.start();
          await waitFor(async () => (await request(h.app).get("/api/v2/health/ready")).status === 200, {
            timeoutMs: 20_000,
            what: "the API to see Redis",
          });
        }
        const ids: string[] = [];
        for (let i = 0; i < SCANS_PER_RESTART; i++) ids.push(await submit());
        await waitFor(
          async () =>
            (await db.selectFrom("scans").select("id").where("id", "in", ids).where("state", "=", "running").execute()).length > 0,
          {
            timeoutMs: 30_000,
            intervalMs: 20,
            what: "a scan to start",
          },
        );
        await sleep(Math.random() * 1_000);

        await redis.kill();
        const downAt = Date.now();
        count("POST /scan", (await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: repo })).status);
        count("GET /scan/{id}", (await request(h.app).get(`/api/v2/scan/${ids[0]}`).set(key())).status);
        count("GET /health/ready", (await request(h.app).get("/api/v2/health/ready")).status);
        await sleep(Math.max(0, DOWN_MS - (Date.now() - downAt)));
        await redis.start();
        modes[persistent ? "persistent" : "lossy"]++;

        // Workers resume: what was in flight ends, and a scan submitted now runs too.
        await waitFor(async () => (await request(h.app).get("/api/v2/health/ready")).status === 200, {
          timeoutMs: 20_000,
          what: "the API to see Redis again",
        });
        ids.push(await submit());
        const problems: string[] = [];
        for (const id of ids) {
          scans++;
          try {
            await waitForEnd(db, id, 120_000);
            expectSameAsReference(await scanOutcome(db, id), ref.keys, (n) => n >= 1);
            completedOnce++;
          } catch (err) {
            problems.push(`scan ${ids.indexOf(id) + 1}: ${(err as Error).message}`);
          }
        }
        if (problems.length) throw new Error(problems.join("; "));
      });
    }

    report(
      "redis-restart",
      `${tally.figure} Redis restarts during processing (${modes.lossy} losing all data, ` +
        `${modes.persistent} keeping it) recovered: ${completedOnce}/${scans} scans completed exactly ` +
        `once with the undisturbed finding set; ` +
        `worker processes crashed ${fleet.crashes.length} times; while Redis was down POST /scan answered ` +
        `${JSON.stringify(whileDown["POST /scan"])}, GET /scan/{id} ` +
        `${JSON.stringify(whileDown["GET /scan/{id}"])}, GET /health/ready ` +
        `${JSON.stringify(whileDown["GET /health/ready"])}`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
  },
  budgetMs(N, 40_000),
);

it("keeps its worker processes alive across Redis restarts", () => {
  expect(fleet.crashes).toEqual([]);
});

it("answers 503, not 500, to POST /scan while Redis is down, and keeps serving reads from PostgreSQL", () => {
  expect(whileDown).toEqual({
    "POST /scan": { 503: N },
    "GET /scan/{id}": { 200: N },
    "GET /health/ready": { 503: N },
  });
});

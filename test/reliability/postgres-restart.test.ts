// Fault: PostgreSQL restarted while scans are being processed, repeated AX_FAULT_REPEAT
// times, alternating a fast shutdown (sessions terminated, checkpoint) with an immediate one
// (a crash: recovery on start). A PostgreSQL cluster of the test's own (the shared server is
// never touched); real worker processes, Redis, git and analyzers; the API in process.
import fs from "node:fs";
import type { Express } from "express";
import type { Redis } from "ioredis";
import pg from "pg";
import request from "supertest";
import type { Config } from "@ax/config";
import { bootstrap, migrate, openDatabase, type BootstrapResult, type DbHandle } from "@ax/db";
import { createLogger } from "@ax/logger";
import { JobQueue, producerConnection } from "@ax/queue";
import { makeGitRepo, testConfig, testQueuePrefix, waitFor } from "@ax/testkit";
import { buildApp } from "@ax/api-server";
import { expectSameAsReference, installStateAudit, scanOutcome, waitForEnd } from "./support/audit";
import { Fleet, submitScan } from "./support/fleet";
import { PrivatePostgres, type StopMode } from "./support/postgres-cluster";
import { crashCause, freePort, spawnApi, type WorkerProcess } from "./support/processes";
import { Tally, budgetMs, repeatCount, report, sleep } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
const SCANS_PER_RESTART = 3;
const DOWN_MS = 2_000;

let cluster: PrivatePostgres;
let handle: DbHandle;
let redis: Redis;
let queue: JobQueue;
let app: Express;
let tenant: BootstrapResult;
let tools: ProbeTools;
let repo: string;
let fleet: Fleet;
let config: Config;
/** The undisturbed scan and one of its findings (set by the first test). */
let ref: { scanId: string; findingId: string; keys: string[] } | undefined;
/** Status codes (and whether Retry-After came with them) answered while PostgreSQL was down. */
const whileDown: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  cluster = await PrivatePostgres.create();
  await cluster.start();
  config = testConfig({ DATABASE_URL: cluster.url, QUEUE_PREFIX: testQueuePrefix() });
  handle = await openDatabase({ url: cluster.url, dataDir: config.database.dataDir, poolSize: 5 });
  await migrate(handle);
  await installStateAudit(handle.db);
  tenant = await bootstrap(handle.db, {
    orgName: "Acme",
    email: "owner@acme.test",
    displayName: "Ada Owner",
    identityProvider: "github",
    expiresInDays: 30,
  });
  redis = producerConnection(config.redis.url);
  queue = new JobQueue(redis, { redisUrl: config.redis.url, prefix: config.redis.queuePrefix, attempts: config.worker.attempts });
  const logger = createLogger({ level: "error", format: "json", silent: !process.env.TEST_LOGS });
  app = buildApp({ config, db: handle.db, logger, queue, redis, lifecycle: { shuttingDown: false } });
  tools = probeTools(1000);
  repo = makeGitRepo(pythonFiles());
  fleet = new Fleet(config, tools, queue, { env: { RECONCILE_INTERVAL_MS: "1000" }, supervise: true });
});

afterAll(async () => {
  await fleet.stop();
  await queue
    .queue("scans")
    .obliterate({ force: true })
    .catch(() => undefined);
  await queue.close();
  redis.disconnect();
  await handle.close();
  await cluster.destroy();
  for (const dir of [tools.dir, repo]) fs.rmSync(dir, { recursive: true, force: true });
});

const key = () => ({ "X-AX-KEY": tenant.token });
const submit = () => submitScan(app, tenant.token, repo);
function count(what: string, res: request.Response) {
  const m = (whileDown[what] ??= {});
  const k = `${res.status}${res.headers["retry-after"] ? " Retry-After" : ""}`;
  m[k] = (m[k] ?? 0) + 1;
}

it(
  `PostgreSQL restarted during processing: scans in flight complete exactly once and nothing is lost (${N}×)`,
  async () => {
    const db = handle.db;
    await Promise.all([fleet.start(), fleet.start()].map((w) => w.process.ready));
    const refId = await submit();
    expect(await waitForEnd(db, refId)).toBe("completed");
    const refOutcome = await scanOutcome(db, refId);
    const finding = await db.selectFrom("findings").select("id").where("scan_id", "=", refId).executeTakeFirstOrThrow();
    ref = { scanId: refId, findingId: finding.id, keys: refOutcome.keys };

    const tally = new Tally(N);
    const modes = { fast: 0, immediate: 0 };
    const recoverMs: number[] = [];
    let scans = 0;
    let completedOnce = 0;
    while (tally.more) {
      const mode = tally.done % 2 === 0 ? "fast" : "immediate";
      await tally.run(async () => {
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
        ).catch((err: Error) => {
          throw new Error(`${err.message} ${fleet.describe()}`);
        });
        await sleep(Math.random() * 1_000);

        await cluster.stop(mode);
        const downAt = Date.now();
        count("GET /scan/{id}", await request(app).get(`/api/v2/scan/${ids[0]}`).set(key()).timeout(20_000));
        count("POST /scan", await request(app).post("/api/v2/scan").set(key()).send({ git_uri: repo }).timeout(20_000));
        count(
          "PUT /scan/{id}/finding/{fid}",
          await request(app).put(`/api/v2/scan/${refId}/finding/${finding.id}`).set(key()).send({ reason: "checked" }).timeout(20_000),
        );
        count("GET /health/ready", await request(app).get("/api/v2/health/ready").timeout(20_000));
        await sleep(Math.max(0, DOWN_MS - (Date.now() - downAt)));
        await cluster.start();
        const upAt = Date.now();
        modes[mode]++;

        await waitFor(async () => (await request(app).get(`/api/v2/scan/${ids[0]}`).set(key())).status === 200, {
          timeoutMs: 20_000,
          what: "the API to read from PostgreSQL again",
        });
        recoverMs.push(Date.now() - upAt);
        ids.push(await submit());
        const problems: string[] = [];
        for (const id of ids) {
          scans++;
          try {
            await waitForEnd(db, id, 120_000);
            expectSameAsReference(await scanOutcome(db, id), refOutcome.keys, (n) => n >= 1);
            completedOnce++;
          } catch (err) {
            problems.push(`scan ${ids.indexOf(id) + 1}: ${(err as Error).message}`);
          }
        }
        if (problems.length) throw new Error(`${problems.join("; ")} ${fleet.describe()}`);
      });
    }

    const down = Object.entries(whileDown)
      .map(([what, codes]) => `${what} ${JSON.stringify(codes)}`)
      .join(", ");
    report(
      "postgres-restart",
      `${tally.figure} PostgreSQL restarts during processing (${modes.fast} fast, ${modes.immediate} immediate) recovered: ` +
        `${completedOnce}/${scans} scans completed exactly ` +
        `once with the undisturbed finding set ` +
        `(API reading again ≤ ${Math.max(...recoverMs)} ms after the restart); worker processes crashed ${fleet.crashes.length} times (replaced a second ` +
        `later, as a supervisor would` +
        `${fleet.crashes.length ? `: ${[...new Set(fleet.crashes.map((c) => c.replace(/^pid \d+ /, "")))].join("; ")}` : ""}); while PostgreSQL was ` +
        `down: ${down}`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
  },
  budgetMs(N, 45_000),
);

it("keeps its worker processes alive across PostgreSQL restarts", () => {
  // A pooled pg client that loses its connection while checked out emits 'error'; nothing
  // listens for it there (the pool's handler covers idle clients only), so the process dies.
  expect(fleet.crashes).toEqual([]);
});

it("answers 503 with Retry-After, not 500, while PostgreSQL is down; readiness says so too", () => {
  expect(whileDown).toEqual({
    "GET /scan/{id}": { "503 Retry-After": N },
    "POST /scan": { "503 Retry-After": N },
    "PUT /scan/{id}/finding/{fid}": { "503 Retry-After": N },
    "GET /health/ready": { "503": N },
  });
});

/** A session of the test's own on the private cluster; the restarts below terminate it. */
async function session(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: cluster.url });
  c.on("error", () => undefined);
  await c.connect();
  return c;
}

/** Until some session waits for a lock (the one the test holds). */
async function someoneWaitsForALock(): Promise<void> {
  const c = await session();
  try {
    await waitFor(
      async () => Number((await c.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rows[0].n) > 0,
      {
        timeoutMs: 30_000,
        intervalMs: 20,
        what: "a transaction to wait for the test's lock",
      },
    );
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * Deterministic versions of the crash the restarts above hit now and then: the test holds a
 * row lock so that a transaction of the product is surely in flight when PostgreSQL stops.
 */
describe("a transaction in flight when PostgreSQL goes down", () => {
  const modeOf = (i: number): StopMode => (i % 2 === 0 ? "fast" : "immediate");

  it(
    `leaves the API process running and answers 503: a PUT finding waiting on a row lock (${N}×)`,
    async () => {
      if (!ref) throw new Error("the first test did not make its reference scan");
      const { scanId, findingId } = ref;
      const port = await freePort();
      const env = {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: cluster.url,
        REDIS_URL: config.redis.url,
        QUEUE_PREFIX: config.redis.queuePrefix,
        REDIS_AUTOSTART: "false",
        ALLOW_INSECURE_GIT_URLS: "true",
      };
      let api: WorkerProcess = spawnApi(env);
      await api.ready;
      const base = `http://127.0.0.1:${port}/api/v2`;
      const answers: Record<string, number> = {};
      const crashes: string[] = [];
      for (let i = 0; i < N; i++) {
        const holder = await session();
        await holder.query("BEGIN");
        await holder.query("SELECT id FROM findings WHERE id = $1 FOR UPDATE", [findingId]);
        const put = fetch(`${base}/scan/${scanId}/finding/${findingId}`, {
          method: "PUT",
          headers: { "X-AX-KEY": tenant.token, "Content-Type": "application/json" },
          body: JSON.stringify({ reason: `restart ${i}` }),
        }).then(
          (r) => String(r.status),
          () => "no answer",
        );
        await someoneWaitsForALock();
        await cluster.stop(modeOf(i));
        const answer = await put;
        answers[answer] = (answers[answer] ?? 0) + 1;
        await sleep(300);
        await cluster.start();
        if (api.status() !== "running") {
          crashes.push(`${api.status()}: ${crashCause(api.tail())}`);
          api = spawnApi(env);
          await api.ready;
        }
        await waitFor(async () => (await fetch(`${base}/scan/${scanId}`, { headers: { "X-AX-KEY": tenant.token } })).status === 200, {
          timeoutMs: 20_000,
          what: "the API to read again",
        });
      }
      api.child.kill("SIGTERM");
      await api.exited;
      report(
        "postgres-transaction-api",
        `the API process survived ${N - crashes.length}/${N} PostgreSQL stops with a PUT finding's ` +
          `transaction in flight (${[...new Set(crashes)].join("; ") || "no crash"}); that PUT answered ${JSON.stringify(answers)}`,
      );
      expect({ crashes, answers }).toEqual({ crashes: [], answers: { "503": N } });
    },
    budgetMs(N, 15_000),
  );

  it(
    `leaves worker processes running: a scan's results waiting on a row lock, and the scan still ends once (${N}×)`,
    async () => {
      if (!ref) throw new Error("the first test did not make its reference scan");
      const db = handle.db;
      const before = fleet.crashes.length;
      const problems: string[] = [];
      let stopsWithACrash = 0;
      for (let i = 0; i < N; i++) {
        const crashesBefore = fleet.crashes.length;
        const id = await submit();
        const holder = await session();
        await holder.query("BEGIN");
        // KEY SHARE lets the worker's progress updates through and stops its results'
        // transaction at SELECT … FOR UPDATE.
        await holder.query("SELECT id FROM scans WHERE id = $1 FOR KEY SHARE", [id]);
        await someoneWaitsForALock();
        await cluster.stop(modeOf(i));
        await sleep(1_000);
        await cluster.start();
        try {
          await waitForEnd(db, id, 120_000);
          expectSameAsReference(await scanOutcome(db, id), ref.keys, (n) => n >= 1);
        } catch (err) {
          problems.push(`#${i + 1}: ${(err as Error).message}`);
        }
        if (fleet.crashes.length > crashesBefore) stopsWithACrash++;
      }
      const crashes = fleet.crashes.slice(before);
      report(
        "postgres-transaction-worker",
        `no worker process crashed in ${N - stopsWithACrash}/${N} PostgreSQL stops with a scan's results ` +
          `transaction in flight (${crashes.length} crashes` +
          `${crashes.length ? `: ${[...new Set(crashes.map((c) => c.replace(/^pid \d+ /, "")))].join("; ")}` : ""}); ` +
          `${N - problems.length}/${N} of those scans still completed exactly once (crashed workers replaced a second later, as a supervisor would)`,
      );
      expect({ crashes, problems }).toEqual({ crashes: [], problems: [] });
    },
    budgetMs(N, 40_000),
  );
});

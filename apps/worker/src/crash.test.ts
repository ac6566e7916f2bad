// Real worker processes (npm run start:worker's entry point) on the real PostgreSQL and Redis:
// one is killed with SIGKILL in the middle of a scan, another finishes the scan.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createScan, findOrCreateProject, getState } from "@ax/db";
import { JobQueue, producerConnection } from "@ax/queue";
import { createTestStack, makeGitRepo, waitFor, type TestStack } from "@ax/testkit";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
let stack: TestStack;
const children: ChildProcess[] = [];

const env = () => ({
  PATH: process.env.PATH ?? "",
  HOME: process.env.HOME ?? "/tmp",
  NODE_ENV: "test",
  LOG_LEVEL: "warn",
  DATABASE_URL: stack.config.database.url!,
  REDIS_URL: stack.config.redis.url,
  QUEUE_PREFIX: stack.config.redis.queuePrefix,
  ALLOW_INSECURE_GIT_URLS: "true",
  WORKER_CONCURRENCY: "1",
  WORKER_LOCK_MS: "2000",
  WORKER_STALLED_INTERVAL_MS: "1000",
  ANALYZER_THREADS: "1",
  SHUTDOWN_TIMEOUT_MS: "10000",
});

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], {
    cwd: ROOT,
    env: env(),
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.resume();
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code)),
  );

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await stack.close();
});

it("re-runs a scan whose worker was killed mid-scan; it ends exactly once with no duplicate findings", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1500; i++)
    files[`src/m${i}.py`] = `import yaml, hashlib\n\ndef f(x):\n    return yaml.load(x), hashlib.md5(x)\n`.repeat(10);
  const repo = makeGitRepo(files);
  const db = stack.handle.db;
  const t = stack.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: repo, name: "big" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: repo,
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  const redis = producerConnection(stack.config.redis.url);
  const queue = new JobQueue(redis, { redisUrl: stack.config.redis.url, prefix: stack.config.redis.queuePrefix, attempts: 3 });
  await queue.enqueue("scan.run", { scan_id: scan.id, organization_id: t.organization_id }, { jobId: scan.id });

  const first = startWorkerProcess();
  await waitFor(async () => (await getState(db, scan.id)) === "running", { timeoutMs: 30_000, intervalMs: 20, what: "scan to start" });
  first.kill("SIGKILL");
  await exited(first);
  expect(await getState(db, scan.id)).toBe("running");

  const second = startWorkerProcess();
  await waitFor(async () => (await getState(db, scan.id)) === "completed", {
    timeoutMs: 90_000,
    intervalMs: 200,
    what: "scan to complete",
  });
  const row = await db.selectFrom("scans").selectAll().where("id", "=", scan.id).executeTakeFirstOrThrow();
  expect(row.attempts).toBe(2);
  const stats = await db
    .selectFrom("findings")
    .select(({ fn }) => [fn.countAll<string>().as("n"), fn.count<string>("fingerprint").distinct().as("distinct")])
    .where("scan_id", "=", scan.id)
    .executeTakeFirstOrThrow();
  expect(Number(stats.n)).toBeGreaterThanOrEqual(1500);
  expect(stats.distinct).toBe(stats.n);

  // SIGTERM: the idle worker closes its connections and exits cleanly within the deadline.
  second.kill("SIGTERM");
  const started = Date.now();
  expect(await exited(second)).toBe(0);
  expect(Date.now() - started).toBeLessThan(10_000);
  await queue.close();
  redis.disconnect();
}, 150_000);

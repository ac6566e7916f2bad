/**
 * Test support: every suite gets its own PostgreSQL database on the real server, its own
 * queue prefix on the real Redis and its own WORKSPACE_DIR, so suites run in parallel and
 * never touch development data. Git repositories are made with the real git binary. Which
 * servers those are is settled once per run by the Jest globalSetup (services.ts), which
 * starts private ones when the machine has none; temporary folders made here are removed
 * when the test file ends (temp.ts).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import pg from "pg";
import { loadConfig, type Config } from "@ax/config";
import { bootstrap, migrate, openDatabase, type BootstrapResult, type DbHandle } from "@ax/db";
import { defaultPgAdminUrl, defaultRedisUrl, serviceSettings } from "./services";
import { removeDir, tmpDir } from "./temp";

export { freePort, portAnswers } from "./ports";
export { PrivatePostgres, type StopMode } from "./postgres-server";
export { PrivateRedisServer } from "./redis-server";
export { provideTestServices, serviceSettings, type TestServices } from "./services";
export { findChromium, findOnPath, findPgBin, MissingToolError, requireChromium, requirePgBin } from "./tools";
export { removeDir, tmpDir };

const settings = serviceSettings();
/** Set by the globalSetup for every run; the defaults serve a test file run some other way. */
export const TEST_PG_ADMIN_URL = settings.pgAdminUrl ?? defaultPgAdminUrl(settings.pgPort);
export const TEST_REDIS_URL = settings.redisUrl ?? defaultRedisUrl(settings.redisPort);

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `ax_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: TEST_PG_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export function testQueuePrefix(): string {
  return `{axtest-${randomBytes(5).toString("hex")}}`;
}

let ownWorkspace: string | undefined;

/**
 * The configuration of a test. Without a WORKSPACE_DIR of the caller's, the workspace is a
 * folder of this module's own — under Jest one per test file (each file loads the testkit
 * afresh), elsewhere one per process — made on first use and removed with the other
 * temporary folders; never one that suites share, since a worker removes the kept state of
 * projects that its database does not have. createTestStack gives each stack its own.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "error",
    ALLOW_INSECURE_GIT_URLS: "true",
    REDIS_URL: TEST_REDIS_URL,
    ...overrides,
    WORKSPACE_DIR: overrides.WORKSPACE_DIR ?? (ownWorkspace ??= tmpDir("ax-test-ws-")),
  });
}

export interface TestStack {
  config: Config;
  database: TestDatabase;
  handle: DbHandle;
  tenant: BootstrapResult;
  close(): Promise<void>;
}

/**
 * A migrated database with one organization, its owner and a token. The workspace directory
 * is the suite's own (removed on close): a worker removes the kept state of projects that
 * its database does not have, which in a shared one would be every other suite's.
 */
export async function createTestStack(overrides: Record<string, string> = {}): Promise<TestStack> {
  const database = await createTestDatabase();
  const workspace = overrides.WORKSPACE_DIR === undefined ? tmpDir("ax-test-ws-") : undefined;
  const config = testConfig({
    DATABASE_URL: database.url,
    QUEUE_PREFIX: testQueuePrefix(),
    ...(workspace ? { WORKSPACE_DIR: workspace } : {}),
    ...overrides,
  });
  const handle = await openDatabase({ url: database.url, dataDir: config.database.dataDir, poolSize: 5 });
  await migrate(handle);
  const tenant = await bootstrap(handle.db, {
    orgName: "Acme",
    email: `owner-${randomBytes(3).toString("hex")}@acme.test`,
    displayName: "Ada Owner",
    identityProvider: "github",
    expiresInDays: 30,
  });
  return {
    config,
    database,
    handle,
    tenant,
    async close() {
      await handle.close();
      await database.drop();
      await dropQueueKeys(config.redis.url, config.redis.queuePrefix);
      if (workspace) removeDir(workspace);
    },
  };
}

/**
 * Deletes every Redis key under a suite's (or a benchmark's) queue prefix — all its queues
 * (scans, webhooks, maintenance), their job data and schedulers, the worker registry — so
 * nothing is left behind. Only throwaway prefixes (`{axtest-…}`, `{axbench-…}`) are accepted.
 */
export async function dropQueueKeys(redisUrl: string, prefix: string): Promise<number> {
  if (!/^\{ax(test|bench)-/.test(prefix)) throw new Error(`refusing to delete keys outside a test prefix: ${prefix}`);
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  // SCAN's MATCH is a glob: the prefix's own characters are matched literally.
  const pattern = `${prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}:*`;
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.test",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.test",
  GIT_CONFIG_NOSYSTEM: "1",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A repository with the given files committed on `branch`; returns its path. */
export function makeGitRepo(files: Record<string, string>, opts: { branch?: string; dir?: string } = {}): string {
  const dir = opts.dir ?? tmpDir("ax-repo-");
  git(dir, "init", "-q", "-b", opts.branch ?? "main");
  commitFiles(dir, files, "initial");
  return dir;
}

export function commitFiles(dir: string, files: Record<string, string>, message: string): string {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${opts.what ?? "condition"}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

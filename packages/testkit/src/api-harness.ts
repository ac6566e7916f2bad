/**
 * Test harness for API suites: a real PostgreSQL database of the suite's own, the real
 * Redis under a queue prefix of its own, the real app, and (when asked) a real worker
 * consuming that queue in the same process.
 */
import { randomBytes } from "node:crypto";
import type { NormalizedFinding } from "@ax/contracts";
import type { Express } from "express";
import type { Redis } from "ioredis";
import { addMember, bootstrap, createToken, createUser, type BootstrapResult, type Role } from "@ax/db";
import { createLogger } from "@ax/logger";
import { JobQueue, producerConnection } from "@ax/queue";
import { createTestStack, waitFor, type TestStack } from "@ax/testkit";
import { startWorker, type ResolveHost, type RunningWorker } from "@ax/scan-worker";
import { buildApp, type AppDeps } from "@ax/api-server";

export interface ApiHarness {
  stack: TestStack;
  app: Express;
  deps: AppDeps;
  tenant: BootstrapResult;
  worker?: RunningWorker;
  /** `resolveHost` answers webhook targets' names (tests never resolve names for real). */
  startWorker(opts?: { resolveHost?: ResolveHost }): Promise<RunningWorker>;
  /** A second, unrelated organization with its own owner. */
  otherTenant(): Promise<BootstrapResult>;
  /** A user with the given role in the first tenant's organization, and their token. */
  member(role: Role): Promise<string>;
  close(): Promise<void>;
}

export async function createApiHarness(opts: { env?: Record<string, string>; worker?: boolean } = {}): Promise<ApiHarness> {
  const stack = await createTestStack({ WORKER_CONCURRENCY: "2", ...opts.env });
  const logger = createLogger({ level: "error", format: "json", silent: !process.env.TEST_LOGS });
  const redis: Redis = producerConnection(stack.config.redis.url);
  // The producer fails fast until connected (the API answers 503 then); a suite starts once it is.
  await waitFor(async () => redis.status === "ready", { timeoutMs: 10_000, what: "the API's Redis connection" });
  const queue = new JobQueue(redis, {
    redisUrl: stack.config.redis.url,
    prefix: stack.config.redis.queuePrefix,
    attempts: stack.config.worker.attempts,
  });
  const deps: AppDeps = { config: stack.config, db: stack.handle.db, logger, queue, redis, lifecycle: { shuttingDown: false } };
  const app = buildApp(deps);
  const workers: RunningWorker[] = [];
  const harness: ApiHarness = {
    stack,
    app,
    deps,
    tenant: stack.tenant,
    async startWorker(opts = {}) {
      const w = await startWorker({ config: stack.config, db: stack.handle.db, logger, ...opts });
      workers.push(w);
      harness.worker = w;
      return w;
    },
    otherTenant: () =>
      bootstrap(stack.handle.db, {
        orgName: `Other-${randomBytes(2).toString("hex")}`,
        email: `other-${randomBytes(4).toString("hex")}@other.test`,
        displayName: "Oscar Other",
        identityProvider: "okta",
        expiresInDays: 30,
      }),
    async member(role) {
      const user = await createUser(stack.handle.db, {
        email: `${role}-${randomBytes(4).toString("hex")}@acme.test`,
        displayName: `A ${role}`,
        identityProvider: "google",
      });
      await addMember(stack.handle.db, stack.tenant.organization_id, user.id, role);
      return (await createToken(stack.handle.db, { userId: user.id, name: role, expiresInDays: 1 })).token;
    },
    async close() {
      for (const w of workers) await w.close(5_000);
      await queue.close();
      redis.disconnect();
      await stack.close(); // deletes every key under the suite's queue prefix
    },
  };
  if (opts.worker) await harness.startWorker();
  return harness;
}

/** A finding as a worker would store it, for suites that seed scans without running one. */
export const SEED_FINDING: NormalizedFinding = {
  analyzer: "ast-grep",
  rule_id: "js-sql-injection",
  title: "SQL injection",
  message: "Query built from input",
  cwe_id: "CWE-89",
  cwe_name: "SQL Injection",
  owasp: "A03:2021-Injection",
  file: "src/db.js",
  start_line: 3,
  end_line: 3,
  start_column: 1,
  end_column: 20,
  snippet: "db.query('x' + id)",
  severity: "HIGH",
  confidence: "HIGH",
  likelihood: "MEDIUM",
  impact: "HIGH",
  remediation: "Use parameters",
  fingerprint: "f".repeat(64),
  raw: {},
  fix: {
    replacement: "db.query('x', [id])",
    start_byte: 0,
    end_byte: 18,
    diff: "--- a/src/db.js\n+++ b/src/db.js\n@@ -1 +1 @@\n-db.query('x' + id)\n+db.query('x', [id])\n",
  },
};

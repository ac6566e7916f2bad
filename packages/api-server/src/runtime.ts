import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs/promises";
import type { Server } from "node:http";
import path from "node:path";
import { Redis } from "ioredis";
import type { Config } from "@ax/config";
import { bootstrap, countOrganizations, type Db } from "@ax/db";
import type { Logger } from "@ax/logger";
import { JobQueue, producerConnection } from "@ax/queue";
import { buildApp } from "./app";
import { warmAi } from "./services/ai";
import type { AppDeps } from "./http/context";

export class StartupError extends Error {}

export interface RunningApi {
  server: Server;
  deps: AppDeps;
  close(): Promise<void>;
}

/** Connects the producer side of the queue and listens. */
export async function startApi(config: Config, db: Db, logger: Logger): Promise<RunningApi> {
  const redis = producerConnection(config.redis.url);
  const queue = new JobQueue(redis, { redisUrl: config.redis.url, prefix: config.redis.queuePrefix, attempts: config.worker.attempts });
  const deps: AppDeps = { config, db, logger, queue, redis, lifecycle: { shuttingDown: false } };
  const app = buildApp(deps);
  await warmAi(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.http.port, config.http.host, () => resolve(s));
    s.once("error", reject);
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  const address = server.address();
  logger.info("API listening", { component: "api", port: typeof address === "object" && address ? address.port : config.http.port });
  return {
    server,
    deps,
    async close() {
      deps.lifecycle.shuttingDown = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await queue.close().catch(() => undefined);
      redis.disconnect();
    },
  };
}

/** True when something answers PING at the URL within two seconds. */
export async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: () => null,
  });
  probe.on("error", () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * npm start needs Redis. When nothing answers at REDIS_URL on this machine and redis-server
 * is installed, start one for ourselves (persisting under DATA_DIR/redis) and stop it on exit.
 */
export async function ensureRedis(config: Config, log: Logger): Promise<ChildProcess | undefined> {
  if (await redisAnswers(config.redis.url)) return undefined;
  const url = new URL(config.redis.url);
  const local = ["127.0.0.1", "localhost", "::1", "[::1]"].includes(url.hostname);
  const hasServer = spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
  if (!config.redis.autostart || !local || !hasServer) {
    throw new StartupError(
      `Redis is not reachable at ${url.host}. Start one (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis), ` +
        "or point REDIS_URL at yours. With redis-server on PATH and a local REDIS_URL, npm start launches it by itself.",
    );
  }
  const dir = path.join(config.database.dataDir, "redis");
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const port = url.port || "6379";
  const child = spawn(
    "redis-server",
    ["--port", port, "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--save", "", "--maxmemory-policy", "noeviction"],
    {
      stdio: "ignore",
    },
  );
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(config.redis.url)) {
      log.info("started redis-server for this process", { port, dir });
      return child;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new StartupError(`redis-server did not start on port ${port}; start Redis yourself or set REDIS_URL.`);
}

/**
 * First start on an empty database: an organization with a default group, an owner and a
 * token. The token is printed once and written to DATA_DIR/initial-token (0600), because the
 * embedded database admits no second process for `ax admin` while the service runs.
 */
export async function bootstrapIfEmpty(config: Config, db: Db, log: Logger): Promise<void> {
  if ((await countOrganizations(db)) > 0) return;
  const result = await bootstrap(db, {
    orgName: "local",
    email: "admin@localhost",
    displayName: "Local Admin",
    identityProvider: "local",
    instanceAdmin: true,
    tokenName: "initial",
    expiresInDays: config.tokens.defaultExpiryDays,
  });
  await fs.mkdir(config.database.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(config.database.dataDir, "initial-token");
  await fs.writeFile(file, `${result.token}\n`, { mode: 0o600 });
  await fs.chmod(file, 0o600);
  log.info("bootstrapped a local organization", { organization_id: result.organization_id, group_id: result.group_id, token_file: file });
  process.stdout.write(
    `\nFirst start: created organization "local" (${result.organization_id}) with group "default" (${result.group_id}).\n` +
      `Your API token (shown once, also saved to ${file}):\n\n  ${result.token}\n\n` +
      `Try: curl -H "X-AX-KEY: $(cat ${file})" http://localhost:${config.http.port}/api/v2/profile\n\n`,
  );
}

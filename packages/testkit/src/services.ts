/**
 * The PostgreSQL and Redis a test run uses. A URL given in TEST_PG_ADMIN_URL / TEST_REDIS_URL
 * is used as is; otherwise a server answering on 127.0.0.1 at the usual port (5432, 6379;
 * TEST_PG_PORT / TEST_REDIS_PORT move where it is looked for) is used, as a developer's
 * machine or CI has one; otherwise a private one is started for the run and stopped after
 * it, so that `npm test` needs nothing started by hand.
 */
import { portAnswers } from "./ports";
import { PrivatePostgres } from "./postgres-server";
import { PrivateRedisServer } from "./redis-server";
import { findOnPath, findPgBin, MissingToolError } from "./tools";

export interface ServiceSettings {
  pgAdminUrl?: string;
  redisUrl?: string;
  pgPort: number;
  redisPort: number;
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${name} must be a port number (1-65535), not ${JSON.stringify(value)}`);
  return n;
}

export function serviceSettings(env: NodeJS.ProcessEnv = process.env): ServiceSettings {
  return {
    ...(env.TEST_PG_ADMIN_URL ? { pgAdminUrl: env.TEST_PG_ADMIN_URL } : {}),
    ...(env.TEST_REDIS_URL ? { redisUrl: env.TEST_REDIS_URL } : {}),
    pgPort: port(env.TEST_PG_PORT, 5432, "TEST_PG_PORT"),
    redisPort: port(env.TEST_REDIS_PORT, 6379, "TEST_REDIS_PORT"),
  };
}

export const defaultPgAdminUrl = (pgPort: number): string => `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
export const defaultRedisUrl = (redisPort: number): string => `redis://127.0.0.1:${redisPort}`;

export interface TestServices {
  pgAdminUrl: string;
  redisUrl: string;
  /** The servers started for this run (empty when the machine's own answered). */
  started: { postgres?: PrivatePostgres; redis?: PrivateRedisServer };
  /** Stops and removes what was started; the machine's own servers are never touched. */
  stop(): Promise<void>;
  /** The same for an exiting process. */
  stopSync(): void;
}

/** Finds or starts PostgreSQL and Redis for a test run. */
export async function provideTestServices(settings: ServiceSettings = serviceSettings()): Promise<TestServices> {
  const usePg = settings.pgAdminUrl ?? ((await portAnswers(settings.pgPort)) ? defaultPgAdminUrl(settings.pgPort) : undefined);
  const useRedis = settings.redisUrl ?? ((await portAnswers(settings.redisPort)) ? defaultRedisUrl(settings.redisPort) : undefined);
  // Both checked before either starts: one message names everything to install.
  const missing = [...(usePg || findPgBin() ? [] : ["postgresql"]), ...(useRedis || findOnPath("redis-server") ? [] : ["redis-server"])];
  if (missing.length > 0) {
    const what = [
      ...(missing.includes("postgresql") ? [`PostgreSQL on 127.0.0.1:${settings.pgPort}`] : []),
      ...(missing.includes("redis-server") ? [`Redis on 127.0.0.1:${settings.redisPort}`] : []),
    ];
    throw new MissingToolError(
      `The tests need ${what.join(" and ")}, nothing answers there, and none can be started here: install the Debian package${missing.length > 1 ? "s" : ""} ${missing.join(" ")} (apt-get install ${missing.join(" ")}), or set ${missing.map((m) => (m === "postgresql" ? "TEST_PG_ADMIN_URL" : "TEST_REDIS_URL")).join(" / ")} to a running server.`,
    );
  }
  const started: TestServices["started"] = {};
  const stopSync = () => {
    started.redis?.stopSync();
    started.postgres?.destroySync();
  };
  try {
    if (!usePg) {
      const pg = await PrivatePostgres.create({ prefix: "ax-test-pg-" });
      started.postgres = pg;
      await pg.start();
    }
    if (!useRedis) started.redis = await PrivateRedisServer.start({ prefix: "ax-test-redis-" });
  } catch (err) {
    stopSync();
    throw err;
  }
  return {
    pgAdminUrl: usePg ?? started.postgres!.url,
    redisUrl: useRedis ?? started.redis!.url,
    started,
    async stop() {
      await Promise.all([started.redis?.stop(), started.postgres?.destroy()]);
    },
    stopSync,
  };
}

import { pingDb } from "@ax/db";
import type { AppDeps } from "../http/context";

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

const check = (work: Promise<unknown>) =>
  within(2_000, work).then(
    () => "ok" as const,
    () => "failing" as const,
  );

/** Readiness: PostgreSQL and Redis each answer within 2 s, and the process is not shutting down. */
export async function readiness(deps: AppDeps) {
  const [database, redis] = await Promise.all([check(pingDb(deps.db)), check(deps.redis.ping())]);
  const ready = database === "ok" && redis === "ok" && !deps.lifecycle.shuttingDown;
  return { ready, body: { status: ready ? ("ready" as const) : ("unavailable" as const), checks: { database, redis } } };
}

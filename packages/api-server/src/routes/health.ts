import { z } from "zod";
import { pingDb } from "@ax/db";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";

const Check = z.enum(["ok", "failing"]);

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timeout")), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "get",
      path: "/health",
      operationId: "health",
      summary: "Liveness: the process answers (no dependency checks)",
      tags: ["Health"],
      auth: "public",
      responses: { 200: { description: "Alive.", schema: z.object({ status: z.literal("ok") }) } },
      handler: async () => ({ status: "ok" }),
    }),
    defineRoute({
      method: "get",
      path: "/health/ready",
      operationId: "ready",
      summary: "Readiness: PostgreSQL and Redis answer, and the process is not shutting down",
      tags: ["Health"],
      auth: "public",
      responses: {
        200: { description: "Ready.", schema: z.object({ status: z.literal("ready"), checks: z.object({ database: Check, redis: Check }) }) },
        503: { description: "Not ready.", schema: z.object({ status: z.literal("unavailable"), checks: z.object({ database: Check, redis: Check }) }) },
      },
      handler: async ({ res }) => {
        const [database, redis] = await Promise.all([
          within(2_000, pingDb(deps.db)).then(() => "ok" as const, () => "failing" as const),
          within(2_000, deps.redis.ping()).then(() => "ok" as const, () => "failing" as const),
        ]);
        const ready = database === "ok" && redis === "ok" && !deps.lifecycle.shuttingDown;
        res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "unavailable", checks: { database, redis } });
        return undefined;
      },
    }),
    defineRoute({
      method: "get",
      path: "/metrics",
      operationId: "metrics",
      summary: "Prometheus metrics: HTTP RED, process, and queue depth by state",
      tags: ["Health"],
      auth: "public",
      responses: { 200: { description: "Prometheus text exposition format.", contentType: "text/plain; version=0.0.4" } },
      handler: async ({ res }) => {
        const registry = deps.metrics;
        if (!registry) {
          res.status(404).json({ code: 404, message: "Metrics are disabled." });
          return undefined;
        }
        res.set("Content-Type", registry.contentType).send(await registry.metrics());
        return undefined;
      },
    }),
  ];
}

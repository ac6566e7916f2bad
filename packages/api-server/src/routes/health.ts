import { z } from "zod";
import type { AppDeps } from "../http/context";
import { errorBody } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { readiness } from "../services/health";

const Check = z.enum(["ok", "failing"]);

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
        200: {
          description: "Ready.",
          schema: z.object({ status: z.literal("ready"), checks: z.object({ database: Check, redis: Check }) }),
        },
        503: {
          description: "Not ready.",
          schema: z.object({ status: z.literal("unavailable"), checks: z.object({ database: Check, redis: Check }) }),
        },
      },
      handler: async ({ res }) => {
        const { ready, body } = await readiness(deps);
        res.status(ready ? 200 : 503).json(body);
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
          res.status(404).json(errorBody(404, "not_found", "Metrics are disabled."));
          return undefined;
        }
        res.set("Content-Type", registry.contentType).send(await registry.metrics());
        return undefined;
      },
    }),
  ];
}

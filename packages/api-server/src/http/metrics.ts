import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { SCAN_QUEUE, WEBHOOK_QUEUE } from "@ax/contracts";
import type { JobQueue } from "@ax/queue";
import { routeLabel } from "./route";

/**
 * One registry per app (not the global one), so that tests can build many apps. Labels are
 * route templates, never raw URLs or tenant ids, to keep cardinality bounded.
 */
export function createMetrics(queue: JobQueue): { registry: Registry; middleware: RequestHandler } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration by method, route template and status code",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests by method, route template and status code",
    labelNames: ["method", "route", "status_code"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "bullmq_job_count",
    help: "Jobs in the scan and webhook delivery queues by state",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      try {
        for (const name of [SCAN_QUEUE, WEBHOOK_QUEUE]) {
          const counts = await Promise.race([
            queue.queue(name).getJobCounts("waiting", "active", "delayed", "failed", "completed", "prioritized"),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 1_000).unref()),
          ]);
          for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
        }
      } catch {
        // Redis is down: the last values stay; /health/ready tells the story.
      }
    },
  });

  const middleware: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.on("finish", () => {
      const labels = { method: req.method, route: routeLabel(req, res), status_code: String(res.statusCode) };
      end(labels);
      requests.inc(labels);
    });
    next();
  };
  return { registry, middleware };
}

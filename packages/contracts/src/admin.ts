import { z } from "zod";

/**
 * What a worker process publishes about itself in the worker registry (Redis), and what the
 * Admin endpoints read back. Fields change only by adding optional ones: workers of an older
 * release may still be registered during a rolling upgrade.
 */
export const WorkerActiveJob = z.object({
  queue: z.string(),
  job_id: z.string(),
  name: z.string(),
  scan_id: z.string().optional(),
  started_at: z.string(),
});
export type WorkerActiveJob = z.infer<typeof WorkerActiveJob>;

export const WorkerRecord = z.object({
  worker_id: z.string(),
  host: z.string(),
  pid: z.number().int(),
  started_at: z.string(),
  heartbeat_at: z.string(),
  /** Jobs run at once, per queue this process consumes. */
  concurrency: z.record(z.string(), z.number().int()),
  active_jobs: z.array(WorkerActiveJob),
  version: z.string().optional(),
});
export type WorkerRecord = z.infer<typeof WorkerRecord>;

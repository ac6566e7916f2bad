import { z } from "zod";

/**
 * The one job catalog. Producers enqueue with `JobName` + `JobData<K>`; the worker's handler
 * map is typed from it, so a missing handler is a compile error. Payloads change only by
 * adding optional fields: jobs already waiting in Redis must still parse.
 */
export const JobCatalog = {
  "scan.run": {
    queue: "scans",
    schema: z.object({
      scan_id: z.string().min(1),
      organization_id: z.string().min(1),
      // Optional so jobs enqueued before request ids were carried still validate.
      request_id: z.string().optional(),
    }),
  },
  // One job per delivery row; attempts and backoff come from WEBHOOK_ATTEMPTS and
  // WEBHOOK_BACKOFF_MS. The payload and secret are read from PostgreSQL, not Redis.
  "webhook.deliver": {
    queue: "webhooks",
    schema: z.object({
      delivery_id: z.string().min(1),
      organization_id: z.string().min(1),
    }),
  },
  // Repeatable (a BullMQ job scheduler, every PUBLIC_SCAN_SWEEP_INTERVAL_MS): deletes public
  // scans past their retention. Carries nothing; the cutoff is computed when it runs.
  "public-scan.expire": {
    queue: "maintenance",
    schema: z.object({}),
  },
} as const;

export type JobName = keyof typeof JobCatalog;
export type JobData<K extends JobName> = z.infer<(typeof JobCatalog)[K]["schema"]>;
export const SCAN_QUEUE = "scans";
export const WEBHOOK_QUEUE = "webhooks";
export const MAINTENANCE_QUEUE = "maintenance";

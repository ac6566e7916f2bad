import { z } from "zod";

/** Responses of the Admin endpoints (docs/admin.md) that do not depend on the queue library. */

export const FailedJobView = z.object({
  job_id: z.string(),
  name: z.string(),
  scan_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).describe("The job's payload; credentials in URLs, tokens and secrets redacted."),
  failed_reason: z.string().nullable().describe("Redacted like `data`."),
  attempts_made: z.number().int(),
  max_attempts: z.number().int(),
  created_at: z.string().nullable(),
  failed_at: z.string().nullable(),
});
export type FailedJobView = z.output<typeof FailedJobView>;

export const AdminSessionView = z.object({
  dashboard_url: z.string(),
  read_only: z.boolean(),
  expires_at: z.string(),
  max_age_seconds: z.number().int(),
});
export type AdminSessionView = z.output<typeof AdminSessionView>;

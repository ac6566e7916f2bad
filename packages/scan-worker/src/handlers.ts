import type { Job } from "bullmq";
import { UnrecoverableError } from "bullmq";
import type { JobData, JobName } from "@ax/contracts";
import { PermanentScanError, processScan, type ScanDeps } from "./process-scan";
import { sweepProjectState } from "./project-state";
import { expirePublicScans } from "./public-scans";
import { deliverWebhook, type DeliverDeps } from "./webhooks/deliver";

export type JobHandler<K extends JobName> = (data: JobData<K>, job: Job) => Promise<void>;
/** One handler per job of the catalog: a job without a handler does not compile. */
export type JobHandlers = { [K in JobName]: JobHandler<K> };

export class RetryableScanError extends Error {}

export function createHandlers(deps: ScanDeps, webhookDeps: DeliverDeps): JobHandlers {
  return {
    "webhook.deliver": (data, job) => deliverWebhook(webhookDeps, data, job),
    "public-scan.expire": async () => {
      await expirePublicScans(deps);
    },
    "scan.run": async (data, job) => {
      const maxAttempts = job.opts.attempts ?? 1;
      try {
        const outcome = await processScan(deps, data, { attempt: job.attemptsMade + 1, maxAttempts });
        // Discarded: cancelled, or deleted with its project (a group hard delete), in which case
        // the scan may have put the kept repository back after the delete's sweep. The job has
        // only the organization: its directories are checked against PostgreSQL.
        if (outcome === "discarded") {
          await sweepProjectState(deps, { organizationId: data.organization_id }).catch((err: unknown) =>
            deps.logger.warn("could not sweep deleted projects' state", { error: err }),
          );
        }
        // Throwing hands the job back to BullMQ, which retries it with backoff.
        if (outcome === "retry") throw new RetryableScanError("scan attempt failed; retrying");
      } catch (err) {
        if (err instanceof PermanentScanError) throw new UnrecoverableError(err.message);
        throw err;
      }
    },
  };
}

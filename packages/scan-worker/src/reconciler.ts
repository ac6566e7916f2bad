import { SCAN_QUEUE } from "@ax/contracts";
import { listStaleActiveScans, requeueScan, touchScan, type Db } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";

/**
 * PostgreSQL is the record of which scans should run; Redis may forget (a restart without
 * persistence, an eviction). Every scan still queued or running whose job is gone, or whose
 * job ended while the scan did not, is put back on the queue. Returns how many were.
 */
export async function reconcile(deps: { db: Db; queue: JobQueue; logger: Logger; minAgeMs: number }): Promise<number> {
  const stale = await listStaleActiveScans(deps.db, deps.minAgeMs);
  let requeued = 0;
  for (const scan of stale) {
    const job = await deps.queue.queue(SCAN_QUEUE).getJob(scan.id);
    const state = job ? await job.getState() : "missing";
    if (state === "active" || state === "waiting" || state === "delayed" || state === "prioritized" || state === "waiting-children") {
      await touchScan(deps.db, scan.id);
      continue;
    }
    if (job) await job.remove().catch(() => undefined);
    if (scan.state === "running") await requeueScan(deps.db, scan.id);
    await deps.queue.enqueue("scan.run", { scan_id: scan.id, organization_id: scan.organization_id }, { jobId: scan.id });
    await touchScan(deps.db, scan.id);
    requeued++;
    deps.logger.info("re-enqueued scan whose job was lost", { scan_id: scan.id, job_state: state });
  }
  return requeued;
}

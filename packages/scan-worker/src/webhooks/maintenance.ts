import { listStalePendingDeliveries, pruneDeliveries } from "@ax/db";
import { enqueueDeliveries, type EmitDeps } from "@ax/events";

/**
 * Deliveries are recorded in PostgreSQL before their jobs are enqueued; a pending one whose
 * job is gone (Redis lost it, or the enqueue failed) is enqueued again. A job that still
 * exists keeps its id, so adding it again is a no-op.
 */
export async function reconcileDeliveries(deps: EmitDeps & { minAgeMs: number }): Promise<number> {
  if (!deps.queue) return 0;
  const stale = await listStalePendingDeliveries(deps.db, deps.minAgeMs);
  const missing: { delivery_id: string; organization_id: string }[] = [];
  for (const d of stale) {
    const job = await deps.queue.queue("webhooks").getJob(d.id);
    const state = job ? await job.getState() : "missing";
    if (state === "active" || state === "waiting" || state === "delayed" || state === "prioritized") continue;
    if (job) await job.remove().catch(() => undefined);
    missing.push({ delivery_id: d.id, organization_id: d.organization_id });
  }
  await enqueueDeliveries(deps, missing);
  if (missing.length) deps.logger.info("re-enqueued webhook deliveries whose jobs were lost", { count: missing.length });
  return missing.length;
}

export function pruneDeliveryLog(deps: EmitDeps): Promise<number> {
  return pruneDeliveries(deps.db, deps.config.webhooks.logMaxPerWebhook, deps.config.webhooks.logDays);
}

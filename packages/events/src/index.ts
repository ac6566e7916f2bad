import { createHash, randomUUID } from "node:crypto";
import type { Config } from "@ax/config";
import type { WebhookEvent, WebhookEventType } from "@ax/contracts";
import { recordWebhookEvent, scanCounts, type Db, type DeliveryRef, type Finding, type Scan } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";

/**
 * Building and emitting webhook events. Emitting records one pending delivery per
 * subscribed webhook in PostgreSQL, then enqueues a job per delivery (job id = delivery id).
 * A delivery whose job could not be enqueued stays pending and the reconciler enqueues it
 * later, so an event is never lost to a Redis hiccup, and never fails the action behind it.
 */

export interface EmitDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Absent (unit tests of the scan processor): deliveries wait for the reconciler. */
  queue?: JobQueue | undefined;
}

function event(type: WebhookEventType, organizationId: string, data: Record<string, unknown>, id: string = randomUUID()): WebhookEvent {
  return { id, type, created_at: new Date().toISOString(), organization_id: organizationId, data };
}

/** The same id for the same scan's ending, so that emitting it twice records it once. */
function scanEventId(type: string, scanId: string): string {
  const h = createHash("sha256").update(`${type}:${scanId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Without `counts`: emitWebhookEvent adds them as they are when the event is recorded (withCurrentCounts). */
export function scanEndedEvent(scan: Scan): WebhookEvent {
  const type = scan.state === "completed" ? "scan.completed" : "scan.failed";
  return event(
    type,
    scan.organization_id,
    {
      scan_id: scan.id,
      group_id: scan.group_id,
      project_id: scan.project_id,
      // Validated at POST /scan: never carries credentials.
      git_uri: scan.git_uri,
      branch: scan.branch,
      commit: scan.commit_sha,
      state: scan.state,
      error: scan.error,
    },
    scanEventId(type, scan.id),
  );
}

/** Fields with fixed vocabularies travel with their new value; free text only by name. */
const LABEL_FIELDS = new Set(["status", "severity", "likelihood", "confidence"]);

export function findingTriagedEvent(finding: Finding, changed: string[], userId: string): WebhookEvent {
  const changes: Record<string, string | null> = {};
  for (const f of changed) if (LABEL_FIELDS.has(f)) changes[f] = (finding as unknown as Record<string, string | null>)[f] ?? null;
  return event("finding.triaged", finding.organization_id, {
    scan_id: finding.scan_id,
    finding_id: finding.id,
    project_id: finding.project_id,
    changed_fields: changed,
    changes,
    version: finding.version,
    changed_by: userId,
  });
}

export function groupDeletedEvent(
  organizationId: string,
  groupId: string,
  deleted: { projects: number; scans: number; findings: number },
): WebhookEvent {
  return event("group.deleted", organizationId, { group_id: groupId, deleted });
}

export function testEvent(organizationId: string, webhookId: string): WebhookEvent {
  return event("webhook.test", organizationId, { webhook_id: webhookId, message: "This is a test delivery." });
}

export async function enqueueDeliveries(deps: EmitDeps, refs: { delivery_id: string; organization_id: string }[]): Promise<void> {
  if (!deps.queue) return;
  const { attempts, backoffMs } = deps.config.webhooks;
  for (const r of refs)
    await deps.queue.enqueue(
      "webhook.deliver",
      { delivery_id: r.delivery_id, organization_id: r.organization_id },
      { jobId: r.delivery_id, attempts, backoffMs },
    );
}

/**
 * A scan event carries the scan's counts as GET /scan/{id} shows them: computed from its
 * findings (which already hold the triage carried from earlier scans), not the column written
 * at store time. Added here, where the database is at hand, because events are built from the
 * scan row alone.
 */
async function withCurrentCounts(db: Db, ev: WebhookEvent): Promise<WebhookEvent> {
  const scanId = ev.data.scan_id;
  if ((ev.type !== "scan.completed" && ev.type !== "scan.failed") || typeof scanId !== "string") return ev;
  const counts = (await scanCounts(db, ev.organization_id, [scanId])).get(scanId) ?? {};
  return { ...ev, data: { ...ev.data, counts } };
}

/** Records and enqueues; never throws (the caller's action has already happened). */
export async function emitWebhookEvent(deps: EmitDeps, ev: WebhookEvent, opts: { webhookId?: string } = {}): Promise<DeliveryRef[]> {
  let refs: DeliveryRef[] = [];
  try {
    refs = await recordWebhookEvent(deps.db, await withCurrentCounts(deps.db, ev), opts);
    await enqueueDeliveries(
      deps,
      refs.map((r) => ({ delivery_id: r.delivery_id, organization_id: ev.organization_id })),
    );
  } catch (err) {
    deps.logger.warn("webhook event not fully enqueued; the reconciler retries pending deliveries", {
      event_type: ev.type,
      event_id: ev.id,
      error: err,
    });
  }
  return refs;
}

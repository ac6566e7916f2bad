import { sql } from "kysely";
import type { WebhookEvent } from "@ax/contracts";
import type { Db } from "./client";
import { newId } from "./ids";
import type { Webhook, WebhookDelivery } from "./schema";

/** Webhooks and their delivery log. Every query names the organization. */

export interface NewWebhook {
  organizationId: string;
  url: string;
  events: string[];
  /** Already sealed (webhook-secrets.ts). */
  secret: string;
  createdBy: string | null;
}

export function createWebhook(db: Db, input: NewWebhook): Promise<Webhook> {
  return db
    .insertInto("webhooks")
    .values({
      id: newId(),
      organization_id: input.organizationId,
      url: input.url,
      events: input.events,
      secret: input.secret,
      created_by: input.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

type Page = { created_at: Date; id: string } | undefined;

/** Oldest first, so that a page boundary never moves while webhooks are added. */
export function listWebhooks(db: Db, organizationId: string, after: Page, limit: number): Promise<Webhook[]> {
  let q = db.selectFrom("webhooks").selectAll().where("organization_id", "=", organizationId);
  if (after) q = q.where(sql<boolean>`(created_at, id) > (${after.created_at}, ${after.id})`);
  return q.orderBy("created_at").orderBy("id").limit(limit).execute();
}

export function getWebhook(db: Db, organizationId: string, webhookId: string): Promise<Webhook | undefined> {
  return db.selectFrom("webhooks").selectAll().where("organization_id", "=", organizationId).where("id", "=", webhookId).executeTakeFirst();
}

export function updateWebhook(
  db: Db,
  organizationId: string,
  webhookId: string,
  patch: { url?: string | undefined; events?: string[] | undefined; active?: boolean | undefined; secret?: string | undefined },
): Promise<Webhook | undefined> {
  return db
    .updateTable("webhooks")
    .set({
      ...(patch.url !== undefined ? { url: patch.url } : {}),
      ...(patch.events !== undefined ? { events: patch.events } : {}),
      ...(patch.active !== undefined ? { active: patch.active } : {}),
      ...(patch.secret !== undefined ? { secret: patch.secret } : {}),
      updated_at: sql`now()`,
    })
    .where("organization_id", "=", organizationId)
    .where("id", "=", webhookId)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a webhook; its deliveries go with it (ON DELETE CASCADE). */
export async function deleteWebhook(db: Db, organizationId: string, webhookId: string): Promise<boolean> {
  const res = await db.deleteFrom("webhooks").where("organization_id", "=", organizationId).where("id", "=", webhookId).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export interface DeliveryRef {
  delivery_id: string;
  webhook_id: string;
}

/**
 * One pending delivery per active webhook of the organization subscribed to the event (or
 * to the one webhook named, for test events). Recording the same event id twice adds
 * nothing, so an event emitted again by a retried job is delivered once.
 */
export async function recordWebhookEvent(db: Db, event: WebhookEvent, opts: { webhookId?: string } = {}): Promise<DeliveryRef[]> {
  let q = db.selectFrom("webhooks").select("id").where("organization_id", "=", event.organization_id);
  q = opts.webhookId ? q.where("id", "=", opts.webhookId) : q.where("active", "=", true).where(sql<boolean>`${event.type} = ANY(events)`);
  const hooks = await q.execute();
  if (hooks.length === 0) return [];
  const rows = await db
    .insertInto("webhook_deliveries")
    .values(
      hooks.map((h) => ({
        id: newId(),
        webhook_id: h.id,
        organization_id: event.organization_id,
        event_id: event.id,
        event_type: event.type,
        payload: JSON.stringify(event),
      })),
    )
    .onConflict((oc) => oc.columns(["webhook_id", "event_id"]).doNothing())
    .returning(["id", "webhook_id"])
    .execute();
  return rows.map((r) => ({ delivery_id: r.id, webhook_id: r.webhook_id }));
}

export type DeliveryForJob = WebhookDelivery & { url: string; secret: string; active: boolean };

export function getDeliveryForJob(db: Db, organizationId: string, deliveryId: string): Promise<DeliveryForJob | undefined> {
  return db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhooks as w", "w.id", "d.webhook_id")
    .selectAll("d")
    .select(["w.url", "w.secret", "w.active"])
    .where("d.organization_id", "=", organizationId)
    .where("d.id", "=", deliveryId)
    .executeTakeFirst();
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  /** No further attempt will follow (success, or the last one). */
  final: boolean;
  nextAttemptAt: Date | null;
}

export async function recordDeliveryAttempt(db: Db, deliveryId: string, r: AttemptResult): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({
      attempts: sql`attempts + 1`,
      last_status: r.status,
      last_error: r.error,
      duration_ms: Math.round(r.durationMs),
      state: r.ok ? "delivered" : r.final ? "failed" : "pending",
      delivered_at: r.ok ? sql`now()` : null,
      next_attempt_at: r.ok || r.final ? null : r.nextAttemptAt,
      updated_at: sql`now()`,
    })
    .where("id", "=", deliveryId)
    .execute();
}

/** A delivery that will not be sent (its webhook was switched off): closed without an attempt. */
export async function closeDelivery(db: Db, deliveryId: string, error: string): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ state: "failed", last_error: error, next_attempt_at: null, updated_at: sql`now()` })
    .where("id", "=", deliveryId)
    .where("state", "=", "pending")
    .execute();
}

/** A webhook's delivery log, newest first. */
export function listDeliveries(db: Db, organizationId: string, webhookId: string, before: Page, limit: number): Promise<WebhookDelivery[]> {
  let q = db.selectFrom("webhook_deliveries").selectAll().where("organization_id", "=", organizationId).where("webhook_id", "=", webhookId);
  if (before) q = q.where(sql<boolean>`(created_at, id) < (${before.created_at}, ${before.id})`);
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
}

/** Deliveries still pending that have not moved for a while: their jobs may be lost. */
export function listStalePendingDeliveries(db: Db, olderThanMs: number, limit = 500) {
  return db
    .selectFrom("webhook_deliveries")
    .select(["id", "organization_id"])
    .where("state", "=", "pending")
    .where("updated_at", "<", new Date(Date.now() - olderThanMs))
    .where((eb) => eb.or([eb("next_attempt_at", "is", null), eb("next_attempt_at", "<", new Date(Date.now() - olderThanMs))]))
    .orderBy("updated_at")
    .limit(limit)
    .execute();
}

/** Keeps the newest `maxPerWebhook` deliveries of each webhook, none older than `days`. */
export async function pruneDeliveries(db: Db, maxPerWebhook: number, days: number): Promise<number> {
  const old = await db
    .deleteFrom("webhook_deliveries")
    .where("created_at", "<", new Date(Date.now() - days * 86_400_000))
    .executeTakeFirst();
  const over = await sql`
    DELETE FROM webhook_deliveries d USING (
      SELECT id FROM (
        SELECT id, row_number() OVER (PARTITION BY webhook_id ORDER BY created_at DESC, id DESC) AS n FROM webhook_deliveries
      ) ranked WHERE n > ${maxPerWebhook}
    ) extra WHERE d.id = extra.id`.execute(db);
  return Number(old.numDeletedRows) + Number(over.numAffectedRows ?? 0);
}

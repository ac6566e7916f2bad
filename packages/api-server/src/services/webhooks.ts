import { randomBytes } from "node:crypto";
import { checkWebhookUrl } from "@ax/contracts";
import { getWebhook, isId, sealSecret, type Finding, type Webhook, type WebhookDelivery } from "@ax/db";
import { emitWebhookEvent, findingTriagedEvent, groupDeletedEvent, testEvent, type EmitDeps } from "@ax/events";
import type { WebhookEvent } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { badRequest, notFound } from "../http/errors";

/** `whsec_` + 32 random bytes, base64url: shown once, on creation and on rotation. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64url")}`;
}

export const sealWebhookSecret = (deps: AppDeps, secret: string) => sealSecret(secret, deps.config.webhooks.secretKey);

/** The URL policy (https, no internal hosts) as a 400 that names the reason. */
export function checkedWebhookUrl(deps: AppDeps, url: string): string {
  const checked = checkWebhookUrl(url, { allowInsecure: deps.config.webhooks.allowInsecureTargets });
  if (!checked.ok) throw badRequest(`Invalid body: ${checked.reason}`, [{ path: "body.url", message: checked.reason }]);
  return checked.url.toString();
}

export async function loadWebhook(deps: AppDeps, organizationId: string, webhookId: string): Promise<Webhook> {
  const hook = isId(webhookId) ? await getWebhook(deps.db, organizationId, webhookId) : undefined;
  if (!hook) throw notFound("Webhook");
  return hook;
}

const emitDeps = (deps: AppDeps): EmitDeps => ({ db: deps.db, config: deps.config, logger: deps.logger, queue: deps.queue });

/** After the action committed: never fails the request (emitWebhookEvent logs instead). */
export const emit = (deps: AppDeps, event: WebhookEvent, opts: { webhookId?: string } = {}) =>
  emitWebhookEvent(emitDeps(deps), event, opts);

export const emitFindingTriaged = (deps: AppDeps, finding: Finding, changed: string[], userId: string) =>
  emit(deps, findingTriagedEvent(finding, changed, userId));

export const emitGroupDeleted = (
  deps: AppDeps,
  organizationId: string,
  groupId: string,
  deleted: { projects: number; scans: number; findings: number },
) => emit(deps, groupDeletedEvent(organizationId, groupId, deleted));

/** A webhook.test delivery to one webhook; undefined when the webhook is gone. */
export async function sendTestEvent(deps: AppDeps, organizationId: string, webhookId: string) {
  const event = testEvent(organizationId, webhookId);
  const [ref] = await emit(deps, event, { webhookId });
  return ref ? { delivery_id: ref.delivery_id, event_id: event.id } : undefined;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** Never the secret: it is shown once, by the create and rotate answers only. */
export function presentWebhook(w: Webhook) {
  return {
    webhook_id: w.id,
    organization_id: w.organization_id,
    url: w.url,
    events: w.events,
    active: w.active,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
  };
}

export function presentDelivery(d: WebhookDelivery) {
  return {
    delivery_id: d.id,
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    event_type: d.event_type,
    state: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    duration_ms: d.duration_ms,
    created_at: iso(d.created_at),
    delivered_at: iso(d.delivered_at),
    next_attempt_at: iso(d.next_attempt_at),
  };
}

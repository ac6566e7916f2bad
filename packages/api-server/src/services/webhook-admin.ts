import type { DeliveryView, WebhookCreateBody, WebhookUpdateBody, WebhookView } from "@ax/contracts";
import { createWebhook, deleteWebhook, isId, listDeliveries, listWebhooks, updateWebhook, type Webhook } from "@ax/db";
import type { AppDeps } from "../http/context";
import { notFound } from "../http/errors";
import { timeKeyOf, timePage } from "./paging";
import {
  checkedWebhookUrl,
  loadWebhook,
  newWebhookSecret,
  presentDelivery,
  presentWebhook,
  sealWebhookSecret,
  sendTestEvent,
} from "./webhooks";

/**
 * An organization's webhooks as its admins manage them (the routes check the role). Secrets are
 * made here and shown once: in the answer to a create or a rotation.
 */

type Page<K extends string, T> = Record<K, T[]> & { next_cursor: string | null };

export async function webhookPage(
  deps: AppDeps,
  organizationId: string,
  cursor: string | undefined,
  limit: number,
): Promise<Page<"webhooks", WebhookView>> {
  const page = timePage(await listWebhooks(deps.db, organizationId, timeKeyOf(cursor), limit + 1), limit);
  return { webhooks: page.items.map(presentWebhook), next_cursor: page.next_cursor };
}

export async function addWebhook(deps: AppDeps, organizationId: string, userId: string, body: WebhookCreateBody) {
  const url = checkedWebhookUrl(deps, body.url);
  const secret = newWebhookSecret();
  const hook = await createWebhook(deps.db, {
    organizationId,
    url,
    events: body.events,
    secret: sealWebhookSecret(deps, secret),
    createdBy: userId,
  });
  const created = body.active === false ? ((await updateWebhook(deps.db, organizationId, hook.id, { active: false })) ?? hook) : hook;
  deps.logger.info("webhook created", { organization_id: organizationId, webhook_id: hook.id });
  return { ...presentWebhook(created), secret };
}

/** An update of a webhook that must still be there afterwards (404 if deleted meanwhile). */
async function changeWebhook(
  deps: AppDeps,
  organizationId: string,
  webhookId: string,
  patch: Parameters<typeof updateWebhook>[3],
): Promise<Webhook> {
  const hook = await updateWebhook(deps.db, organizationId, webhookId, patch);
  if (!hook) throw notFound("Webhook");
  return hook;
}

export async function editWebhook(deps: AppDeps, organizationId: string, webhookId: string, body: WebhookUpdateBody): Promise<WebhookView> {
  await loadWebhook(deps, organizationId, webhookId);
  const url = body.url === undefined ? undefined : checkedWebhookUrl(deps, body.url);
  return presentWebhook(await changeWebhook(deps, organizationId, webhookId, { url, events: body.events, active: body.active }));
}

export async function removeWebhook(deps: AppDeps, organizationId: string, webhookId: string) {
  if (!isId(webhookId) || !(await deleteWebhook(deps.db, organizationId, webhookId))) throw notFound("Webhook");
  deps.logger.info("webhook deleted", { organization_id: organizationId, webhook_id: webhookId });
  return { message: "Webhook deleted", webhook_id: webhookId };
}

export async function rotateWebhookSecret(deps: AppDeps, organizationId: string, webhookId: string) {
  await loadWebhook(deps, organizationId, webhookId);
  const secret = newWebhookSecret();
  const hook = await changeWebhook(deps, organizationId, webhookId, { secret: sealWebhookSecret(deps, secret) });
  deps.logger.info("webhook secret rotated", { organization_id: organizationId, webhook_id: hook.id });
  return { ...presentWebhook(hook), secret };
}

export async function testWebhook(deps: AppDeps, organizationId: string, webhookId: string) {
  const hook = await loadWebhook(deps, organizationId, webhookId);
  const sent = await sendTestEvent(deps, organizationId, hook.id);
  if (!sent) throw notFound("Webhook"); // deleted meanwhile
  return sent;
}

export async function deliveryPage(
  deps: AppDeps,
  organizationId: string,
  webhookId: string,
  cursor: string | undefined,
  limit: number,
): Promise<Page<"deliveries", DeliveryView>> {
  const hook = await loadWebhook(deps, organizationId, webhookId);
  const page = timePage(await listDeliveries(deps.db, organizationId, hook.id, timeKeyOf(cursor), limit + 1), limit);
  return { deliveries: page.items.map(presentDelivery), next_cursor: page.next_cursor };
}

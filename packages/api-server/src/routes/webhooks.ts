import { z } from "zod";
import { WEBHOOK_EVENTS, bodyObject } from "@ax/contracts";
import { createWebhook, deleteWebhook, isId, listDeliveries, listWebhooks, updateWebhook } from "@ax/db";
import type { AppDeps } from "../http/context";
import { badRequest, notFound } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, ErrorBody, Id, Limit, commonErrors, listOf } from "../http/schemas";
import { requireRole } from "../services/access";
import { decodeCursor, encodeCursor } from "../services/presenters";
import { checkedWebhookUrl, loadWebhook, sendTestEvent, newWebhookSecret, presentDelivery, presentWebhook, sealWebhookSecret } from "../services/webhooks";

/**
 * Organization webhooks. Every endpoint, reads included, is for admins and owners: a target
 * URL often carries a capability of its own (chat incoming-webhook URLs do), so viewers and
 * members do not see them (docs/decisions.md).
 */

const OrgParams = z.object({ organization_id: Id });
const HookParams = OrgParams.extend({ webhook_id: Id });
const Url = z.string({ error: "url is required and must be a string." }).max(2048, { error: "url must be at most 2048 characters." });
const Events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `events must be a list of: ${WEBHOOK_EVENTS.join(", ")}.` }), { error: "events must be a list of event names." })
  .min(1, { error: "events must name at least one event." })
  .max(WEBHOOK_EVENTS.length * 4)
  .transform((v) => [...new Set(v)]);
const WebhookCreateBody = bodyObject({ url: Url, events: Events, active: z.boolean({ error: "active must be true or false." }).optional() });
const WebhookUpdateBody = bodyObject({ url: Url.optional(), events: Events.optional(), active: z.boolean({ error: "active must be true or false." }).optional() }).refine(
  (b) => b.url !== undefined || b.events !== undefined || b.active !== undefined,
  { error: "Body must set at least one of url, events, active." },
);

const WebhookView = z.object({
  webhook_id: z.string(),
  organization_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
const WithSecret = WebhookView.extend({ secret: z.string().describe("whsec_…; shown only in this answer.") });
const DeliveryView = z.object({
  delivery_id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  state: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  created_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
});

type PageKey = { t: string; id: string };
const isPageKey = (v: unknown): v is PageKey => {
  const c = v as { t?: unknown; id?: unknown };
  return typeof c === "object" && c !== null && typeof c.t === "string" && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(c.t) && Number.isFinite(Date.parse(c.t)) && typeof c.id === "string" && isId(c.id);
};

function pageKey(cursor: string | undefined) {
  const c = decodeCursor(cursor, isPageKey);
  if (cursor && !c) throw badRequest("Invalid query: cursor is not valid.");
  return c ? { created_at: new Date(c.t), id: c.id } : undefined;
}

function page<T extends { id: string; created_at: Date }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_cursor: rows.length > limit && last ? encodeCursor({ t: new Date(last.created_at).toISOString(), id: last.id }) : null };
}

const adminOnly = { 403: { description: "Only admins and owners manage webhooks.", schema: ErrorBody } };

export function webhookRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "get",
      path: "/organization/:organization_id/webhooks",
      operationId: "listWebhooks",
      summary: "Webhooks of an organization (admin or owner)",
      tags: ["Webhooks"],
      params: OrgParams,
      query: z.object({ cursor: Cursor, limit: Limit(200, 100) }),
      responses: { 200: { description: "A page of webhooks, oldest first.", schema: listOf("webhooks", WebhookView) }, ...commonErrors, ...adminOnly },
      handler: async ({ params, query, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        const p = page(await listWebhooks(deps.db, params.organization_id, pageKey(query.cursor), query.limit + 1), query.limit);
        return { webhooks: p.items.map(presentWebhook), next_cursor: p.next_cursor };
      },
    }),
    defineRoute({
      method: "post",
      path: "/organization/:organization_id/webhooks",
      operationId: "createWebhook",
      summary: "Create a webhook (admin or owner)",
      description: "The target must be https and must not point at a private, loopback or link-local address. The answer carries the signing secret, which is never shown again (rotate it to get a new one). See docs/webhooks.md.",
      tags: ["Webhooks"],
      params: OrgParams,
      body: WebhookCreateBody,
      responses: { 200: { description: "The new webhook and its secret.", schema: WithSecret }, ...commonErrors, ...adminOnly },
      handler: async ({ params, body, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        const url = checkedWebhookUrl(deps, body.url);
        const secret = newWebhookSecret();
        const hook = await createWebhook(deps.db, { organizationId: params.organization_id, url, events: body.events, secret: sealWebhookSecret(deps, secret), createdBy: principal.user.id });
        const created = body.active === false ? ((await updateWebhook(deps.db, params.organization_id, hook.id, { active: false })) ?? hook) : hook;
        deps.logger.info("webhook created", { organization_id: params.organization_id, webhook_id: hook.id });
        return { ...presentWebhook(created), secret };
      },
    }),
    defineRoute({
      method: "get",
      path: "/organization/:organization_id/webhooks/:webhook_id",
      operationId: "getWebhook",
      summary: "One webhook (admin or owner)",
      tags: ["Webhooks"],
      params: HookParams,
      responses: { 200: { description: "The webhook.", schema: WebhookView }, ...commonErrors, ...adminOnly },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        return presentWebhook(await loadWebhook(deps, params.organization_id, params.webhook_id));
      },
    }),
    defineRoute({
      method: "patch",
      path: "/organization/:organization_id/webhooks/:webhook_id",
      operationId: "updateWebhook",
      summary: "Change a webhook's url, events or active flag (admin or owner)",
      tags: ["Webhooks"],
      params: HookParams,
      body: WebhookUpdateBody,
      responses: { 200: { description: "The webhook as changed.", schema: WebhookView }, ...commonErrors, ...adminOnly },
      handler: async ({ params, body, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        await loadWebhook(deps, params.organization_id, params.webhook_id);
        const url = body.url === undefined ? undefined : checkedWebhookUrl(deps, body.url);
        const hook = await updateWebhook(deps.db, params.organization_id, params.webhook_id, { url, events: body.events, active: body.active });
        if (!hook) throw notFound("Webhook");
        return presentWebhook(hook);
      },
    }),
    defineRoute({
      method: "delete",
      path: "/organization/:organization_id/webhooks/:webhook_id",
      operationId: "deleteWebhook",
      summary: "Delete a webhook and its delivery log (admin or owner)",
      tags: ["Webhooks"],
      params: HookParams,
      responses: { 200: { description: "Deleted.", schema: z.object({ message: z.string(), webhook_id: z.string() }) }, ...commonErrors, ...adminOnly },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        if (!isId(params.webhook_id) || !(await deleteWebhook(deps.db, params.organization_id, params.webhook_id))) throw notFound("Webhook");
        deps.logger.info("webhook deleted", { organization_id: params.organization_id, webhook_id: params.webhook_id });
        return { message: "Webhook deleted", webhook_id: params.webhook_id };
      },
    }),
    defineRoute({
      method: "post",
      path: "/organization/:organization_id/webhooks/:webhook_id/rotate-secret",
      operationId: "rotateWebhookSecret",
      summary: "Replace a webhook's signing secret (admin or owner)",
      description: "Deliveries sent from now on, retries of earlier events included, are signed with the new secret. The answer is the only time it is shown.",
      tags: ["Webhooks"],
      params: HookParams,
      responses: { 200: { description: "The webhook and its new secret.", schema: WithSecret }, ...commonErrors, ...adminOnly },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        await loadWebhook(deps, params.organization_id, params.webhook_id);
        const secret = newWebhookSecret();
        const hook = await updateWebhook(deps.db, params.organization_id, params.webhook_id, { secret: sealWebhookSecret(deps, secret) });
        if (!hook) throw notFound("Webhook");
        deps.logger.info("webhook secret rotated", { organization_id: params.organization_id, webhook_id: hook.id });
        return { ...presentWebhook(hook), secret };
      },
    }),
    defineRoute({
      method: "post",
      path: "/organization/:organization_id/webhooks/:webhook_id/test",
      operationId: "testWebhook",
      summary: "Send a webhook.test event to this webhook (admin or owner)",
      description: "Queues one delivery, sent even when the webhook is inactive; follow it in the delivery log.",
      tags: ["Webhooks"],
      params: HookParams,
      responses: { 200: { description: "The queued delivery.", schema: z.object({ delivery_id: z.string(), event_id: z.string() }) }, ...commonErrors, ...adminOnly },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        const hook = await loadWebhook(deps, params.organization_id, params.webhook_id);
        const sent = await sendTestEvent(deps, params.organization_id, hook.id);
        if (!sent) throw notFound("Webhook"); // deleted meanwhile
        return sent;
      },
    }),
    defineRoute({
      method: "get",
      path: "/organization/:organization_id/webhooks/:webhook_id/deliveries",
      operationId: "listWebhookDeliveries",
      summary: "A webhook's delivery log, newest first (admin or owner)",
      description: "Kept per webhook for the newest WEBHOOK_LOG_MAX_PER_WEBHOOK deliveries (1000) and at most WEBHOOK_LOG_DAYS (30) days.",
      tags: ["Webhooks"],
      params: HookParams,
      query: z.object({ cursor: Cursor, limit: Limit(200, 50) }),
      responses: { 200: { description: "A page of deliveries.", schema: listOf("deliveries", DeliveryView) }, ...commonErrors, ...adminOnly },
      handler: async ({ params, query, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        const hook = await loadWebhook(deps, params.organization_id, params.webhook_id);
        const p = page(await listDeliveries(deps.db, params.organization_id, hook.id, pageKey(query.cursor), query.limit + 1), query.limit);
        return { deliveries: p.items.map(presentDelivery), next_cursor: p.next_cursor };
      },
    }),
  ];
}

import { z } from "zod";
import {
  DeliveryView,
  ErrorBody,
  Id,
  WebhookCreateBody,
  WebhookDeleted,
  WebhookTestQueued,
  WebhookUpdateBody,
  WebhookView,
  WebhookWithSecret,
  listOf,
} from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit, commonErrors } from "../http/schemas";
import { requireRole } from "../services/access";
import {
  addWebhook,
  deliveryPage,
  editWebhook,
  removeWebhook,
  rotateWebhookSecret,
  testWebhook,
  webhookPage,
} from "../services/webhook-admin";
import { loadWebhook, presentWebhook } from "../services/webhooks";

/**
 * Organization webhooks. Every endpoint, reads included, is for admins and owners: a target
 * URL often carries a capability of its own (chat incoming-webhook URLs do), so viewers and
 * members do not see them (docs/decisions.md).
 */

const OrgParams = z.object({ organization_id: Id });
const HookParams = OrgParams.extend({ webhook_id: Id });
const adminOnly = { 403: { description: "Only admins and owners manage webhooks.", schema: ErrorBody } };
const hooks = { tags: ["Webhooks"] };

const listWebhooksRoute = (deps: AppDeps) =>
  defineRoute({
    ...hooks,
    method: "get",
    path: "/organization/:organization_id/webhooks",
    operationId: "listWebhooks",
    summary: "Webhooks of an organization (admin or owner)",
    params: OrgParams,
    query: z.object({ cursor: Cursor, limit: Limit(200, 100) }),
    responses: {
      200: { description: "A page of webhooks, oldest first.", schema: listOf("webhooks", WebhookView) },
      ...commonErrors,
      ...adminOnly,
    },
    handler: async ({ params, query, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return webhookPage(deps, params.organization_id, query.cursor, query.limit);
    },
  });

const CREATE_DESCRIPTION =
  "The target must be https and must not point at a private, loopback or link-local address. The answer carries the signing secret, " +
  "which is never shown again (rotate it to get a new one). See docs/webhooks.md.";

const createWebhookRoute = (deps: AppDeps) =>
  defineRoute({
    ...hooks,
    method: "post",
    path: "/organization/:organization_id/webhooks",
    operationId: "createWebhook",
    summary: "Create a webhook (admin or owner)",
    description: CREATE_DESCRIPTION,
    params: OrgParams,
    body: WebhookCreateBody,
    responses: { 200: { description: "The new webhook and its secret.", schema: WebhookWithSecret }, ...commonErrors, ...adminOnly },
    handler: async ({ params, body, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return addWebhook(deps, params.organization_id, principal.user.id, body);
    },
  });

/** A route on one webhook: admins and owners of its organization, then `run`. */
function hookRoute<B extends z.ZodType = z.ZodObject<Record<string, never>>>(
  deps: AppDeps,
  def: { method: "get" | "post" | "patch" | "delete"; path: string; operationId: string; summary: string; description?: string; body?: B },
  answer: { description: string; schema: z.ZodType },
  run: (organizationId: string, webhookId: string, body: z.output<B>) => Promise<unknown>,
) {
  return defineRoute({
    ...hooks,
    ...def,
    path: `/organization/:organization_id/webhooks/:webhook_id${def.path}`,
    params: HookParams,
    responses: { 200: answer, ...commonErrors, ...adminOnly },
    handler: async ({ params, principal, body }) => {
      requireRole(principal, params.organization_id, "admin");
      return run(params.organization_id, params.webhook_id, body);
    },
  });
}

const oneWebhookRoutes = (deps: AppDeps) => [
  hookRoute(
    deps,
    { method: "get", path: "", operationId: "getWebhook", summary: "One webhook (admin or owner)" },
    { description: "The webhook.", schema: WebhookView },
    async (org, id) => presentWebhook(await loadWebhook(deps, org, id)),
  ),
  hookRoute(
    deps,
    {
      method: "patch",
      path: "",
      operationId: "updateWebhook",
      summary: "Change a webhook's url, events or active flag (admin or owner)",
      body: WebhookUpdateBody,
    },
    { description: "The webhook as changed.", schema: WebhookView },
    (org, id, body) => editWebhook(deps, org, id, body),
  ),
  hookRoute(
    deps,
    { method: "delete", path: "", operationId: "deleteWebhook", summary: "Delete a webhook and its delivery log (admin or owner)" },
    { description: "Deleted.", schema: WebhookDeleted },
    (org, id) => removeWebhook(deps, org, id),
  ),
  hookRoute(
    deps,
    {
      method: "post",
      path: "/rotate-secret",
      operationId: "rotateWebhookSecret",
      summary: "Replace a webhook's signing secret (admin or owner)",
      description:
        "Deliveries sent from now on, retries of earlier events included, are signed with the new secret. The answer is the only time it is shown.",
    },
    { description: "The webhook and its new secret.", schema: WebhookWithSecret },
    (org, id) => rotateWebhookSecret(deps, org, id),
  ),
  hookRoute(
    deps,
    {
      method: "post",
      path: "/test",
      operationId: "testWebhook",
      summary: "Send a webhook.test event to this webhook (admin or owner)",
      description: "Queues one delivery, sent even when the webhook is inactive; follow it in the delivery log.",
    },
    { description: "The queued delivery.", schema: WebhookTestQueued },
    (org, id) => testWebhook(deps, org, id),
  ),
];

const listDeliveriesRoute = (deps: AppDeps) =>
  defineRoute({
    ...hooks,
    method: "get",
    path: "/organization/:organization_id/webhooks/:webhook_id/deliveries",
    operationId: "listWebhookDeliveries",
    summary: "A webhook's delivery log, newest first (admin or owner)",
    description: "Kept per webhook for the newest WEBHOOK_LOG_MAX_PER_WEBHOOK deliveries (1000) and at most WEBHOOK_LOG_DAYS (30) days.",
    params: HookParams,
    query: z.object({ cursor: Cursor, limit: Limit(200, 50) }),
    responses: { 200: { description: "A page of deliveries.", schema: listOf("deliveries", DeliveryView) }, ...commonErrors, ...adminOnly },
    handler: async ({ params, query, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return deliveryPage(deps, params.organization_id, params.webhook_id, query.cursor, query.limit);
    },
  });

export const webhookRoutes = (deps: AppDeps): AnyRoute[] => [
  listWebhooksRoute(deps),
  createWebhookRoute(deps),
  ...oneWebhookRoutes(deps),
  listDeliveriesRoute(deps),
];

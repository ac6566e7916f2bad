import { z } from "zod";
import { bodyObject } from "../body";
import { WEBHOOK_EVENTS } from "../webhook";

/** Request bodies and responses of the Webhooks endpoints (docs/api.md, docs/webhooks.md). */

const Url = z.string({ error: "url is required and must be a string." }).max(2048, { error: "url must be at most 2048 characters." });
const Events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `events must be a list of: ${WEBHOOK_EVENTS.join(", ")}.` }), {
    error: "events must be a list of event names.",
  })
  .min(1, { error: "events must name at least one event." })
  .max(WEBHOOK_EVENTS.length * 4)
  .transform((v) => [...new Set(v)]);
const Active = z.boolean({ error: "active must be true or false." });

export const WebhookCreateBody = bodyObject({ url: Url, events: Events, active: Active.optional() });
export type WebhookCreateBody = z.infer<typeof WebhookCreateBody>;

export const WebhookUpdateBody = bodyObject({ url: Url.optional(), events: Events.optional(), active: Active.optional() }).refine(
  (b) => b.url !== undefined || b.events !== undefined || b.active !== undefined,
  { error: "Body must set at least one of url, events, active." },
);
export type WebhookUpdateBody = z.infer<typeof WebhookUpdateBody>;

export const WebhookView = z.object({
  webhook_id: z.string(),
  organization_id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type WebhookView = z.output<typeof WebhookView>;

/** A webhook with its signing secret: the create and rotate answers only. */
export const WebhookWithSecret = WebhookView.extend({ secret: z.string().describe("whsec_…; shown only in this answer.") });

export const DeliveryView = z.object({
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
export type DeliveryView = z.output<typeof DeliveryView>;

export const WebhookDeleted = z.object({ message: z.string(), webhook_id: z.string() });
export const WebhookTestQueued = z.object({ delivery_id: z.string(), event_id: z.string() });

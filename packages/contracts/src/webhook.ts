import { createHmac, timingSafeEqual } from "node:crypto";
import { isInternalAddress } from "./git-uri";

/**
 * Webhooks: the events an organization can subscribe to, the policy for target URLs, and
 * the signature scheme. Shared by the API (checks a URL when it is saved) and the worker
 * (checks it again, and every address it resolves to, before each delivery).
 */

export const WEBHOOK_EVENTS = ["scan.completed", "scan.failed", "finding.triaged", "group.deleted"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number] | "webhook.test";

/** What every delivery's body is. `data` holds ids, counts and states: never secrets or code. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

export interface WebhookUrlPolicy {
  /** Allow http:// and loopback targets (tests, local setups): WEBHOOK_ALLOW_INSECURE_TARGETS. */
  allowInsecure: boolean;
}

export type WebhookUrlCheck = { ok: true; url: URL; host: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;

export function checkWebhookUrl(raw: string, policy: WebhookUrlPolicy): WebhookUrlCheck {
  const text = raw.trim();
  if (text.length === 0) return { ok: false, reason: "url must not be empty." };
  if (text.length > MAX_URL_LENGTH) return { ok: false, reason: `url must be at most ${MAX_URL_LENGTH} characters.` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\s]/.test(text)) return { ok: false, reason: "url must not contain whitespace or control characters." };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "url is not a valid URL." };
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== "https" && !(policy.allowInsecure && scheme === "http")) return { ok: false, reason: "url must use https." };
  // Credentials in a URL end up in logs and proxies; the signature authenticates us instead.
  if (url.username || url.password) return { ok: false, reason: "url must not contain credentials." };
  if (url.hash) return { ok: false, reason: "url must not contain a fragment." };
  const host = url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (!host) return { ok: false, reason: "url must name a host." };
  // Internal names are refused even for tests; "localhost" is loopback, allowed with the flag.
  if (host.endsWith(".local") || host.endsWith(".internal"))
    return { ok: false, reason: "url must not point at a local or internal host." };
  if ((host === "localhost" || host.endsWith(".localhost")) && !policy.allowInsecure)
    return { ok: false, reason: "url must not point at a local or internal host." };
  if (!isAllowedTargetAddress(host, policy))
    return { ok: false, reason: "url must not point at a private, loopback or link-local address." };
  return { ok: true, url, host };
}

/**
 * Whether a resolved address may be connected to. With allowInsecure only loopback is let
 * through, never the private networks a deployment's internal services live on.
 */
export function isAllowedTargetAddress(address: string, policy: WebhookUrlPolicy): boolean {
  if (!isInternalAddress(address)) return true;
  return policy.allowInsecure && isLoopback(address);
}

function isLoopback(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  return a === "::1" || /^127\.\d+\.\d+\.\d+$/.test(a) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(a);
}

export const SIGNATURE_HEADER = "X-AX-Signature";
export const EVENT_HEADER = "X-AX-Event";
export const DELIVERY_HEADER = "X-AX-Delivery";
/** Receivers should refuse signatures older than this (docs/webhooks.md). */
export const SIGNATURE_TOLERANCE_S = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signWebhookBody(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

/** The receiver's side, as docs/webhooks.md describes it (used by our tests). */
export function verifyWebhookSignature(secret: string, body: string, header: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = new Map(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > SIGNATURE_TOLERANCE_S) return false;
  const expected = Buffer.from(signWebhookBody(secret, body, t).split("v1=")[1]!, "hex");
  const given = Buffer.from(v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

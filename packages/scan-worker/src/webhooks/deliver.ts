import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import type { Job } from "bullmq";
import type { Config } from "@ax/config";
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  checkWebhookUrl,
  isAllowedTargetAddress,
  signWebhookBody,
  type JobData,
} from "@ax/contracts";
import { closeDelivery, getDeliveryForJob, openSecret, recordDeliveryAttempt, type Db } from "@ax/db";
import type { Logger } from "@ax/logger";
import { resolveWithSystem, type ResolveHost } from "@ax/scanner";

export interface DeliverDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Name resolution; tests inject one so that no name is ever looked up for real. */
  resolveHost?: ResolveHost | undefined;
}

/** Enough of a response body to tell a receiver's error page; the rest is never read. */
const MAX_RESPONSE_BYTES = 1024;

export class DeliveryFailedError extends Error {}

interface AttemptOutcome {
  status: number | null;
  error: string | null;
}

/**
 * One attempt of one delivery. A 2xx answer delivers it; anything else (another status, a
 * redirect, which is never followed, a timeout, a refused address) is a failed attempt,
 * thrown so that BullMQ retries it with backoff until WEBHOOK_ATTEMPTS.
 */
export async function deliverWebhook(deps: DeliverDeps, data: JobData<"webhook.deliver">, job: Job): Promise<void> {
  const delivery = await getDeliveryForJob(deps.db, data.organization_id, data.delivery_id);
  if (!delivery || delivery.state !== "pending") return; // webhook deleted, or already settled
  if (!delivery.active && delivery.event_type !== "webhook.test") {
    await closeDelivery(deps.db, delivery.id, "The webhook is inactive.");
    return;
  }
  const maxAttempts = job.opts.attempts ?? 1;
  const attempt = job.attemptsMade + 1;
  const started = performance.now();
  let outcome: AttemptOutcome;
  try {
    const secret = openSecret(delivery.secret, deps.config.webhooks.secretKey);
    const body = JSON.stringify(delivery.payload);
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "ax-webhooks/1",
      [SIGNATURE_HEADER]: signWebhookBody(secret, body, Math.floor(Date.now() / 1000)),
      [EVENT_HEADER]: delivery.event_type,
      [DELIVERY_HEADER]: delivery.id,
    };
    outcome = await post(deps, delivery.url, headers, body);
  } catch (err) {
    outcome = { status: null, error: (err as Error).message };
  }
  const durationMs = performance.now() - started;
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const final = ok || attempt >= maxAttempts;
  const error = ok ? null : (outcome.error ?? `The receiver answered ${outcome.status ?? "nothing"}.`);
  const backoff = deps.config.webhooks.backoffMs * 2 ** (attempt - 1);
  await recordDeliveryAttempt(deps.db, delivery.id, {
    ok,
    status: outcome.status,
    error,
    durationMs,
    final,
    nextAttemptAt: final ? null : new Date(Date.now() + backoff),
  });
  const log = deps.logger.child({ delivery_id: delivery.id, webhook_id: delivery.webhook_id, event_type: delivery.event_type, attempt });
  if (ok) {
    log.info("webhook delivered", { status: outcome.status, duration_ms: Math.round(durationMs) });
    return;
  }
  log.warn(final ? "webhook delivery failed for good" : "webhook delivery attempt failed", { status: outcome.status, error });
  throw new DeliveryFailedError(error ?? "delivery failed");
}

/** Resolves the host, refuses internal answers, and connects to exactly the address checked. */
function pinnedLookup(resolve: ResolveHost, allowInsecure: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0) throw new Error(`The host ${hostname} could not be resolved.`);
        if (addresses.some((a) => !isAllowedTargetAddress(a, { allowInsecure }))) {
          throw new Error(`The host ${hostname} resolves to a private, loopback or link-local address; not connected.`);
        }
        const address = addresses[0]!;
        const family = isIP(address);
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      })
      .catch((err: Error) => callback(Object.assign(new Error(err.message), { code: "EREFUSED" }), "", 0));
  };
}

function post(deps: DeliverDeps, rawUrl: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
  const { allowInsecureTargets: allowInsecure, timeoutMs } = deps.config.webhooks;
  // The URL was checked when it was saved; the policy may have tightened since.
  const checked = checkWebhookUrl(rawUrl, { allowInsecure });
  if (!checked.ok) return Promise.resolve({ status: null, error: checked.reason });
  if (isIP(checked.host) && !isAllowedTargetAddress(checked.host, { allowInsecure })) {
    return Promise.resolve({ status: null, error: "The URL points at a private, loopback or link-local address; not connected." });
  }
  const client = checked.url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const req = client.request(
      checked.url,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(deps.resolveHost ?? resolveWithSystem, allowInsecure),
        agent: false,
      },
      (res) => {
        // Read a little, then hang up: a receiver cannot make us buffer its whole answer.
        let seen = 0;
        res.on("data", (chunk: Buffer) => {
          seen += chunk.length;
          if (seen >= MAX_RESPONSE_BYTES) res.destroy();
        });
        const status = res.statusCode ?? null;
        res.on("end", () => done({ status, error: null }));
        res.on("close", () => done({ status, error: null }));
        res.on("error", () => done({ status, error: null }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: null, error: `No answer within ${timeoutMs} ms.` });
    }, timeoutMs);
    req.on("error", (err) => done({ status: null, error: err.message }));
    req.end(body);
  });
}

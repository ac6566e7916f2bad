import { createHash, randomBytes } from "node:crypto";
import type { Job, Queue } from "bullmq";
import type { Request } from "express";
import { getUser, type Principal } from "@ax/db";
import { child, redact } from "@ax/logger";
import { QUEUE_NAMES } from "@ax/queue";
import type { AppDeps } from "../http/context";
import { AppError, forbidden, notFound } from "../http/errors";

/**
 * The Admin tag: instance operators (`is_instance_admin`) only, whatever their roles in
 * organizations. Everyone else with a valid token gets 403; no token, 401 (as everywhere).
 */
export function requireInstanceAdmin(principal: Principal): void {
  if (!principal.user.is_instance_admin) throw forbidden("Only instance administrators may use the Admin endpoints.");
}

/** One of the service's queues; any other name is 404, like an unknown resource. */
export function adminQueue(deps: AppDeps, name: string): Queue {
  if (!QUEUE_NAMES.includes(name)) throw notFound("Queue");
  return deps.queue.queue(name);
}

/** Admin actions are logged with who did them; never the token, never job data. */
export function auditAdmin(
  deps: AppDeps,
  principal: Principal | { user: { id: string } },
  action: string,
  fields: Record<string, unknown> = {},
): void {
  child(deps.logger, "api").info("admin action", { action, user_id: principal.user.id, ...fields });
}

/**
 * A failed job as admins see it. Job data and failure reasons may carry git URIs with
 * credentials in them, tokens or secrets (an error message quoting a clone command): the
 * logger's redaction removes URL userinfo, axk_ tokens, whsec_ secrets and secret-named keys.
 * Stack traces are not shown (they are in the worker's log).
 */
export function presentFailedJob(job: Job) {
  const data = redact(job.data ?? {}) as Record<string, unknown>;
  const scanId = typeof data.scan_id === "string" ? data.scan_id : null;
  return {
    job_id: job.id ?? "",
    name: job.name,
    scan_id: scanId,
    data,
    failed_reason: typeof job.failedReason === "string" ? (redact(job.failedReason) as string) : null,
    attempts_made: job.attemptsMade,
    max_attempts: job.opts.attempts ?? 1,
    created_at: job.timestamp ? new Date(job.timestamp).toISOString() : null,
    failed_at: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
  };
}

// --- Dashboard sessions -------------------------------------------------------------------

export const SESSION_COOKIE = "ax_admin_session";
export const DASHBOARD_PATH = "/admin/queues";
const COOKIE_PATH = "/admin";

export interface AdminSession {
  user_id: string;
  read_only: boolean;
  expires_at: string;
}

/** Sessions live in Redis under the deployment's prefix, keyed by a hash of the cookie value. */
const sessionKey = (deps: AppDeps, secret: string) =>
  `${deps.config.redis.queuePrefix}:admin-session:${createHash("sha256").update(secret).digest("hex")}`;

/** Stores a new session and sets its cookie on the response. */
export async function openSession(deps: AppDeps, req: Request, userId: string, readOnly: boolean): Promise<AdminSession> {
  const ttl = deps.config.admin.sessionTtlMs;
  const secret = randomBytes(32).toString("base64url");
  const session: AdminSession = { user_id: userId, read_only: readOnly, expires_at: new Date(Date.now() + ttl).toISOString() };
  await deps.redis.set(sessionKey(deps, secret), JSON.stringify(session), "PX", ttl);
  const attrs = [`${SESSION_COOKIE}=${secret}`, `Path=${COOKIE_PATH}`, `Max-Age=${Math.floor(ttl / 1000)}`, "HttpOnly", "SameSite=Strict"];
  if (req.secure) attrs.push("Secure");
  req.res?.append("Set-Cookie", attrs.join("; "));
  return session;
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.get("Cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The caller's dashboard session, or null; a session whose user lost admin rights is ended. */
export async function readSession(deps: AppDeps, req: Request): Promise<AdminSession | null> {
  const secret = cookieValue(req, SESSION_COOKIE);
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const key = sessionKey(deps, secret);
  const raw = await deps.redis.get(key);
  if (!raw) return null;
  const session = JSON.parse(raw) as AdminSession;
  const user = await getUser(deps.db, session.user_id);
  if (!user?.is_instance_admin) {
    await deps.redis.del(key);
    return null;
  }
  return session;
}

export const dashboardUnauthorized = () =>
  new AppError(
    401,
    "unauthorized",
    "An admin dashboard session (POST /api/v2/admin/session) or an instance admin's token in the X-AX-KEY header is required.",
  );

/** Every string in a JSON value through the logger's redaction; keys and shape unchanged. */
export function redactStrings(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object" || depth > 32) return value;
  if (Array.isArray(value)) return value.map((v) => redactStrings(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v, depth + 1)]));
}

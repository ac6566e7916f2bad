import {
  QUEUE_NAMES,
  WorkerRegistry,
  listFailed,
  removeAllFailed,
  removeFailedJob,
  retryAllFailed,
  retryFailedJob,
  summarizeQueue,
  type FailedJobOutcome,
} from "@ax/queue";
import type { Principal } from "@ax/db";
import type { AdminSessionView } from "@ax/contracts";
import type { Request } from "express";
import type { AppDeps } from "../http/context";
import { conflict, notFound } from "../http/errors";
import { DASHBOARD_PATH, adminQueue, auditAdmin, openSession, presentFailedJob } from "./admin";
import { offsetOf } from "./paging";
import { encodeCursor } from "./presenters";

/** The Admin endpoints' work on the workers and queues (instance admins; the routes check). */

export async function listWorkers(deps: AppDeps) {
  return { workers: await new WorkerRegistry(deps.redis, deps.config.redis.queuePrefix).list(), next_cursor: null };
}

export async function listQueues(deps: AppDeps) {
  return { queues: await Promise.all(QUEUE_NAMES.map((n) => summarizeQueue(deps.queue.queue(n)))), next_cursor: null };
}

/** Pause or resume a queue for every worker process (the pause is kept in Redis). */
export async function setQueuePaused(deps: AppDeps, principal: Principal, name: string, action: "pause" | "resume") {
  const queue = adminQueue(deps, name);
  await (action === "pause" ? queue.pause() : queue.resume());
  auditAdmin(deps, principal, `queue.${action}`, { queue: name });
  return summarizeQueue(queue);
}

/** A page of a queue's failed jobs, by position, most recent failure first. */
export async function failedJobPage(deps: AppDeps, name: string, cursor: string | undefined, limit: number) {
  const offset = offsetOf(cursor);
  const page = await listFailed(adminQueue(deps, name), offset, limit);
  const next = offset + limit < page.total ? encodeCursor({ o: offset + limit }) : null;
  return { jobs: page.jobs.map(presentFailedJob), total: page.total, next_cursor: next };
}

/** Retry or remove every failed job of a queue; how many. */
export async function onAllFailed(deps: AppDeps, principal: Principal, name: string, op: "retry" | "remove"): Promise<number> {
  const count = await (op === "retry" ? retryAllFailed : removeAllFailed)(adminQueue(deps, name));
  auditAdmin(deps, principal, op === "retry" ? "failed.retry_all" : "failed.remove_all", { queue: name, count });
  return count;
}

/** Retry or remove one failed job: 404 for an unknown job, 409 for one that is not failed. */
export async function onFailedJob(deps: AppDeps, principal: Principal, name: string, jobId: string, op: "retry" | "remove"): Promise<void> {
  const outcome: FailedJobOutcome = await (op === "retry" ? retryFailedJob : removeFailedJob)(adminQueue(deps, name), jobId);
  if (outcome === "not_found") throw notFound("Job");
  if (outcome === "not_failed") throw conflict("The job is not in the failed state.");
  auditAdmin(deps, principal, op === "retry" ? "failed.retry" : "failed.remove", { queue: name, job_id: jobId });
}

/** POST /admin/session: a dashboard session, read-only when the deployment or the caller asks. */
export async function openDashboardSession(
  deps: AppDeps,
  principal: Principal,
  req: Request,
  readOnlyAsked: boolean,
): Promise<AdminSessionView> {
  const readOnly = deps.config.admin.dashboardReadOnly || readOnlyAsked;
  const session = await openSession(deps, req, principal.user.id, readOnly);
  auditAdmin(deps, principal, "session.open", { read_only: readOnly });
  const maxAge = Math.floor(deps.config.admin.sessionTtlMs / 1000);
  return { dashboard_url: DASHBOARD_PATH, read_only: readOnly, expires_at: session.expires_at, max_age_seconds: maxAge };
}

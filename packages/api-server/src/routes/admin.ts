import { z } from "zod";
import { WorkerRecord } from "@ax/contracts";
import { COUNTED_STATES, QUEUE_NAMES, WorkerRegistry, listFailed, removeAllFailed, removeFailedJob, retryAllFailed, retryFailedJob, summarizeQueue, type FailedJobOutcome } from "@ax/queue";
import type { AppDeps } from "../http/context";
import { badRequest, conflict, notFound } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, ErrorBody, Id, Limit, QueryBool, commonErrors, listOf } from "../http/schemas";
import { DASHBOARD_PATH, adminQueue, auditAdmin, openSession, presentFailedJob, requireInstanceAdmin } from "../services/admin";
import { decodeCursor, encodeCursor } from "../services/presenters";

/**
 * The Admin tag (DESIGN §5): the scan workers and their queues, for instance admins only.
 * Details and the dashboard: docs/admin.md.
 */

const QueueParams = z.object({ name: Id.describe(`One of: ${QUEUE_NAMES.join(", ")}.`) });
const JobParams = QueueParams.extend({ job_id: Id });

const QueueView = z.object({
  name: z.string(),
  paused: z.boolean(),
  counts: z.object(Object.fromEntries([...COUNTED_STATES, "paused"].map((s) => [s, z.number().int()]))).describe("Jobs per state; `paused` is the waiting jobs a pause holds back."),
});
const FailedJobView = z.object({
  job_id: z.string(),
  name: z.string(),
  scan_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).describe("The job's payload; credentials in URLs, tokens and secrets redacted."),
  failed_reason: z.string().nullable().describe("Redacted like `data`."),
  attempts_made: z.number().int(),
  max_attempts: z.number().int(),
  created_at: z.string().nullable(),
  failed_at: z.string().nullable(),
});
const Message = (extra: Record<string, z.ZodType>) => z.object({ message: z.string(), ...extra });

const adminErrors = {
  ...commonErrors,
  403: { description: "The caller is not an instance administrator.", schema: ErrorBody },
};

const isOffset = (v: unknown): v is { o: number } => typeof v === "object" && v !== null && Number.isInteger((v as { o?: unknown }).o) && (v as { o: number }).o >= 0;

function offsetOf(cursor: string | undefined): number {
  const c = decodeCursor(cursor, isOffset);
  if (cursor && !c) throw badRequest("Invalid query: cursor is not valid.");
  return c?.o ?? 0;
}

function checkOutcome(outcome: FailedJobOutcome): void {
  if (outcome === "not_found") throw notFound("Job");
  if (outcome === "not_failed") throw conflict("The job is not in the failed state.");
}

/** Retry or remove every failed job of a queue. */
const BULK = [
  {
    method: "post",
    operationId: "retryAllFailedJobs",
    summary: "Retry every failed job of a queue (instance admins)",
    description: undefined,
    answer: "How many failed jobs were moved back to waiting.",
    key: "retried",
    run: retryAllFailed,
    action: "failed.retry_all",
    message: "Failed jobs retried",
  },
  {
    method: "delete",
    operationId: "removeAllFailedJobs",
    summary: "Remove every failed job of a queue (instance admins)",
    description: "Removes the jobs from Redis only; the scans' state in PostgreSQL is unchanged.",
    answer: "How many failed jobs were removed.",
    key: "removed",
    run: removeAllFailed,
    action: "failed.remove_all",
    message: "Failed jobs removed",
  },
] as const;

/** Retry or remove one failed job. */
const SINGLE = [
  { method: "post", operationId: "retryFailedJob", summary: "Retry one failed job, with its attempts reset (instance admins)", answer: "Moved back to waiting.", run: retryFailedJob, action: "failed.retry", message: "Job retried" },
  { method: "delete", operationId: "removeFailedJob", summary: "Remove one failed job (instance admins)", answer: "Removed.", run: removeFailedJob, action: "failed.remove", message: "Job removed" },
] as const;

export function adminRoutes(deps: AppDeps): AnyRoute[] {
  const route = { tags: ["Admin"], responses: adminErrors };
  return [
    defineRoute({
      ...route,
      method: "get",
      path: "/admin/workers",
      operationId: "listWorkers",
      summary: "Worker processes running now (instance admins)",
      description:
        "Each worker registers itself in Redis and refreshes its entry every WORKER_HEARTBEAT_MS; an entry disappears WORKER_HEARTBEAT_TTL_MS after the last heartbeat (a crashed worker) or at once on a graceful stop. The list is complete (`next_cursor` is always null).",
      responses: { 200: { description: "The registered workers, oldest first.", schema: listOf("workers", WorkerRecord) }, ...adminErrors },
      handler: async ({ principal }) => {
        requireInstanceAdmin(principal);
        return { workers: await new WorkerRegistry(deps.redis, deps.config.redis.queuePrefix).list(), next_cursor: null };
      },
    }),
    defineRoute({
      ...route,
      method: "get",
      path: "/admin/queues",
      operationId: "listQueues",
      summary: "The service's queues with job counts by state (instance admins)",
      responses: { 200: { description: "Every queue (complete list; `next_cursor` is always null).", schema: listOf("queues", QueueView) }, ...adminErrors },
      handler: async ({ principal }) => {
        requireInstanceAdmin(principal);
        return { queues: await Promise.all(QUEUE_NAMES.map((n) => summarizeQueue(deps.queue.queue(n)))), next_cursor: null };
      },
    }),
    ...(["pause", "resume"] as const).map((action) =>
      defineRoute({
        ...route,
        method: "post",
        path: `/admin/queues/:name/${action}`,
        operationId: `${action}Queue`,
        summary: action === "pause" ? "Pause a queue: workers finish running jobs but take no new ones (instance admins)" : "Resume a paused queue (instance admins)",
        description: "Applies to every worker process (the pause is kept in Redis). Repeating it is harmless.",
        params: QueueParams,
        responses: { 200: { description: "The queue and its counts after the change.", schema: QueueView }, ...adminErrors },
        handler: async ({ params, principal }) => {
          requireInstanceAdmin(principal);
          const queue = adminQueue(deps, params.name);
          await (action === "pause" ? queue.pause() : queue.resume());
          auditAdmin(deps, principal, `queue.${action}`, { queue: params.name });
          return summarizeQueue(queue);
        },
      }),
    ),
    defineRoute({
      ...route,
      method: "get",
      path: "/admin/queues/:name/failed",
      operationId: "listFailedJobs",
      summary: "Failed jobs of a queue, most recent failure first (instance admins)",
      description: "Failed jobs are kept 7 days (at most 10,000 per queue). The cursor is a position: jobs failing meanwhile shift the pages.",
      params: QueueParams,
      query: z.object({ cursor: Cursor, limit: Limit(200, 50) }),
      responses: { 200: { description: "A page of failed jobs and how many there are in all.", schema: listOf("jobs", FailedJobView).extend({ total: z.number().int() }) }, ...adminErrors },
      handler: async ({ params, query, principal }) => {
        requireInstanceAdmin(principal);
        const offset = offsetOf(query.cursor);
        const page = await listFailed(adminQueue(deps, params.name), offset, query.limit);
        const next = offset + query.limit < page.total ? encodeCursor({ o: offset + query.limit }) : null;
        return { jobs: page.jobs.map(presentFailedJob), total: page.total, next_cursor: next };
      },
    }),
    ...BULK.map((b) =>
      defineRoute({
        ...route,
        method: b.method,
        path: "/admin/queues/:name/failed" + (b.method === "post" ? "/retry" : ""),
        operationId: b.operationId,
        summary: b.summary,
        description: b.description,
        params: QueueParams,
        responses: { 200: { description: b.answer, schema: Message({ [b.key]: z.number().int() }) }, ...adminErrors },
        handler: async ({ params, principal }) => {
          requireInstanceAdmin(principal);
          const count = await b.run(adminQueue(deps, params.name));
          auditAdmin(deps, principal, b.action, { queue: params.name, count });
          return { message: b.message, [b.key]: count };
        },
      }),
    ),
    ...SINGLE.map((one) =>
      defineRoute({
        ...route,
        method: one.method,
        path: "/admin/queues/:name/failed/:job_id" + (one.method === "post" ? "/retry" : ""),
        operationId: one.operationId,
        summary: one.summary,
        params: JobParams,
        responses: { 200: { description: one.answer, schema: Message({ job_id: z.string() }) }, ...adminErrors, 409: { description: "The job is not in the failed state.", schema: ErrorBody } },
        handler: async ({ params, principal }) => {
          requireInstanceAdmin(principal);
          checkOutcome(await one.run(adminQueue(deps, params.name), params.job_id));
          auditAdmin(deps, principal, one.action, { queue: params.name, job_id: params.job_id });
          return { message: one.message, job_id: params.job_id };
        },
      }),
    ),
    defineRoute({
      ...route,
      method: "post",
      path: "/admin/session",
      operationId: "createAdminSession",
      summary: "A session cookie for the queue dashboard at /admin/queues (instance admins)",
      description:
        "Sets `ax_admin_session` (HttpOnly, SameSite=Strict, Path=/admin, Secure over https), valid for ADMIN_SESSION_TTL_MS (15 minutes); it is not renewed by use. `read_only=true` makes this session's dashboard read-only even when ADMIN_DASHBOARD_READ_ONLY is false. The session ends early when the user loses instance admin rights.",
      query: z.object({ read_only: QueryBool.describe("true: a read-only dashboard session.") }),
      responses: {
        200: {
          description: "The session; its secret is only in the Set-Cookie header.",
          schema: z.object({ dashboard_url: z.string(), read_only: z.boolean(), expires_at: z.string(), max_age_seconds: z.number().int() }),
        },
        ...adminErrors,
      },
      handler: async ({ query, principal, req }) => {
        requireInstanceAdmin(principal);
        const readOnly = deps.config.admin.dashboardReadOnly || query.read_only === true;
        const session = await openSession(deps, req, principal.user.id, readOnly);
        auditAdmin(deps, principal, "session.open", { read_only: readOnly });
        return { dashboard_url: DASHBOARD_PATH, read_only: readOnly, expires_at: session.expires_at, max_age_seconds: Math.floor(deps.config.admin.sessionTtlMs / 1000) };
      },
    }),
  ];
}

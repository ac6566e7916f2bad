import { z } from "zod";
import { AdminSessionView, ErrorBody, FailedJobView, Id, WorkerRecord, listOf } from "@ax/contracts";
import { COUNTED_STATES, QUEUE_NAMES } from "@ax/queue";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit, QueryBool, commonErrors } from "../http/schemas";
import { requireInstanceAdmin } from "../services/admin";
import { failedJobPage, listQueues, listWorkers, onAllFailed, onFailedJob, openDashboardSession, setQueuePaused } from "../services/queues";

/**
 * The Admin tag (DESIGN §5): the scan workers and their queues, for instance admins only.
 * Details and the dashboard: docs/admin.md.
 */

const QueueParams = z.object({ name: Id.describe(`One of: ${QUEUE_NAMES.join(", ")}.`) });
const JobParams = QueueParams.extend({ job_id: Id });

const QueueView = z.object({
  name: z.string(),
  paused: z.boolean(),
  counts: z
    .object(Object.fromEntries([...COUNTED_STATES, "paused"].map((s) => [s, z.number().int()])))
    .describe("Jobs per state; `paused` is the waiting jobs a pause holds back."),
});
const Message = (extra: Record<string, z.ZodType>) => z.object({ message: z.string(), ...extra });

const adminErrors = {
  ...commonErrors,
  403: { description: "The caller is not an instance administrator.", schema: ErrorBody },
};
const admin = { tags: ["Admin"], responses: adminErrors };

const WORKERS_DESCRIPTION =
  "Each worker registers itself in Redis and refreshes its entry every WORKER_HEARTBEAT_MS; an entry disappears WORKER_HEARTBEAT_TTL_MS after " +
  "the last heartbeat (a crashed worker) or at once on a graceful stop. The list is complete (`next_cursor` is always null).";

const workerAndQueueRoutes = (deps: AppDeps) => [
  defineRoute({
    ...admin,
    method: "get",
    path: "/admin/workers",
    operationId: "listWorkers",
    summary: "Worker processes running now (instance admins)",
    description: WORKERS_DESCRIPTION,
    responses: { 200: { description: "The registered workers, oldest first.", schema: listOf("workers", WorkerRecord) }, ...adminErrors },
    handler: async ({ principal }) => {
      requireInstanceAdmin(principal);
      return listWorkers(deps);
    },
  }),
  defineRoute({
    ...admin,
    method: "get",
    path: "/admin/queues",
    operationId: "listQueues",
    summary: "The service's queues with job counts by state (instance admins)",
    responses: {
      200: { description: "Every queue (complete list; `next_cursor` is always null).", schema: listOf("queues", QueueView) },
      ...adminErrors,
    },
    handler: async ({ principal }) => {
      requireInstanceAdmin(principal);
      return listQueues(deps);
    },
  }),
  ...(["pause", "resume"] as const).map((action) =>
    defineRoute({
      ...admin,
      method: "post",
      path: `/admin/queues/:name/${action}`,
      operationId: `${action}Queue`,
      summary:
        action === "pause"
          ? "Pause a queue: workers finish running jobs but take no new ones (instance admins)"
          : "Resume a paused queue (instance admins)",
      description: "Applies to every worker process (the pause is kept in Redis). Repeating it is harmless.",
      params: QueueParams,
      responses: { 200: { description: "The queue and its counts after the change.", schema: QueueView }, ...adminErrors },
      handler: async ({ params, principal }) => {
        requireInstanceAdmin(principal);
        return setQueuePaused(deps, principal, params.name, action);
      },
    }),
  ),
];

const listFailedRoute = (deps: AppDeps) =>
  defineRoute({
    ...admin,
    method: "get",
    path: "/admin/queues/:name/failed",
    operationId: "listFailedJobs",
    summary: "Failed jobs of a queue, most recent failure first (instance admins)",
    description:
      "Failed jobs are kept 7 days (at most 10,000 per queue). The cursor is a position: jobs failing meanwhile shift the pages.",
    params: QueueParams,
    query: z.object({ cursor: Cursor, limit: Limit(200, 50) }),
    responses: {
      200: {
        description: "A page of failed jobs and how many there are in all.",
        schema: listOf("jobs", FailedJobView).extend({ total: z.number().int() }),
      },
      ...adminErrors,
    },
    handler: async ({ params, query, principal }) => {
      requireInstanceAdmin(principal);
      return failedJobPage(deps, params.name, query.cursor, query.limit);
    },
  });

/** Retry or remove every failed job of a queue. */
const BULK = [
  {
    op: "retry",
    operationId: "retryAllFailedJobs",
    summary: "Retry every failed job of a queue (instance admins)",
    description: undefined,
  },
  {
    op: "remove",
    operationId: "removeAllFailedJobs",
    summary: "Remove every failed job of a queue (instance admins)",
    description: "Removes the jobs from Redis only; the scans' state in PostgreSQL is unchanged.",
  },
] as const;
const BULK_ANSWER = {
  retry: { answer: "How many failed jobs were moved back to waiting.", key: "retried", message: "Failed jobs retried" },
  remove: { answer: "How many failed jobs were removed.", key: "removed", message: "Failed jobs removed" },
} as const;

/** Retry or remove one failed job. */
const SINGLE = [
  {
    op: "retry",
    operationId: "retryFailedJob",
    summary: "Retry one failed job, with its attempts reset (instance admins)",
    answer: "Moved back to waiting.",
  },
  { op: "remove", operationId: "removeFailedJob", summary: "Remove one failed job (instance admins)", answer: "Removed." },
] as const;
const SINGLE_MESSAGE = { retry: "Job retried", remove: "Job removed" } as const;
const methodOf = (op: "retry" | "remove") => (op === "retry" ? "post" : "delete");

const failedJobRoutes = (deps: AppDeps) => [
  ...BULK.map((b) => {
    const { answer, key, message } = BULK_ANSWER[b.op];
    return defineRoute({
      ...admin,
      method: methodOf(b.op),
      path: "/admin/queues/:name/failed" + (b.op === "retry" ? "/retry" : ""),
      operationId: b.operationId,
      summary: b.summary,
      description: b.description,
      params: QueueParams,
      responses: { 200: { description: answer, schema: Message({ [key]: z.number().int() }) }, ...adminErrors },
      handler: async ({ params, principal }) => {
        requireInstanceAdmin(principal);
        return { message, [key]: await onAllFailed(deps, principal, params.name, b.op) };
      },
    });
  }),
  ...SINGLE.map((one) =>
    defineRoute({
      ...admin,
      method: methodOf(one.op),
      path: "/admin/queues/:name/failed/:job_id" + (one.op === "retry" ? "/retry" : ""),
      operationId: one.operationId,
      summary: one.summary,
      params: JobParams,
      responses: {
        200: { description: one.answer, schema: Message({ job_id: z.string() }) },
        ...adminErrors,
        409: { description: "The job is not in the failed state.", schema: ErrorBody },
      },
      handler: async ({ params, principal }) => {
        requireInstanceAdmin(principal);
        await onFailedJob(deps, principal, params.name, params.job_id, one.op);
        return { message: SINGLE_MESSAGE[one.op], job_id: params.job_id };
      },
    }),
  ),
];

const SESSION_DESCRIPTION =
  "Sets `ax_admin_session` (HttpOnly, SameSite=Strict, Path=/admin, Secure over https), valid for ADMIN_SESSION_TTL_MS (15 minutes); it is not " +
  "renewed by use. `read_only=true` makes this session's dashboard read-only even when ADMIN_DASHBOARD_READ_ONLY is false. The session ends " +
  "early when the user loses instance admin rights.";

const adminSessionRoute = (deps: AppDeps) =>
  defineRoute({
    ...admin,
    method: "post",
    path: "/admin/session",
    operationId: "createAdminSession",
    summary: "A session cookie for the queue dashboard at /admin/queues (instance admins)",
    description: SESSION_DESCRIPTION,
    query: z.object({ read_only: QueryBool.describe("true: a read-only dashboard session.") }),
    responses: {
      200: { description: "The session; its secret is only in the Set-Cookie header.", schema: AdminSessionView },
      ...adminErrors,
    },
    handler: async ({ query, principal, req }) => {
      requireInstanceAdmin(principal);
      return openDashboardSession(deps, principal, req, query.read_only === true);
    },
  });

export const adminRoutes = (deps: AppDeps): AnyRoute[] => [
  ...workerAndQueueRoutes(deps),
  listFailedRoute(deps),
  ...failedJobRoutes(deps),
  adminSessionRoute(deps),
];

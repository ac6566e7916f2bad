import type { Job, Queue } from "bullmq";
import { JobCatalog } from "@ax/contracts";

/**
 * What instance admins may see and do with the service's queues (GET/POST /api/v2/admin/...).
 * The queue names come from the job catalog, so a new queue is covered without a change here.
 */
export const QUEUE_NAMES: readonly string[] = [...new Set(Object.values(JobCatalog).map((e) => e.queue))];

/** States counted for each queue; `paused` is the waiting jobs a pause is holding back. */
export const COUNTED_STATES = ["waiting", "active", "delayed", "prioritized", "waiting-children", "completed", "failed"] as const;
export type CountedState = (typeof COUNTED_STATES)[number];

export interface QueueSummary {
  name: string;
  paused: boolean;
  counts: Record<CountedState | "paused", number>;
}

export async function summarizeQueue(queue: Queue): Promise<QueueSummary> {
  const [raw, paused] = await Promise.all([queue.getJobCounts(...COUNTED_STATES), queue.isPaused()]);
  const counts = Object.fromEntries(COUNTED_STATES.map((s) => [s, raw[s] ?? 0])) as Record<CountedState, number>;
  return { name: queue.name, paused, counts: { ...counts, paused: paused ? counts.waiting + counts.prioritized : 0 } };
}

export interface FailedPage {
  total: number;
  jobs: Job[];
}

/** Failed jobs, newest failure first. */
export async function listFailed(queue: Queue, offset: number, limit: number): Promise<FailedPage> {
  const [total, jobs] = await Promise.all([queue.getFailedCount(), queue.getFailed(offset, offset + limit - 1)]);
  return { total, jobs: jobs.filter((j): j is Job => Boolean(j)) };
}

export type FailedJobOutcome = "done" | "not_found" | "not_failed";

/** Finds a job that is in the failed state; anything else is left alone. */
async function failedJob(queue: Queue, jobId: string): Promise<Job | FailedJobOutcome> {
  const job = await queue.getJob(jobId);
  if (!job) return "not_found";
  return (await job.getState()) === "failed" ? job : "not_failed";
}

/** Moves one failed job back to waiting, with its attempts reset. */
export async function retryFailedJob(queue: Queue, jobId: string): Promise<FailedJobOutcome> {
  const job = await failedJob(queue, jobId);
  if (typeof job === "string") return job;
  await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
  return "done";
}

export async function removeFailedJob(queue: Queue, jobId: string): Promise<FailedJobOutcome> {
  const job = await failedJob(queue, jobId);
  if (typeof job === "string") return job;
  await job.remove();
  return "done";
}

/** Retries every failed job; returns how many there were. */
export async function retryAllFailed(queue: Queue): Promise<number> {
  const count = await queue.getFailedCount();
  if (count > 0) await queue.retryJobs({ state: "failed", count: 1000, timestamp: Date.now() + 1 });
  return count;
}

/** Removes every failed job; returns how many were removed. */
export async function removeAllFailed(queue: Queue): Promise<number> {
  let removed = 0;
  // In batches, so that one call never holds Redis for long.
  for (;;) {
    const ids = await queue.clean(0, 1000, "failed");
    removed += ids.length;
    if (ids.length < 1000) return removed;
  }
}

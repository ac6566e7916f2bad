import { Queue, type JobsOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";
import { JobCatalog, type JobData, type JobName } from "@ax/contracts";

/**
 * The queue side of the job catalog: one factory for connections and queue defaults, and a
 * typed producer. Job data holds identifiers only; everything else is read from PostgreSQL,
 * so nothing secret sits in Redis and losing Redis loses no scan state.
 */

export interface QueueSettings {
  redisUrl: string;
  prefix: string;
  attempts: number;
}

/** Producers fail fast when Redis is down (the API answers 503) instead of queueing in memory. */
export function producerConnection(url: string, extra: RedisOptions = {}): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 5_000, lazyConnect: false, ...extra });
  redis.on("error", () => undefined);
  return redis;
}

/**
 * Whether an error means Redis could not be reached (not connected yet, connection lost, retries
 * used up): the request may succeed shortly, so the API answers 503, not 500. Redis' own replies
 * (a WRONGTYPE, a script error) are not unavailability.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === "MaxRetriesPerRequestError") return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTCONN"].includes(code)) return true;
  return /^(Stream isn't writeable|Connection is closed)/.test(err.message);
}

/** Workers block on Redis and must retry forever across restarts (BullMQ requires null). */
export function workerConnection(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true });
  redis.on("error", () => undefined);
  return redis;
}

export function defaultJobOptions(attempts: number): JobsOptions {
  return {
    attempts,
    backoff: { type: "exponential", delay: 5_000 },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

export class JobQueue {
  readonly queues = new Map<string, Queue>();
  constructor(
    private readonly connection: Redis,
    private readonly settings: QueueSettings,
  ) {}

  queue(name: string): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, {
        connection: this.connection,
        prefix: this.settings.prefix,
        defaultJobOptions: defaultJobOptions(this.settings.attempts),
        streams: { events: { maxLen: 10_000 } },
      });
      q.on("error", () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  /**
   * Validates the payload against the catalog, then adds it. The job id dedupes repeats.
   * `attempts` and `backoffMs` override the queue's defaults (webhook deliveries have their own).
   */
  async enqueue<K extends JobName>(
    name: K,
    data: JobData<K>,
    opts: { jobId: string; attempts?: number; backoffMs?: number },
  ): Promise<void> {
    const entry = JobCatalog[name];
    const payload = entry.schema.parse(data);
    await this.queue(entry.queue).add(name, payload, {
      jobId: opts.jobId,
      ...(opts.attempts !== undefined ? { attempts: opts.attempts } : {}),
      ...(opts.backoffMs !== undefined ? { backoff: { type: "exponential", delay: opts.backoffMs } } : {}),
    });
  }

  /**
   * A job that repeats every `everyMs`, validated like any other. Upserting under a fixed
   * scheduler id keeps one schedule however many workers start (and updates its interval).
   */
  async schedule<K extends JobName>(name: K, data: JobData<K>, opts: { schedulerId: string; everyMs: number }): Promise<void> {
    const entry = JobCatalog[name];
    const payload = entry.schema.parse(data);
    await this.queue(entry.queue).upsertJobScheduler(
      opts.schedulerId,
      { every: opts.everyMs },
      { name, data: payload, opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 100 } },
    );
  }

  /** Removes a job that has not started; a running one is stopped by its scan's state instead. */
  async removeIfWaiting(queueName: string, jobId: string): Promise<boolean> {
    const job = await this.queue(queueName).getJob(jobId);
    if (!job) return false;
    const state = await job.getState();
    if (state === "waiting" || state === "delayed" || state === "prioritized") {
      await job.remove();
      return true;
    }
    return false;
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export { JobCatalog, type JobName, type JobData };
export { WorkerRegistry, startHeartbeat, type Heartbeat } from "./worker-registry";
export {
  QUEUE_NAMES,
  COUNTED_STATES,
  summarizeQueue,
  listFailed,
  retryFailedJob,
  removeFailedJob,
  retryAllFailed,
  removeAllFailed,
  type QueueSummary,
  type CountedState,
  type FailedPage,
  type FailedJobOutcome,
} from "./admin";
export { projectsDeletedChannel, publishProjectsDeleted, subscribeProjectsDeleted, type NoticeSubscription } from "./notices";

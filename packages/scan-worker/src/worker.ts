import os from "node:os";
import { Worker, type Job } from "bullmq";
import type { Config } from "@ax/config";
import { JobCatalog, MAINTENANCE_QUEUE, SCAN_QUEUE, WEBHOOK_QUEUE, type JobName, type WorkerActiveJob } from "@ax/contracts";
import { failScan, pingDb, pruneAnalysisCache, type Db } from "@ax/db";
import { child, type Logger } from "@ax/logger";
import type { Redis } from "ioredis";
import { JobQueue, WorkerRegistry, startHeartbeat, workerConnection } from "@ax/queue";
import { defaultAnalyzers, sweepStaleWorkspaces, type ResolveHost } from "@ax/scanner";
import { createHandlers } from "./handlers";
import { emitScanEnded, type ScanDeps } from "./process-scan";
import { PUBLIC_SCAN_EXPIRY_SCHEDULER } from "./public-scans";
import { startProjectStateJanitor } from "./project-state";
import { reconcile } from "./reconciler";
import { pruneDeliveryLog, reconcileDeliveries } from "./webhooks/maintenance";

export interface WorkerDeps {
  config: Config;
  db: Db;
  logger: Logger;
  /** Name resolution for webhook targets; tests inject one (default: the system's). */
  resolveHost?: ResolveHost;
}

export interface RunningWorker {
  id: string;
  worker: Worker;
  /** Stops taking jobs, lets running ones finish or hands them back, closes connections. */
  close(deadlineMs?: number): Promise<void>;
  reconcileNow(): Promise<number>;
  /** Resolves when the scan consumer runs and PostgreSQL and Redis answer (the health check's probe). */
  probe(): Promise<void>;
}

/**
 * Starts a BullMQ consumer of the scan queue plus the reconciler. Any number of these may run
 * on any number of machines against one Redis and one PostgreSQL.
 */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const { config } = deps;
  const log = child(deps.logger, "worker");
  const id = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  const { analyzers, janitor } = await prepareHost(deps, log);

  const producer = workerConnection(config.redis.url);
  const queue = new JobQueue(producer, { redisUrl: config.redis.url, prefix: config.redis.queuePrefix, attempts: config.worker.attempts });
  const webhookLog = child(deps.logger, "webhooks");
  const scanDeps = { db: deps.db, config, logger: child(deps.logger, "scan"), analyzers, queue };
  const handlers = createHandlers(scanDeps, { db: deps.db, config, logger: webhookLog, resolveHost: deps.resolveHost });
  // The worker registry (GET /api/v2/admin/workers): who runs, where, and which jobs it holds.
  const active = new Map<string, WorkerActiveJob>();
  const heartbeat = registryHeartbeat(producer, config, id, active, log);
  const consumers = startConsumers(config, id, jobProcessor(handlers, heartbeat, active, log), log, webhookLog);
  failStalledScans(consumers.worker, scanDeps, log);
  await consumers.ready();
  // Every worker upserts the same scheduler: one schedule, whichever workers are running.
  await queue
    .schedule("public-scan.expire", {}, { schedulerId: PUBLIC_SCAN_EXPIRY_SCHEDULER, everyMs: config.publicScan.sweepIntervalMs })
    .catch((err: Error) => log.warn("could not schedule public scan expiry", { error: err.message }));
  const housekeeping = await startHousekeeping(deps, queue, log, webhookLog);
  await heartbeat.beat();
  let closing: Promise<void> | undefined;
  log.info("worker started", { id, concurrency: config.worker.concurrency });

  const shutDown = async (deadlineMs: number) => {
    housekeeping.stop();
    janitor.close();
    const forced = await consumers.close(deadlineMs);
    // Gone from the registry at once; after a forced close its jobs are handed back anyway.
    await Promise.race([heartbeat.stop(true), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    await queue.close().catch(() => undefined);
    consumers.disconnect();
    producer.disconnect();
    log.info("worker stopped", { id, forced });
  };
  return {
    id,
    worker: consumers.worker,
    reconcileNow: housekeeping.reconcileNow,
    async probe() {
      if (!consumers.worker.isRunning()) throw new Error("the scan consumer is not running");
      await Promise.all([pingDb(deps.db), producer.ping()]);
    },
    close(deadlineMs = config.shutdownTimeoutMs) {
      // Idempotent: a second close (a test's, then its harness's) waits for the first.
      closing ??= shutDown(deadlineMs);
      return closing;
    },
  };
}

/** Before taking jobs: the analyzers, what dead workers left on disk, and the janitor of deleted projects' state. */
async function prepareHost(deps: WorkerDeps, log: Logger) {
  const { config } = deps;
  // Built once: an invalid SARIF_TOOLS stops the worker at start, not every scan.
  const analyzers = defaultAnalyzers({ sarifTools: config.scan.sarifTools });
  // Workspaces of workers that died without cleaning up (SIGKILL, a crashed machine): older
  // than the scan time limit, so no live scan owns them.
  const swept = await sweepStaleWorkspaces(config.worker.workspaceDir, config.scan.timeoutMs + 60_000);
  if (swept > 0) log.info("removed stale scan workspaces", { count: swept });
  // What this worker kept of projects deleted since (a group hard delete): removed now, on the
  // API's notice of each delete, and every hour for notices missed.
  const janitor = await startProjectStateJanitor({ db: deps.db, config, logger: log });
  return { analyzers, janitor };
}

type Heartbeat = ReturnType<typeof startHeartbeat>;

function registryHeartbeat(
  producer: Redis,
  config: Config,
  id: string,
  active: ReadonlyMap<string, WorkerActiveJob>,
  log: Logger,
): Heartbeat {
  const startedAt = new Date().toISOString();
  return startHeartbeat(new WorkerRegistry(producer, config.redis.queuePrefix), {
    everyMs: config.worker.heartbeatMs,
    ttlMs: config.worker.heartbeatTtlMs,
    snapshot: () => ({
      worker_id: id,
      host: os.hostname(),
      pid: process.pid,
      started_at: startedAt,
      heartbeat_at: new Date().toISOString(),
      concurrency: { [SCAN_QUEUE]: config.worker.concurrency, [WEBHOOK_QUEUE]: config.webhooks.concurrency, [MAINTENANCE_QUEUE]: 1 },
      active_jobs: [...active.values()],
    }),
    onError: (err) => log.warn("worker registry heartbeat failed", { error: err.message }),
  });
}

/** Runs a job of any queue through its handler, holding it in the registry's active jobs meanwhile. */
function jobProcessor(
  handlers: ReturnType<typeof createHandlers>,
  heartbeat: Heartbeat,
  active: Map<string, WorkerActiveJob>,
  log: Logger,
) {
  const runJob = async (job: Job) => {
    const name = job.name as JobName;
    const entry = JobCatalog[name];
    // Validate again on dequeue: a job from an older or newer producer may not fit.
    const parsed = entry?.schema.safeParse(job.data);
    if (!entry || !parsed?.success) {
      log.error("job payload does not match the catalog; dropped", { job: job.id, name: job.name });
      return;
    }
    // The catalog's schemas and the handler map share JobName; TypeScript cannot pair them
    // through an indexed access, so the pairing is asserted once, here.
    await (handlers[name] as (data: unknown, job: Job) => Promise<void>)(parsed.data, job);
  };
  return async (job: Job) => {
    const key = `${job.queueName}:${job.id ?? ""}`;
    const scanId = (job.data as { scan_id?: unknown } | undefined)?.scan_id;
    active.set(key, {
      queue: job.queueName,
      job_id: job.id ?? "",
      name: job.name,
      ...(typeof scanId === "string" ? { scan_id: scanId } : {}),
      started_at: new Date().toISOString(),
    });
    void heartbeat.beat();
    try {
      await runJob(job);
    } finally {
      active.delete(key);
      void heartbeat.beat();
    }
  };
}

/** The consumers of the scan, webhook and maintenance queues, each on its own connection. */
function startConsumers(config: Config, id: string, processor: (job: Job) => Promise<void>, log: Logger, webhookLog: Logger) {
  const connection = workerConnection(config.redis.url);
  const worker = new Worker(SCAN_QUEUE, processor, {
    connection,
    prefix: config.redis.queuePrefix,
    concurrency: config.worker.concurrency,
    lockDuration: config.worker.lockMs,
    stalledInterval: config.worker.stalledIntervalMs,
    maxStalledCount: 2,
    name: id,
  });
  // Deliveries have a queue of their own, so that a backlog of scans never delays them.
  const webhookConnection = workerConnection(config.redis.url);
  const webhookWorker = new Worker(WEBHOOK_QUEUE, processor, {
    connection: webhookConnection,
    prefix: config.redis.queuePrefix,
    concurrency: config.webhooks.concurrency,
    name: id,
  });
  webhookWorker.on("error", (err) => webhookLog.warn("queue connection error", { error: err.message }));
  // Housekeeping jobs (public scan retention) on a queue of their own, one at a time, so that
  // they neither wait behind scans nor take a scan's slot.
  const maintenanceConnection = workerConnection(config.redis.url);
  const maintenanceWorker = new Worker(MAINTENANCE_QUEUE, processor, {
    connection: maintenanceConnection,
    prefix: config.redis.queuePrefix,
    concurrency: 1,
    name: id,
  });
  maintenanceWorker.on("error", (err) => log.warn("queue connection error", { error: err.message }));
  worker.on("error", (err) => log.warn("queue connection error", { error: err.message }));
  const workers = [worker, webhookWorker, maintenanceWorker];
  return {
    worker,
    async ready(): Promise<void> {
      for (const w of workers) await w.waitUntilReady();
    },
    /** Closes the consumers within `deadlineMs`, then forcibly; true when it had to force. */
    close: (deadlineMs: number) => closeWorkers(workers, deadlineMs),
    disconnect(): void {
      connection.disconnect();
      webhookConnection.disconnect();
      maintenanceConnection.disconnect();
    },
  };
}

async function closeWorkers(workers: readonly Worker[], deadlineMs: number): Promise<boolean> {
  // worker.close() waits for running jobs and has no timeout of its own; past the
  // deadline force-close, which leaves the jobs' locks to expire so another worker
  // picks them up.
  let timedOut = false;
  await Promise.race([
    Promise.all(workers.map((w) => w.close())),
    new Promise<void>((resolve) =>
      setTimeout(() => {
        timedOut = true;
        resolve();
      }, deadlineMs).unref(),
    ),
  ]);
  // Bounded too: a processor still inside an analyzer call must not hold the shutdown.
  if (timedOut) {
    const force = Promise.all(workers.map((w) => w.close(true).catch(() => undefined)));
    await Promise.race([force, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  }
  return timedOut;
}

/** A job BullMQ gave up on (stalled too often) never reached our handler's own failure path: its scan fails here. */
function failStalledScans(worker: Worker, scanDeps: ScanDeps, log: Logger): void {
  worker.on("failed", (job, err) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || err.name === "UnrecoverableError" || /stalled/i.test(err.message);
    if (!final) return;
    const data = job.data as { scan_id?: string; organization_id?: string };
    if (data.scan_id && /stalled/i.test(err.message)) {
      const scanId = data.scan_id;
      void failScan(scanDeps.db, scanId, "The worker running this scan stopped responding repeatedly.")
        .then(async (ended) => {
          if (ended && data.organization_id) await emitScanEnded(scanDeps, scanId, data.organization_id);
        })
        .catch(() => undefined);
    }
    log.warn("job failed for good", { job: job.id, reason: err.message });
  });
}

/** The reconciler (now and on its interval) and the hourly prunes of the analysis cache and the delivery log. */
async function startHousekeeping(deps: WorkerDeps, queue: JobQueue, log: Logger, webhookLog: Logger) {
  const { config } = deps;
  const minAgeMs = Math.min(5_000, config.worker.reconcileIntervalMs);
  const reconcileNow = async () => {
    const scans = await reconcile({ db: deps.db, queue, logger: child(deps.logger, "reconciler"), minAgeMs });
    await reconcileDeliveries({ db: deps.db, config, logger: webhookLog, queue, minAgeMs: Math.max(minAgeMs, 60_000) }).catch(
      (err: Error) => webhookLog.warn("delivery reconcile failed", { error: err.message }),
    );
    return scans;
  };
  await reconcileNow().catch((err: Error) => log.warn("initial reconcile failed", { error: err.message }));
  const timer = setInterval(() => void reconcileNow().catch(() => undefined), config.worker.reconcileIntervalMs);
  timer.unref();
  const prune = () =>
    pruneAnalysisCache(deps.db, config.scan.analysisCacheTtlDays)
      .then((n) => n > 0 && log.info("pruned analysis cache", { entries: n }))
      .catch(() => undefined);
  const pruneLog = () =>
    pruneDeliveryLog({ db: deps.db, config, logger: webhookLog })
      .then((n) => n > 0 && webhookLog.info("pruned webhook delivery log", { deliveries: n }))
      .catch(() => undefined);
  void prune();
  void pruneLog();
  const pruneTimer = setInterval(() => {
    void prune();
    void pruneLog();
  }, 3_600_000);
  pruneTimer.unref();
  return {
    reconcileNow,
    stop(): void {
      clearInterval(timer);
      clearInterval(pruneTimer);
    },
  };
}

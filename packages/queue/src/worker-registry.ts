import type { Redis } from "ioredis";
import { WorkerRecord } from "@ax/contracts";

/**
 * Live worker processes, kept in Redis under the deployment's queue prefix: one key per worker
 * holding its record with a TTL, plus a sorted set of ids scored by when each entry expires
 * (so listing never scans the keyspace). A worker refreshes its entry on a heartbeat; one that
 * stops heartbeating — killed, crashed, cut off — drops out when the TTL runs out. The prefix
 * carries the queue's {hash tag}, so both keys live in one Redis Cluster slot.
 */
export class WorkerRegistry {
  private readonly index: string;
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.index = `${prefix}:registry:workers`;
  }

  private key(id: string): string {
    return `${this.prefix}:registry:worker:${id}`;
  }

  async publish(record: WorkerRecord, ttlMs: number): Promise<void> {
    await this.redis
      .multi()
      .set(this.key(record.worker_id), JSON.stringify(record), "PX", ttlMs)
      .zadd(this.index, Date.now() + ttlMs, record.worker_id)
      .exec();
  }

  async remove(id: string): Promise<void> {
    await this.redis.multi().del(this.key(id)).zrem(this.index, id).exec();
  }

  /** Registered workers, oldest first. Entries whose TTL ran out are pruned from the index. */
  async list(): Promise<WorkerRecord[]> {
    await this.redis.zremrangebyscore(this.index, "-inf", Date.now());
    const ids = await this.redis.zrange(this.index, 0, -1);
    if (ids.length === 0) return [];
    const raw = await this.redis.mget(ids.map((id) => this.key(id)));
    const records: WorkerRecord[] = [];
    for (const value of raw) {
      if (!value) continue; // expired between the two reads
      try {
        const parsed = WorkerRecord.safeParse(JSON.parse(value));
        if (parsed.success) records.push(parsed.data);
      } catch {
        // a malformed entry is skipped, not fatal to the listing
      }
    }
    return records.sort((a, b) => a.started_at.localeCompare(b.started_at) || a.worker_id.localeCompare(b.worker_id));
  }
}

export interface Heartbeat {
  /** Publishes the current record now (called on every job start and end as well). */
  beat(): Promise<void>;
  /** Stops the timer; `deregister` also removes the entry (graceful shutdown). */
  stop(deregister: boolean): Promise<void>;
}

/** Publishes `snapshot()` every `everyMs` with a TTL of `ttlMs`. Failures only skip a beat. */
export function startHeartbeat(
  registry: WorkerRegistry,
  opts: { everyMs: number; ttlMs: number; snapshot: () => WorkerRecord; onError?: (err: Error) => void },
): Heartbeat {
  let inFlight: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const beat = async (): Promise<void> => {
    if (stopped) return;
    // One write at a time; a change during a write is published right after it.
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        await registry.publish(opts.snapshot(), opts.ttlMs).catch((err: Error) => opts.onError?.(err));
      } while (again && !stopped);
    })();
    try {
      await inFlight;
    } finally {
      inFlight = null;
    }
  };
  const timer = setInterval(() => void beat(), opts.everyMs);
  timer.unref();
  return {
    beat,
    async stop(deregister) {
      stopped = true;
      clearInterval(timer);
      await inFlight?.catch(() => undefined);
      const id = opts.snapshot().worker_id;
      if (deregister) await registry.remove(id).catch((err: Error) => opts.onError?.(err));
    },
  };
}

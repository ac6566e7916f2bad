import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The worker has no HTTP port, so its container health check reads a file instead: every
 * interval the worker probes what it needs to make progress (PostgreSQL, Redis, its BullMQ
 * consumer) and, only when all answer, rewrites this file with the time. A wedged or
 * disconnected worker stops refreshing it and `bin/healthcheck.js` reports it unhealthy.
 */
export const HEARTBEAT_FILE_NAME = "worker-alive";

export function heartbeatPath(workspaceDir: string): string {
  return path.join(workspaceDir, HEARTBEAT_FILE_NAME);
}

export interface HeartbeatFile {
  /** Probes once and writes the file if the probe passed; resolves to whether it did. */
  beat(): Promise<boolean>;
  stop(): void;
}

/** A probe that has not answered within this long counts as failed (a hung connection). */
const PROBE_TIMEOUT_MS = 5_000;

export function startHeartbeatFile(file: string, intervalMs: number, probe: () => Promise<unknown>): HeartbeatFile {
  let stopped = false;
  let beats = 0;
  const once = async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise(
          (_, reject) => (timer = setTimeout(() => reject(new Error("probe timed out")), Math.min(intervalMs, PROBE_TIMEOUT_MS))),
        ),
      ]);
      if (stopped) return false;
      // Written beside and renamed, so the health check never reads half a file.
      await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.${beats++}.tmp`;
      await writeFile(tmp, `${new Date().toISOString()}\n`, { mode: 0o644 });
      await rename(tmp, file);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  };
  // One beat at a time, in order: a slow good beat must not land after a later one that failed.
  let last: Promise<boolean> = Promise.resolve(true);
  const beat = () => (last = last.then(once, once));
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  void beat();
  return {
    beat,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

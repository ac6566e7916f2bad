#!/usr/bin/env node
// Container health check of a scan worker: healthy when the worker refreshed its heartbeat
// file (WORKSPACE_DIR/worker-alive, see src/heartbeat-file.ts) within the last
// WORKER_HEALTH_MAX_AGE_SECONDS (default 60). Plain JavaScript: it starts in a few ms.
import { statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const dir = process.env.WORKSPACE_DIR || path.join(os.tmpdir(), "ax-workspaces");
const file = path.join(path.resolve(dir), "worker-alive");
const maxAgeSeconds = Number(process.env.WORKER_HEALTH_MAX_AGE_SECONDS || 60);
try {
  const ageSeconds = (Date.now() - statSync(file).mtimeMs) / 1000;
  if (ageSeconds > maxAgeSeconds) {
    process.stderr.write(`unhealthy: ${file} is ${Math.round(ageSeconds)} s old (limit ${maxAgeSeconds} s)\n`);
    process.exit(1);
  }
  process.stdout.write(`healthy: heartbeat ${Math.round(ageSeconds)} s ago\n`);
} catch {
  process.stderr.write(`unhealthy: no heartbeat at ${file}\n`);
  process.exit(1);
}

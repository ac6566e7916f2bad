import { ConfigError, loadConfig } from "@ax/config";
import { migrate, openDatabase } from "@ax/db";
import { child, createLogger } from "@ax/logger";
import { reportMissingAnalyzers } from "@ax/scanner";
import { heartbeatPath, startHeartbeatFile } from "./heartbeat-file";
import { onShutdown } from "@ax/lifecycle";
import { startWorker } from "@ax/scan-worker";

/** The scan worker process (npm run start:worker). Needs a PostgreSQL server: PGlite is one process. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.log);
  const log = child(logger, "worker");
  if (!config.database.url) {
    log.error(
      "start:worker needs DATABASE_URL (a PostgreSQL server). The embedded database serves one process: use `npm start` for API and worker together.",
    );
    process.exit(2);
  }
  const handle = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir });
  await migrate(handle);
  const worker = await startWorker({ config, db: handle.db, logger });
  // In the background: asking each tool for its version takes a moment.
  void reportMissingAnalyzers(log);
  // For container health checks (bin/healthcheck.js): refreshed while the worker can work.
  const heartbeat = startHeartbeatFile(heartbeatPath(config.worker.workspaceDir), 15_000, () => worker.probe());
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    heartbeat.stop();
    await worker.close(config.shutdownTimeoutMs - 2_000);
    // A scan force-closed above may still hold a connection: don't let the pool's drain
    // outlast the deadline (PostgreSQL ends the sessions when the process exits).
    await Promise.race([handle.close(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : `Worker failed to start: ${(err as Error).message}`}\n`);
  process.exit(1);
});

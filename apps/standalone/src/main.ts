import { ConfigError, loadConfig } from "@ax/config";
import { migrate, openDatabase } from "@ax/db";
import { child, createLogger } from "@ax/logger";
import { onShutdown } from "@ax/lifecycle";
import { startWorker } from "@ax/scan-worker";
import { reportMissingAnalyzers } from "@ax/scanner";
import { StartupError, bootstrapIfEmpty, ensureRedis, startApi } from "@ax/api-server";

/**
 * npm start: API and worker in one process, on PGlite under DATA_DIR unless DATABASE_URL is
 * set, and on a Redis it starts itself when none is running. For trying the service,
 * development and small teams; production runs start:api and start:worker separately.
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.log);
  const log = child(logger, "standalone");
  const redisServer = await ensureRedis(config, log);
  const handle = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir });
  const applied = await migrate(handle);
  if (applied.length) log.info("database migrated", { applied, kind: handle.kind });
  await bootstrapIfEmpty(config, handle.db, log);
  const worker = await startWorker({ config, db: handle.db, logger });
  const api = await startApi(config, handle.db, logger);
  // After the start, in the background: asking each tool for its version takes a moment.
  void reportMissingAnalyzers(log);
  onShutdown(log, config.shutdownTimeoutMs, async () => {
    await api.close();
    await worker.close(config.shutdownTimeoutMs - 3_000);
    await handle.close();
    redisServer?.kill("SIGTERM");
  });
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof StartupError;
  process.stderr.write(`${known ? (err as Error).message : `Failed to start: ${(err as Error).stack ?? String(err)}`}\n`);
  process.exit(known ? 2 : 1);
});

import { ConfigError, loadConfig } from "@ax/config";
import { migrate, openDatabase } from "@ax/db";
import { child, createLogger } from "@ax/logger";
import { onShutdown } from "@ax/lifecycle";
import { StartupError, startApi } from "@ax/api-server";

/** The API process (npm run start:api): HTTP only, produces jobs, never clones or analyzes. */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config.log);
  if (!config.database.url) {
    throw new StartupError(
      "start:api needs DATABASE_URL (a PostgreSQL server). The embedded database serves one process: use `npm start` for API and worker together.",
    );
  }
  const handle = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir });
  await migrate(handle);
  const api = await startApi(config, handle.db, logger);
  onShutdown(child(logger, "api"), config.shutdownTimeoutMs, async () => {
    await api.close();
    await handle.close();
  });
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof StartupError;
  process.stderr.write(`${known ? (err as Error).message : `API failed to start: ${(err as Error).message}`}\n`);
  process.exit(known ? 2 : 1);
});

/**
 * Jest globalSetup (jest.config.js): the run's PostgreSQL and Redis (services.ts), handed to
 * the test workers through TEST_PG_ADMIN_URL and TEST_REDIS_URL, which workers inherit.
 * Servers started here are stopped by the globalTeardown, or, when the run is interrupted,
 * on the process's exit or on SIGINT/SIGTERM.
 */
import { provideTestServices, type TestServices } from "./services";
import { MissingToolError } from "./tools";

declare global {
  var __axTestServices: { services: TestServices; onExit: () => void; onSignal: (signal: NodeJS.Signals) => void } | undefined;
}

export default async function globalSetup(): Promise<void> {
  let services: TestServices;
  try {
    services = await provideTestServices();
  } catch (err) {
    if (!(err instanceof MissingToolError)) throw err;
    // One line that says what to install, not a stack trace.
    process.stderr.write(`\n${err.message}\n`);
    process.exit(1);
  }
  process.env.TEST_PG_ADMIN_URL = services.pgAdminUrl;
  process.env.TEST_REDIS_URL = services.redisUrl;
  const { postgres, redis } = services.started;
  if (!postgres && !redis) return;
  const onExit = () => services.stopSync();
  const onSignal = (signal: NodeJS.Signals) => {
    services.stopSync();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("exit", onExit);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  globalThis.__axTestServices = { services, onExit, onSignal };
  const what = [postgres ? `PostgreSQL on 127.0.0.1:${postgres.port}` : "", redis ? `Redis on 127.0.0.1:${redis.port}` : ""].filter(
    Boolean,
  );
  process.stderr.write(`\nStarted for this run (stopped at its end): ${what.join(", ")}.\n`);
}

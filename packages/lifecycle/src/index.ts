import type { Logger } from "@ax/logger";

/**
 * SIGTERM/SIGINT: run the cleanup once, with a hard deadline after which the process exits
 * anyway (jobs not finished by then are handed back through their expiring locks).
 */
export function onShutdown(log: Logger, deadlineMs: number, cleanup: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    const hard = setTimeout(() => {
      log.error("shutdown deadline passed; exiting");
      process.exit(1);
    }, deadlineMs);
    hard.unref();
    cleanup()
      .then(() => process.exit(0))
      .catch((err: Error) => {
        log.error("shutdown failed", { error: err.message });
        process.exit(1);
      });
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}

import type { Config } from "@ax/config";
import type { Db } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";
import type { ReviewModel } from "@ax/ai/review";
import type { Analyzer } from "@ax/scanner";

/** What a scan job needs: the database, the config, a logger, and what the worker builds once. */
export interface ScanDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** The analyzers to run (built once per worker from the config); default: the registry's. */
  analyzers?: Analyzer[];
  /** The review model for auto-triage (loaded once per worker); default: the shipped one. */
  reviewModel?: ReviewModel;
  /** Where webhook deliveries are enqueued; absent, they wait for the reconciler. */
  queue?: JobQueue;
}

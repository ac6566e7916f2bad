import type { Config } from "@ax/config";
import type { Db, Principal } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";
import type { Redis } from "ioredis";
import type { Registry } from "prom-client";

/** Everything a request handler may use; built in main.ts, passed to buildApp. */
export interface AppDeps {
  config: Config;
  db: Db;
  logger: Logger;
  queue: JobQueue;
  redis: Redis;
  /** Flipped on SIGTERM so that /health/ready drains traffic before the process stops. */
  lifecycle: { shuttingDown: boolean };
  metrics?: Registry;
}

declare module "express-serve-static-core" {
  interface Request {
    id: string;
    principal?: Principal;
  }
}

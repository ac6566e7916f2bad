import fs from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { PGliteDialect } from "./pglite-dialect";
import type { Database } from "./schema";

export type Db = Kysely<Database>;

export interface DbHandle {
  db: Db;
  kind: "postgres" | "pglite";
  /** Runs a multi-statement SQL script in one transaction (migrations). */
  runScript(script: string, after: (db: Db) => Promise<void>): Promise<void>;
  /** A session-wide lock so that two processes never migrate at once (no-op embedded). */
  withMigrationLock<T>(fn: () => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  url?: string | undefined;
  dataDir: string;
  poolSize?: number;
}

const MIGRATION_LOCK_KEY = 7_402_113;

/** PostgreSQL when a URL is given; otherwise PGlite persisted under dataDir/pgdata. */
export async function openDatabase(opts: DbOptions): Promise<DbHandle> {
  return opts.url ? openPostgres(opts.url, opts.poolSize ?? 10) : openPGlite(opts.dataDir);
}

async function openPostgres(url: string, max: number): Promise<DbHandle> {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // Nor may a connection that drops while checked out (PostgreSQL restarted mid-transaction):
  // node-postgres emits 'error' on the client, and with no listener that kills the process.
  // The query in flight rejects with the same error, which is where it is handled.
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: "postgres",
    async runScript(script, after) {
      await db.transaction().execute(async (trx) => {
        await sql.raw(script).execute(trx);
        await after(trx);
      });
    },
    async withMigrationLock(fn) {
      const client = await pool.connect();
      try {
        await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
        return await fn();
      } finally {
        await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
        client.release();
      }
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

async function openPGlite(dataDir: string): Promise<DbHandle> {
  const dir = path.join(dataDir, "pgdata");
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({ dataDir: dir });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: "pglite",
    async runScript(script, after) {
      // PGlite's exec speaks the simple protocol, which multi-statement scripts need; the
      // Kysely connection is held meanwhile so nothing else interleaves.
      await db.connection().execute(async (conn) => {
        await pglite.exec(`BEGIN;\n${script}`);
        try {
          await after(conn);
          await pglite.exec("COMMIT");
        } catch (err) {
          await pglite.exec("ROLLBACK");
          throw err;
        }
      });
    },
    withMigrationLock: (fn) => fn(),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
      await pglite.close();
      await lock.release();
    },
  };
}

export async function pingDb(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * PGlite files must be opened by one process at a time; two would corrupt them. A pid file
 * beside them refuses a second opener while the first is alive and is taken over when stale.
 */
async function lockDataDir(dataDir: string): Promise<{ release(): Promise<void> }> {
  const file = path.join(dataDir, "embedded-db.pid");
  const mine = String(process.pid);
  try {
    await fs.writeFile(file, mine, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    const holder = Number((await fs.readFile(file, "utf8").catch(() => "")).trim());
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new Error(
        `The embedded database in ${dataDir} is in use by process ${holder}. Stop that process first, or use a PostgreSQL server (DATABASE_URL).`,
      );
    }
    await fs.writeFile(file, mine, { mode: 0o600 });
  }
  return {
    async release() {
      const holder = await fs.readFile(file, "utf8").catch(() => "");
      if (holder.trim() === mine) await fs.rm(file, { force: true });
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A PostgreSQL error code (SQLSTATE) of a failed query, when there is one. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A row the statement needed is gone: a foreign key to it failed, or a row just written was
 * removed by a cascade before it could be read back (its group was hard-deleted meanwhile).
 */
export function isForeignKeyViolation(err: unknown): boolean {
  return pgErrorCode(err) === "23503" || (err instanceof Error && err.name === "NoResultError");
}

const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "53300",
]);

/**
 * The database cannot be reached or is shutting down / starting up: an outage, not a bug in
 * the request. The API answers 503 for these (with Retry-After) instead of 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = pgErrorCode(err);
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  const message = err instanceof Error ? err.message : "";
  return UNAVAILABLE_MESSAGE.test(message);
}

/** What node-postgres and PostgreSQL say when the server cannot be reached or is not accepting connections. */
const UNAVAILABLE_MESSAGE = new RegExp(
  [
    /Connection terminated|connection (?:is )?(?:closed|ended|refused)|Client has encountered a connection error/.source,
    /timeout exceeded when trying to connect|the database system is (?:starting up|shutting down)/.source,
  ].join("|"),
  "i",
);

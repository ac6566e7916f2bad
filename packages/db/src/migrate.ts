import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import type { DbHandle } from "./client";

const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../migrations");

/**
 * Applies migrations/NNNN_name.sql in order, each in its own transaction, and records them in
 * schema_migrations. Safe to run from several processes at once (advisory lock) and on every
 * start (applied versions are skipped). Returns the versions it applied.
 */
export async function migrate(handle: DbHandle): Promise<string[]> {
  const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return handle.withMigrationLock(async () => {
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`.execute(handle.db);
    const done = await sql<{ version: string }>`SELECT version FROM schema_migrations`.execute(handle.db);
    const applied = new Set(done.rows.map((r) => r.version));
    const ran: string[] = [];
    for (const file of files) {
      const version = file.slice(0, -4);
      if (applied.has(version)) continue;
      const script = await fs.readFile(path.join(MIGRATIONS_DIR, file), "utf8");
      await handle.runScript(script, async (db) => {
        await sql`INSERT INTO schema_migrations (version) VALUES (${version})`.execute(db);
      });
      ran.push(version);
    }
    return ran;
  });
}

/**
 * What the fault tests measure in PostgreSQL. A trigger, installed in the test's own database
 * only, records every change of a scan's state, so "ended exactly once" is counted rather
 * than inferred from the final row: a scan that completed, was re-opened and completed again
 * would look fine in the row but shows two endings here.
 */
import { sql } from "kysely";
import type { Db } from "@ax/db";

const TERMINAL = ["completed", "failed", "cancelled"];

export async function installStateAudit(db: Db): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS reliability_scan_states (
    id bigserial PRIMARY KEY, scan_id text NOT NULL, old_state text, new_state text NOT NULL,
    attempts integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())`.execute(db);
  await sql`CREATE OR REPLACE FUNCTION reliability_log_scan_state() RETURNS trigger AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state THEN
        INSERT INTO reliability_scan_states (scan_id, old_state, new_state, attempts)
        VALUES (NEW.id, CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.state END, NEW.state, NEW.attempts);
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`.execute(db);
  await sql`DROP TRIGGER IF EXISTS reliability_scan_states ON scans`.execute(db);
  await sql`CREATE TRIGGER reliability_scan_states AFTER INSERT OR UPDATE OF state ON scans
    FOR EACH ROW EXECUTE FUNCTION reliability_log_scan_state()`.execute(db);
}

export interface ScanOutcome {
  state: string;
  attempts: number;
  finishedAt: Date | null;
  /** Transitions into completed/failed/cancelled; exactly once means 1. */
  endings: number;
  /** The state path, e.g. "queued>running>queued>running>completed". */
  path: string;
  findings: number;
  distinctFingerprints: number;
  /** rule|file|line|fingerprint of every finding, sorted: the finding set. */
  keys: string[];
}

export async function scanOutcome(db: Db, scanId: string): Promise<ScanOutcome> {
  const row = await db.selectFrom("scans").select(["state", "attempts", "finished_at"]).where("id", "=", scanId).executeTakeFirstOrThrow();
  const states = await sql<{ old_state: string | null; new_state: string }>`
    SELECT old_state, new_state FROM reliability_scan_states WHERE scan_id = ${scanId} ORDER BY id`.execute(db);
  const findings = await db
    .selectFrom("findings")
    .select(["rule_id", "file", "start_line", "fingerprint"])
    .where("scan_id", "=", scanId)
    .execute();
  const steps = states.rows;
  return {
    state: row.state,
    attempts: row.attempts,
    finishedAt: row.finished_at ? new Date(row.finished_at) : null,
    endings: steps.filter((s) => TERMINAL.includes(s.new_state) && s.old_state !== s.new_state).length,
    path: steps.map((s) => s.new_state).join(">"),
    findings: findings.length,
    distinctFingerprints: new Set(findings.map((f) => f.fingerprint)).size,
    keys: findings.map((f) => `${f.rule_id}|${f.file}|${f.start_line}|${f.fingerprint}`).sort(),
  };
}

export async function waitForEnd(db: Db, scanId: string, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await db.selectFrom("scans").select("state").where("id", "=", scanId).executeTakeFirst();
    if (!row) return "deleted";
    if (TERMINAL.includes(row.state)) return row.state;
    if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${row.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Checks one ended scan against an undisturbed reference: ended once, completed, the attempts
 * expected, no duplicate finding, the same finding set. Throws a message naming every
 * difference.
 */
export function expectSameAsReference(o: ScanOutcome, ref: string[], attempts: number | ((n: number) => boolean)): void {
  const problems: string[] = [];
  if (o.state !== "completed") problems.push(`state ${o.state}`);
  if (o.endings !== 1) problems.push(`${o.endings} endings (${o.path})`);
  if (!o.finishedAt) problems.push("no finished_at");
  const attemptsOk = typeof attempts === "number" ? o.attempts === attempts : attempts(o.attempts);
  if (!attemptsOk) problems.push(`attempts ${o.attempts}`);
  if (o.findings !== o.distinctFingerprints) problems.push(`${o.findings} findings but ${o.distinctFingerprints} fingerprints`);
  if (o.keys.join("\n") !== ref.join("\n")) {
    const missing = ref.filter((k) => !o.keys.includes(k)).length;
    const extra = o.keys.filter((k) => !ref.includes(k)).length;
    problems.push(`finding set differs from the undisturbed scan (${o.findings} vs ${ref.length}; ${missing} missing, ${extra} extra)`);
  }
  if (problems.length) throw new Error(problems.join("; "));
}

/** Every (table, column) with a foreign key to one of `tables`, read from the catalog. */
export async function foreignKeysTo(db: Db, tables: string[]): Promise<{ table: string; column: string; references: string }[]> {
  const r = await sql<{ table: string; column: string; references: string }>`
    SELECT c.conrelid::regclass::text AS table, a.attname AS column, c.confrelid::regclass::text AS references
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
    WHERE c.contype = 'f' AND c.confrelid::regclass::text = ANY (${tables}::text[])
    ORDER BY 1, 2`.execute(db);
  return r.rows;
}

/** Rows of `table` whose `column` holds one of `ids`. Identifiers come from the catalog or the test. */
export async function countReferencing(db: Db, table: string, column: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const r = await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ANY (${ids}::text[])`.execute(
    db,
  );
  return Number(r.rows[0]?.n ?? 0);
}

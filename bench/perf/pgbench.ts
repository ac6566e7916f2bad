/**
 * PostgreSQL's own ceiling on this machine, measured with pgbench (PostgreSQL's client
 * tools) against the bench's database, in the same run as the API figures: the rate at which
 * the server commits a transaction of the PUT finding's shape when the client costs next to
 * nothing. Skipped, and said so, where pgbench is not installed.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { cpuBetween, cpuSnapshot, type CpuClasses } from "./cpu";

const NO_CLASSES: CpuClasses = { pids: {}, comms: {} };

const run = promisify(execFile);

export interface PgbenchResult {
  /** pgbench -N: BEGIN; UPDATE a row; SELECT it; INSERT a history row; END. */
  writeTps: number;
  /**
   * Machine CPU milliseconds per -N transaction (/proc/stat: PostgreSQL and pgbench together;
   * the API is idle meanwhile). Per process would miss the backends, which exit with pgbench.
   */
  writeCpuMs: number;
  /** pgbench -S: one primary-key SELECT per transaction. */
  selectTps: number;
  clients: number;
  seconds: number;
}

/** pgbench's tables go into `dbUrl` (the bench's fresh database, dropped afterwards). */
export async function pgbenchCeiling(dbUrl: string, opts: { clients: number; seconds: number }): Promise<PgbenchResult | null> {
  const bin = await run("pgbench", ["--version"]).then(
    () => "pgbench",
    () => null,
  );
  if (!bin) return null;
  await run(bin, ["-i", "-q", "-s", "1", dbUrl]);
  const tps = async (mode: string) => {
    const before = cpuSnapshot(NO_CLASSES);
    const { stdout } = await run(bin, [mode, "-n", "-c", String(opts.clients), "-j", "2", "-T", String(opts.seconds), dbUrl]);
    const cpu = cpuBetween(before, cpuSnapshot(NO_CLASSES));
    const m = /tps = ([\d.]+)/.exec(stdout);
    if (!m) throw new Error(`pgbench printed no tps:\n${stdout}`);
    const rate = Number(m[1]);
    return { rate, cpuMs: ((cpu.cores["everything else"] ?? 0) * 1000) / Math.max(1, rate) };
  };
  const write = await tps("-N");
  const read = await tps("-S");
  return { writeTps: write.rate, writeCpuMs: write.cpuMs, selectTps: read.rate, ...opts };
}

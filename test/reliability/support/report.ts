/**
 * How many times each fault is repeated, and the one-line figure every fault test prints
 * (copied into docs/reliability.md). AX_FAULT_REPEAT keeps the main suite fast (default 3)
 * and lets the slow tier state a real figure (e.g. 20–50).
 */
import { appendFileSync } from "node:fs";

export function repeatCount(): number {
  const raw = process.env.AX_FAULT_REPEAT;
  if (raw === undefined || raw === "") return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(`AX_FAULT_REPEAT must be a whole number from 1 to 1000, not "${raw}".`);
  return n;
}

/** Jest's per-test timeout for a loop of `n` repetitions costing about `perRunMs` each. */
export function budgetMs(n: number, perRunMs: number, fixedMs = 60_000): number {
  return fixedMs + n * perRunMs;
}

/**
 * Prints `[reliability] <fault>: <figure>` on stdout (console.* would add a stack trace to
 * every line) and, when AX_FAULT_REPORT names a file, appends the line there too.
 */
export function report(fault: string, figure: string): void {
  const line = `[reliability] ${fault}: ${figure}`;
  process.stdout.write(`${line}\n`);
  const file = process.env.AX_FAULT_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
}

/** Collects what went wrong in each repetition, so one failure does not hide the others. */
export class Tally {
  readonly failures: string[] = [];
  ok = 0;
  /** Tries that did not produce the fault (e.g. the scan ended before the kill landed). */
  missed = 0;
  constructor(readonly total: number) {}

  /** Repetitions counted so far (passed or failed). */
  get done(): number {
    return this.ok + this.failures.length;
  }

  /**
   * Runs the checks of one repetition; a thrown error counts it as failed and is kept. A
   * check that returns "missed" counts neither way: the caller tries again.
   */
  async run(checks: () => Promise<void | "missed">): Promise<void> {
    try {
      if ((await checks()) === "missed") this.missed++;
      else this.ok++;
    } catch (err) {
      this.failures.push(`#${this.done + 1}: ${(err as Error).message.split("\n").slice(0, 6).join(" ")}`);
    }
  }

  /** Whether to try again: fewer than `total` repetitions counted, and not too many misses. */
  get more(): boolean {
    return this.done < this.total && this.missed < this.total * 2;
  }

  get figure(): string {
    return `${this.ok}/${this.total}`;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

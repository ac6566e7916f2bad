/**
 * CPU time by process over a measured interval, from /proc: where a request's cost lands when
 * the API, PostgreSQL, Redis and the load generator share the machine's cores. Linux only
 * (the benches run there); elsewhere every figure is 0 and the table says so.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on.

export interface CpuSnapshot {
  at: number;
  /** Busy ticks of the whole machine (all cores, every process). */
  machineBusy: number;
  /** Ticks by class name. */
  byClass: Map<string, number>;
}

/** Which class a process belongs to, by pid first, then by its command name. */
export interface CpuClasses {
  pids: Record<string, number>;
  comms: Record<string, RegExp>;
}

function machineBusyTicks(): number {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    // cpu user nice system idle iowait irq softirq steal …
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
  } catch {
    return 0;
  }
}

function processTicks(pid: string): { comm: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

export function cpuSnapshot(classes: CpuClasses): CpuSnapshot {
  const byClass = new Map<string, number>();
  const byPid = new Map(Object.entries(classes.pids).map(([name, pid]) => [String(pid), name]));
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
  } catch {
    /* not Linux */
  }
  for (const pid of entries) {
    const p = processTicks(pid);
    if (!p) continue;
    const name = byPid.get(pid) ?? Object.entries(classes.comms).find(([, re]) => re.test(p.comm))?.[0];
    if (name) byClass.set(name, (byClass.get(name) ?? 0) + p.ticks);
  }
  return { at: performance.now(), machineBusy: machineBusyTicks(), byClass };
}

export interface CpuUse {
  /** Cores kept busy on average over the interval, by class, plus "everything else". */
  cores: Record<string, number>;
  seconds: number;
}

/**
 * Cores used between two snapshots. A process that exited in between is missing from the
 * second and counts nothing (PostgreSQL backends of a pool live through a run).
 */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const seconds = (b.at - a.at) / 1000;
  const cores: Record<string, number> = {};
  let accounted = 0;
  for (const [name, ticks] of b.byClass) {
    const used = Math.max(0, ticks - (a.byClass.get(name) ?? 0)) / TICKS_PER_SECOND;
    cores[name] = used / seconds;
    accounted += used;
  }
  const busy = (b.machineBusy - a.machineBusy) / TICKS_PER_SECOND;
  cores["everything else"] = Math.max(0, busy - accounted) / seconds;
  return { cores, seconds };
}

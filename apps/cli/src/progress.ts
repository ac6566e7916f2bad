/**
 * Following a scan: on a terminal one line redrawn in place (a bar and the phases), elsewhere
 * (CI logs, pipes) one plain line per state or phase change.
 */
import { SCAN_PHASES } from "@ax/contracts";
import type { Scan } from "./api";
import type { Io } from "./io";
import type { Palette } from "./render";

const BAR_WIDTH = 24;

export interface Progress {
  update(scan: Scan): void;
  finish(): void;
}

/** One frame of the bar: `[██████░░░░]  40%  ✔ cloning  ▸ analyzing  · storing`. */
export function progressFrame(scan: Scan, p: Palette): string {
  const done = scan.state === "completed";
  const percent = done ? 100 : Math.max(0, Math.min(100, scan.progress));
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = `[${p.green("█".repeat(filled))}${p.dim("░".repeat(BAR_WIDTH - filled))}]`;
  const current = scan.phase ? SCAN_PHASES.indexOf(scan.phase) : -1;
  const phases = SCAN_PHASES.map((phase, i) => {
    if (done || i < current) return p.green(`✔ ${phase}`);
    if (i === current && scan.state === "running") return p.bold(`▸ ${phase}`);
    return p.dim(`· ${phase}`);
  }).join("  ");
  const state =
    scan.state === "running"
      ? ""
      : `  ${scan.state === "completed" ? p.green(scan.state) : scan.state === "queued" ? scan.state : p.red(scan.state)}`;
  return `${bar} ${String(percent).padStart(3)}%  ${phases}${state}`;
}

export function plainLine(scan: Scan): string {
  return `${scan.state}${scan.phase && scan.state === "running" ? `: ${scan.phase}` : ""} (${scan.progress}%)`;
}

export function progressReporter(io: Io, p: Palette): Progress {
  let last = "";
  if (io.stdoutIsTTY) {
    return {
      update(scan) {
        const frame = progressFrame(scan, p);
        if (frame !== last) io.out(`\r\x1b[2K${frame}`);
        last = frame;
      },
      finish() {
        if (last) io.out("\n");
      },
    };
  }
  return {
    update(scan) {
      const key = `${scan.state}/${scan.state === "running" ? scan.phase : ""}`;
      if (key !== last) io.out(`${plainLine(scan)}\n`);
      last = key;
    },
    finish() {},
  };
}

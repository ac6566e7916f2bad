// Pure rendering: tables, colours, the progress bar on and off a terminal, a scan's summary.
import { PassThrough } from "node:stream";
import type { Scan } from "./api";
import type { Io } from "./io";
import { progressFrame, progressReporter } from "./progress";
import { colorsFor, openAtOrAbove, palette, summaryTable, table } from "./render";

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;

function fakeIo(opts: { tty: boolean; env?: Record<string, string> }): Io & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    out: (s) => written.push(s),
    err: () => undefined,
    env: opts.env ?? {},
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: opts.tty,
  };
}

const scan = (over: Partial<Scan>): Scan => ({
  scan_id: "s1",
  organization_id: "o",
  group_id: "g",
  state: "running",
  phase: "cloning",
  progress: 5,
  git_uri: "/repo",
  branch: null,
  commit: null,
  error: null,
  counts: {},
  duration_ms: null,
  ...over,
});

describe("colours", () => {
  it("are used on a terminal only, and never with NO_COLOR", () => {
    expect(colorsFor(fakeIo({ tty: true })).red("x")).toMatch(ANSI);
    expect(colorsFor(fakeIo({ tty: false })).red("x")).toBe("x");
    expect(colorsFor(fakeIo({ tty: true, env: { NO_COLOR: "1" } })).severity("HIGH")).toBe("HIGH");
  });
});

describe("table", () => {
  it("aligns columns by their visible width, coloured or not, and right-aligns numbers", () => {
    const rows = [
      [palette(true).severity("CRITICAL"), "12"],
      ["LOW", "3"],
    ];
    const lines = table(["SEVERITY", "N"], rows, palette(true))
      .split("\n")
      .map((l) => l.replace(/\x1b\[[0-9;]*m/g, "")); // eslint-disable-line no-control-regex
    expect(lines).toEqual(["SEVERITY   N", "CRITICAL  12", "LOW        3"]);
  });
});

describe("scan summary", () => {
  // A scan's counts as GET /scan/{id} gives them: 2 suppressed and 1 fixed rows are not open.
  const counts = {
    CRITICAL: 1,
    HIGH: 2,
    MEDIUM: 0,
    LOW: 4,
    INFO: 0,
    total: 7,
    new: 5,
    fixed: 1,
    suppressed: 2,
    introduced: 0,
    to_review: 6,
    true_positive: 1,
    false_positive: 3,
    accepted_risk: 0,
    marked_fixed: 1,
  };

  it("prints the service's counts as they are, and counts nothing itself", () => {
    expect(summaryTable(counts, palette(false)).split("\n")).toEqual([
      "SEVERITY  OPEN",
      "CRITICAL     1",
      "HIGH         2",
      "MEDIUM       0",
      "LOW          4",
      "INFO         0",
      "total        7",
      "",
      "5 new · 1 fixed since the previous scan · 2 suppressed in the source · 3 false positive · 0 accepted risk · 1 marked fixed",
    ]);
  });

  it("gates on the open counts at the severity and above", () => {
    expect(openAtOrAbove(counts, "CRITICAL")).toBe(1);
    expect(openAtOrAbove(counts, "HIGH")).toBe(3);
    expect(openAtOrAbove(counts, "MEDIUM")).toBe(3);
    expect(openAtOrAbove(counts, "INFO")).toBe(counts.total);
    expect(openAtOrAbove({}, "INFO")).toBe(0);
  });
});

describe("progress", () => {
  it("draws a bar with the phases done, current and to come", () => {
    const p = palette(false);
    expect(progressFrame(scan({ phase: "analyzing", progress: 50 }), p)).toBe(
      `[${"█".repeat(12)}${"░".repeat(12)}]  50%  ✔ cloning  ▸ analyzing  · storing`,
    );
    expect(progressFrame(scan({ state: "queued", phase: null, progress: 0 }), p)).toBe(
      `[${"░".repeat(24)}]   0%  · cloning  · analyzing  · storing  queued`,
    );
    expect(progressFrame(scan({ state: "completed", phase: "storing", progress: 100 }), p)).toBe(
      `[${"█".repeat(24)}] 100%  ✔ cloning  ✔ analyzing  ✔ storing  completed`,
    );
    expect(progressFrame(scan({ state: "failed", phase: "cloning", progress: 5 }), p)).toContain(
      "· cloning  · analyzing  · storing  failed",
    );
  });

  it("redraws one line in place on a terminal", () => {
    const io = fakeIo({ tty: true });
    const r = progressReporter(io, colorsFor(io));
    r.update(scan({ phase: "cloning", progress: 5 }));
    r.update(scan({ phase: "cloning", progress: 5 }));
    r.update(scan({ phase: "analyzing", progress: 40 }));
    r.update(scan({ state: "completed", phase: "storing", progress: 100 }));
    r.finish();
    expect(io.written).toHaveLength(4); // an unchanged frame is not redrawn; the last write ends the line
    expect(io.written.slice(0, 3).every((w) => w.startsWith("\r\x1b[2K"))).toBe(true);
    expect(io.written[2]).toMatch(ANSI);
    expect(io.written[3]).toBe("\n");
  });

  it("prints one plain line per state or phase elsewhere", () => {
    const io = fakeIo({ tty: false });
    const r = progressReporter(io, colorsFor(io));
    for (const s of [
      scan({ state: "queued", phase: null, progress: 0 }),
      scan({ phase: "cloning", progress: 5 }),
      scan({ phase: "analyzing", progress: 30 }),
      scan({ phase: "analyzing", progress: 60 }),
      scan({ state: "completed", phase: "storing", progress: 100 }),
    ])
      r.update(s);
    r.finish();
    expect(io.written.join("")).toBe("queued (0%)\nrunning: cloning (5%)\nrunning: analyzing (30%)\ncompleted (100%)\n");
  });
});

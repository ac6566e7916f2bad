// Pure rendering: tables, colours, the progress bar on and off a terminal, the severity summary.
import { PassThrough } from "node:stream";
import type { Finding, Scan } from "./api";
import type { Io } from "./io";
import { progressFrame, progressReporter } from "./progress";
import { colorsFor, isOpen, palette, summarize, summaryTable, table } from "./render";

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;

function fakeIo(opts: { tty: boolean; env?: Record<string, string> }): Io & { written: string[] } {
  const written: string[] = [];
  return { written, out: (s) => written.push(s), err: () => undefined, env: opts.env ?? {}, stdin: new PassThrough(), stdout: new PassThrough(), stdinIsTTY: false, stdoutIsTTY: opts.tty };
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

const finding = (severity: Finding["severity"], status: Finding["status"], suppression: unknown = null): Finding => ({
  finding_id: `${severity}-${status}`,
  rule_id: "r",
  title: "t",
  cwe_id: null,
  file: "a.js",
  start_line: 1,
  severity,
  status,
  reason: null,
  suppression,
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

describe("severity summary", () => {
  it("counts open findings: TO REVIEW and TRUE POSITIVE, not closed, suppressed in the source or gone", () => {
    const findings: Finding[] = [
      finding("HIGH", "TO REVIEW"),
      finding("HIGH", "TRUE POSITIVE"),
      finding("HIGH", "FALSE POSITIVE"),
      finding("HIGH", "ACCEPTED RISK"),
      finding("LOW", "FIXED"),
      finding("LOW", "TO REVIEW", { kind: "ax-ignore", reason: "test data", line: 1 }),
      // The record of a finding that disappeared, which a reviewer reopened: not in the code.
      { ...finding("LOW", "TRUE POSITIVE"), finding_id: "LOW-gone", baseline_state: "absent" },
    ];
    expect(findings.filter(isOpen).map((f) => f.finding_id)).toEqual(["HIGH-TO REVIEW", "HIGH-TRUE POSITIVE"]);
    const summary = summarize(findings);
    expect(summary.HIGH).toEqual({ findings: 4, open: 2 });
    expect(summary.LOW).toEqual({ findings: 3, open: 0 });
    expect(summaryTable(summary, palette(false)).split("\n")).toEqual([
      "SEVERITY  FINDINGS  OPEN",
      "CRITICAL         0     0",
      "HIGH             4     2",
      "MEDIUM           0     0",
      "LOW              3     0",
      "INFO             0     0",
      "total            7     2",
    ]);
  });
});

describe("progress", () => {
  it("draws a bar with the phases done, current and to come", () => {
    const p = palette(false);
    expect(progressFrame(scan({ phase: "analyzing", progress: 50 }), p)).toBe(`[${"█".repeat(12)}${"░".repeat(12)}]  50%  ✔ cloning  ▸ analyzing  · storing`);
    expect(progressFrame(scan({ state: "queued", phase: null, progress: 0 }), p)).toBe(`[${"░".repeat(24)}]   0%  · cloning  · analyzing  · storing  queued`);
    expect(progressFrame(scan({ state: "completed", phase: "storing", progress: 100 }), p)).toBe(`[${"█".repeat(24)}] 100%  ✔ cloning  ✔ analyzing  ✔ storing  completed`);
    expect(progressFrame(scan({ state: "failed", phase: "cloning", progress: 5 }), p)).toContain("· cloning  · analyzing  · storing  failed");
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
    for (const s of [scan({ state: "queued", phase: null, progress: 0 }), scan({ phase: "cloning", progress: 5 }), scan({ phase: "analyzing", progress: 30 }), scan({ phase: "analyzing", progress: 60 }), scan({ state: "completed", phase: "storing", progress: 100 })]) r.update(s);
    r.finish();
    expect(io.written.join("")).toBe("queued (0%)\nrunning: cloning (5%)\nrunning: analyzing (30%)\ncompleted (100%)\n");
  });
});

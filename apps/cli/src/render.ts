/** Terminal output: colours (only on a terminal, and never with NO_COLOR), tables, a scan's summary. */
import { SEVERITIES, type Severity } from "@ax/contracts";
import type { Io } from "./io";

export interface Palette {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  severity(sev: string, s?: string): string;
}

const SGR = (code: string) => (s: string) => (s ? `\x1b[${code}m${s}\x1b[0m` : s);
const SEVERITY_SGR: Record<string, string> = { CRITICAL: "1;35", HIGH: "1;31", MEDIUM: "33", LOW: "36", INFO: "2" };

export function palette(enabled: boolean): Palette {
  if (!enabled) {
    const plain = (s: string) => s;
    return { bold: plain, dim: plain, green: plain, red: plain, severity: (sev, s) => s ?? sev };
  }
  return {
    bold: SGR("1"),
    dim: SGR("2"),
    green: SGR("32"),
    red: SGR("31"),
    severity: (sev, s) => SGR(SEVERITY_SGR[sev] ?? "0")(s ?? sev),
  };
}

/** See https://no-color.org: a set, non-empty NO_COLOR turns colours off. */
export function colorsFor(io: Io): Palette {
  return palette(io.stdoutIsTTY && !io.env.NO_COLOR);
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
export const visibleLength = (s: string) => s.replace(ANSI, "").length;

/** Text from the service on one terminal line: control characters and line breaks become a space. */
// eslint-disable-next-line no-control-regex
export const oneLine = (s: string) => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();

/** Left-aligned columns, numbers right-aligned, two spaces apart. */
export function table(headers: string[], rows: string[][], p: Palette): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => visibleLength(r[i] ?? ""))));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^\d+$/.test((r[i] ?? "").replace(ANSI, ""))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const pad = " ".repeat((widths[i] ?? 0) - visibleLength(c));
        return numeric[i] ? pad + c : c + pad;
      })
      .join("  ")
      .trimEnd();
  return [p.bold(line(headers)), ...rows.map(line)].join("\n");
}

/**
 * The summary of a scan is its `counts` as the API gives them (`GET /scan/{id}`, computed when
 * read from the findings as they are now): the CLI counts nothing itself, so the numbers it
 * prints, its `--fail-on` gate and the service's agree. Each severity counts the open findings
 * (status TO REVIEW or TRUE POSITIVE, in the code, not suppressed in the source); the line
 * below says what else the scan holds.
 */
export function summaryTable(counts: Readonly<Record<string, number>>, p: Palette): string {
  const n = (key: string) => String(counts[key] ?? 0);
  const rows = SEVERITIES.map((s) => [p.severity(s), n(s)]);
  const open = table(["SEVERITY", "OPEN"], [...rows, [p.bold("total"), n("total")]], p);
  const rest = [
    `${n("new")} new`,
    `${n("fixed")} fixed since the previous scan`,
    `${n("suppressed")} suppressed in the source`,
    `${n("false_positive")} false positive`,
    `${n("accepted_risk")} accepted risk`,
    `${n("marked_fixed")} marked fixed`,
  ];
  return `${open}

${p.dim(rest.join(" · "))}`;
}

/** Open findings at `threshold` or more severe, from the scan's counts. */
export function openAtOrAbove(counts: Readonly<Record<string, number>>, threshold: Severity): number {
  return SEVERITIES.slice(0, SEVERITIES.indexOf(threshold) + 1).reduce((sum, s) => sum + (counts[s] ?? 0), 0);
}

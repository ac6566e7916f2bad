/** Terminal output: colours (only on a terminal, and never with NO_COLOR), tables, the severity summary. */
import { OPEN_STATUSES, SEVERITIES, type FindingStatus, type Severity } from "@ax/contracts";
import type { Finding } from "./api";
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
 * Open: `TO REVIEW` or `TRUE POSITIVE`, not suppressed in the source, and still in the code (not
 * the record of a finding that disappeared). The same rule as the scan's `counts`, so the gate
 * and the OPEN column agree with `counts[severity]` and `counts.total`.
 */
export const isOpen = (f: Finding) => (OPEN_STATUSES as readonly FindingStatus[]).includes(f.status) && !f.suppression && f.baseline_state !== "absent";

export type SeveritySummary = Record<Severity, { findings: number; open: number }>;

export function summarize(findings: Finding[]): SeveritySummary {
  const summary = Object.fromEntries(SEVERITIES.map((s) => [s, { findings: 0, open: 0 }])) as SeveritySummary;
  for (const f of findings) {
    const row = summary[f.severity];
    if (!row) continue;
    row.findings += 1;
    if (isOpen(f)) row.open += 1;
  }
  return summary;
}

export function summaryTable(summary: SeveritySummary, p: Palette): string {
  const rows = SEVERITIES.map((s) => [p.severity(s), String(summary[s].findings), String(summary[s].open)]);
  const total = (k: "findings" | "open") => String(SEVERITIES.reduce((n, s) => n + summary[s][k], 0));
  return table(["SEVERITY", "FINDINGS", "OPEN"], [...rows, [p.bold("total"), total("findings"), total("open")]], p);
}

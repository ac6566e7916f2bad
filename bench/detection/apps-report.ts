/**
 * The report of our labelled applications (apps-suite.ts) in detection.md and on the console:
 * the development apps (bench/detection/apps/) with their misses listed, and the held-out apps
 * (bench/detection/apps-held/) with figures only, so that nobody tuning detection reads which
 * lines they miss.
 */
import type { AppResult } from "./apps-suite";

export interface AppsVariant {
  /** Section title, also the summary row's label. */
  title: string;
  folder: string;
  /** The last sentence of the section's introduction. */
  note: string;
  /** Whether the section lists missed lines, false alarms and unlabelled findings. */
  listLines: boolean;
  /** Console prefix. */
  tag: string;
}

export const DEV_APPS: AppsVariant = {
  title: "Our labelled applications",
  folder: "bench/detection/apps",
  note: "These are development figures: the rules were written next to them.",
  listLines: true,
  tag: "app",
};

export const HELD_APPS: AppsVariant = {
  title: "Held-out labelled applications (written blind; never used for tuning)",
  folder: "bench/detection/apps-held",
  note:
    "Written by someone who did not tune the rules, and never shown to those who do: only the figures are " +
    "reported, never which lines are missed or flagged.",
  listLines: false,
  tag: "held app",
};

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function totals(results: readonly AppResult[]) {
  const sum = (k: "vulnerable" | "found" | "safe" | "falseAlarms") => results.reduce((n, r) => n + r.counts[k], 0);
  const vulnerable = sum("vulnerable");
  const safe = sum("safe");
  return { vulnerable, found: sum("found"), safe, falseAlarms: sum("falseAlarms") };
}

export function appsSummaryLines(results: readonly AppResult[], variant: AppsVariant = DEV_APPS): string[] {
  const t = totals(results);
  return [
    `| ${variant.title} (${results.map((r) => r.app).join(", ")}) | recall **${pct(t.vulnerable ? t.found / t.vulnerable : 0)}** ` +
      `(${t.found}/${t.vulnerable} vulnerable lines); false alarms **${pct(t.safe ? t.falseAlarms / t.safe : 0)}** (${t.falseAlarms}/${t.safe} safe lines) |`,
  ];
}

export function appsSection(results: readonly AppResult[], variant: AppsVariant = DEV_APPS): string[] {
  const lines = [
    `## ${variant.title}`,
    "",
    `Small applications written here with known flaws and safe twins (\`${variant.folder}/<name>/\`, labels in its ` +
      "`labels.json`), each scanned as one repository. A vulnerable line is found when a finding in its file covers the " +
      "line with an accepted CWE (itself, a direct parent or child); a safe line is a false alarm when one does. Findings " +
      `on lines nobody labelled are ${variant.listLines ? "listed" : "counted"} apart. ${variant.note}`,
    "",
    "| App | Files | Vulnerable lines | Found | Recall | Safe lines | False alarms | False-alarm rate | Findings on unlabelled lines | Scan |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of results) {
    const c = r.counts;
    lines.push(
      `| ${r.app} | ${r.files} | ${c.vulnerable} | ${c.found} | ${pct(c.recall)} | ${c.safe} | ${c.falseAlarms} | ${pct(c.falseAlarmRate)} | ` +
        `${r.unlabelledCount} | ${(r.scanMs / 1000).toFixed(1)} s |`,
    );
  }
  lines.push("");
  if (!variant.listLines) return lines;
  for (const r of results) {
    if (r.missed.length + r.falseAlarms.length + r.unlabelled.length === 0) continue;
    lines.push(`${r.app}:`, "");
    if (r.missed.length) lines.push(`- missed: ${r.missed.join("; ")}`);
    if (r.falseAlarms.length) lines.push(`- false alarms: ${r.falseAlarms.join("; ")}`);
    if (r.unlabelled.length) lines.push(`- on unlabelled lines: ${r.unlabelled.join("; ")}`);
    lines.push("");
  }
  return lines;
}

export function appsConsoleLines(results: readonly AppResult[], variant: AppsVariant = DEV_APPS): string[] {
  return results.map(
    (r) =>
      `  ${variant.tag} ${r.app}: found ${r.counts.found}/${r.counts.vulnerable}, false alarms ${r.counts.falseAlarms}/${r.counts.safe}, ` +
      `unlabelled ${r.unlabelledCount}`,
  );
}

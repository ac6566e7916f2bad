/** The report of our labelled applications (apps-suite.ts) in detection.md and on the console. */
import type { AppResult } from "./apps-suite";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function totals(results: readonly AppResult[]) {
  const sum = (k: "vulnerable" | "found" | "safe" | "falseAlarms") => results.reduce((n, r) => n + r.counts[k], 0);
  const vulnerable = sum("vulnerable");
  const safe = sum("safe");
  return { vulnerable, found: sum("found"), safe, falseAlarms: sum("falseAlarms") };
}

export function appsSummaryLines(results: readonly AppResult[]): string[] {
  const t = totals(results);
  return [
    `| Our labelled applications (${results.map((r) => r.app).join(", ")}) | recall **${pct(t.vulnerable ? t.found / t.vulnerable : 0)}** ` +
      `(${t.found}/${t.vulnerable} vulnerable lines); false alarms **${pct(t.safe ? t.falseAlarms / t.safe : 0)}** (${t.falseAlarms}/${t.safe} safe lines) |`,
  ];
}

export function appsSection(results: readonly AppResult[]): string[] {
  const lines = [
    "## Our labelled applications",
    "",
    "Small applications written here with known flaws and safe twins (`bench/detection/apps/<name>/`, labels in its " +
      "`labels.json`), each scanned as one repository. A vulnerable line is found when a finding in its file covers the " +
      "line with an accepted CWE (itself, a direct parent or child); a safe line is a false alarm when one does. Findings " +
      "on lines nobody labelled are listed apart. These are development figures: the rules were written next to them.",
    "",
    "| App | Files | Vulnerable lines | Found | Recall | Safe lines | False alarms | False-alarm rate | Findings on unlabelled lines | Scan |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const r of results) {
    const c = r.counts;
    lines.push(
      `| ${r.app} | ${r.files} | ${c.vulnerable} | ${c.found} | ${pct(c.recall)} | ${c.safe} | ${c.falseAlarms} | ${pct(c.falseAlarmRate)} | ` +
        `${r.unlabelled.length} | ${(r.scanMs / 1000).toFixed(1)} s |`,
    );
  }
  lines.push("");
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

export function appsConsoleLines(results: readonly AppResult[]): string[] {
  return results.map(
    (r) =>
      `  app ${r.app}: found ${r.counts.found}/${r.counts.vulnerable}, false alarms ${r.counts.falseAlarms}/${r.counts.safe}, unlabelled ${r.unlabelled.length}`,
  );
}

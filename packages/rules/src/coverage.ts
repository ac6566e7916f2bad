/**
 * The coverage plan (packages/rules/coverage.yml): the weakness families the peers document per
 * language, and what covers each here: rules (by id pattern), taint sinks, bandit, or the reason
 * we leave it out. Rendered into docs/rules.md.
 */
import { join } from "node:path";
import { readYaml, rulesRoot, ruleLanguageDir, type RuleMeta } from "./index";

export interface CoverageRow {
  family: string;
  cwe: string[];
  findsecbugs?: string;
  sonar?: string;
  bandit_tests?: string;
  semgrep?: boolean;
  /** Why a family no peer lists for this language is in the plan. */
  asked?: string;
  rules?: string;
  taint?: string;
  /** A scanner analyzer (not the rule pack) that reports the family: "jsp (xss-el, …)". */
  analyzer?: string;
  bandit?: boolean;
  out?: string;
}

export type Coverage = Record<string, CoverageRow[]>;

export const COVERAGE_FILE = join(rulesRoot, "coverage.yml");

/** The peers documented per language: Java (FindSecBugs, SonarQube, Semgrep), Python (+ Bandit). */
const PEERS: Record<string, (keyof CoverageRow)[]> = {
  java: ["findsecbugs", "sonar", "semgrep"],
  python: ["sonar", "bandit_tests", "semgrep"],
  javascript: ["sonar", "semgrep"],
  kotlin: ["findsecbugs", "semgrep"],
  jsp: ["findsecbugs"],
};
const PEER_TITLES: Partial<Record<keyof CoverageRow, string>> = {
  findsecbugs: "FindSecBugs",
  sonar: "SonarQube",
  bandit_tests: "Bandit",
  semgrep: "Semgrep",
};
const LANGUAGE_TITLES: Record<string, string> = {
  java: "Java",
  python: "Python",
  javascript: "JavaScript / TypeScript",
  kotlin: "Kotlin",
  jsp: "JSP",
};

export function loadCoverage(file = COVERAGE_FILE): Coverage {
  return readYaml(file) as Coverage;
}

/** The rules of `language` whose ids a row's pattern matches. */
export function rulesOf(row: CoverageRow, language: string, rules: readonly RuleMeta[]): string[] {
  if (!row.rules) return [];
  const pattern = new RegExp(row.rules);
  return rules
    .filter((r) => ruleLanguageDir(r.file) === language && pattern.test(r.id))
    .map((r) => r.id)
    .sort();
}

const covered = (row: CoverageRow, ours: string[]) => ours.length > 0 || Boolean(row.taint || row.analyzer) || row.bandit === true;

function oursCell(row: CoverageRow, ours: string[]): string {
  const parts = [
    ...(ours.length > 0 ? [ours.map((id) => `\`${id}\``).join(", ")] : []),
    ...(row.taint ? [`taint: ${row.taint}`] : []),
    ...(row.analyzer ? [`analyzer ${row.analyzer}`] : []),
    ...(row.bandit ? ["bandit"] : []),
    ...(row.out ? [`${covered(row, ours) ? "partly left out" : "left out"}: ${row.out}`] : []),
  ];
  return parts.length > 0 ? parts.join("; ").replace(/\|/g, "\\|") : "**not covered yet**";
}

function peerCell(row: CoverageRow, key: keyof CoverageRow): string {
  const v = row[key];
  if (v === true) return "yes";
  return typeof v === "string" && v !== "" ? v : "—";
}

/** The "Coverage against the peers" section of docs/rules.md. */
export function renderCoverage(rules: readonly RuleMeta[], coverage: Coverage = loadCoverage()): string[] {
  const lines = [
    "## Coverage against the peers",
    "",
    "The weakness families that FindSecBugs' bug patterns, SonarQube's security rules and hotspots, Bandit's tests and " +
      "Semgrep's community security rules cover, from their public documentation, with what covers each here: our rules, " +
      "the taint analysis's sinks (docs/dataflow.md), the bandit analyzer every Python scan runs, or why we leave it out. " +
      "The plan lives in `packages/rules/coverage.yml`.",
    "",
  ];
  for (const [language, rows] of Object.entries(coverage)) {
    const peers = PEERS[language] ?? ["sonar", "semgrep"];
    const done = rows.filter((row) => covered(row, rulesOf(row, language, rules))).length;
    lines.push(
      `### ${LANGUAGE_TITLES[language] ?? language}`,
      "",
      `${done} of ${rows.length} families covered.`,
      "",
      `| Family | CWE | ${peers.map((p) => PEER_TITLES[p]).join(" | ")} | Ours |`,
      `| --- | --- | ${peers.map(() => "---").join(" | ")} | --- |`,
    );
    for (const row of rows) {
      const ours = rulesOf(row, language, rules);
      lines.push(
        `| ${row.family}${row.asked ? ` (${row.asked})` : ""} | ${row.cwe.join(", ")} | ${peers.map((p) => peerCell(row, p)).join(" | ")} | ${oursCell(row, ours)} |`,
      );
    }
    lines.push("");
  }
  return lines;
}

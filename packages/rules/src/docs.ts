import { renderCoverage } from "./coverage";
import { loadRules, readYaml, ruleLanguageDir, type RuleMeta } from "./index";

const LANGUAGE_TITLES: Record<string, string> = {
  javascript: "JavaScript / TypeScript",
  python: "Python",
  java: "Java",
  go: "Go",
  php: "PHP",
  ruby: "Ruby",
  csharp: "C#",
  kotlin: "Kotlin",
};

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** docs/rules.md, generated from the rule files (npm run docs:rules). */
export function renderRulesMarkdown(rules: RuleMeta[] = loadRules()): string {
  const byDir = new Map<string, RuleMeta[]>();
  for (const r of rules) {
    const dir = ruleLanguageDir(r.file);
    byDir.set(dir, [...(byDir.get(dir) ?? []), r]);
  }
  const hasFix = (r: RuleMeta) => (readYaml(r.file) as { fix?: unknown }).fix !== undefined;
  const cwes = new Set(rules.map((r) => r.cwe));
  const lines = [
    "# Rule pack",
    "",
    "Generated from `packages/rules/rules/**/*.yml` by `npm run docs:rules`; do not edit by hand.",
    "",
    `${rules.length} rules in ${byDir.size} languages, covering ${cwes.size} CWEs; ${rules.filter(hasFix).length} offer an automatic fix.`,
    "",
    "| Language | Rules | With fix |",
    "| --- | ---: | ---: |",
    ...[...byDir].map(([dir, list]) => `| ${LANGUAGE_TITLES[dir] ?? dir} | ${list.length} | ${list.filter(hasFix).length} |`),
    "",
    ...renderCoverage(rules),
  ];
  for (const [dir, list] of byDir) {
    lines.push(
      `## ${LANGUAGE_TITLES[dir] ?? dir}`,
      "",
      "| Rule | CWE | OWASP 2021 | Severity | Confidence | Title | Fix |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const r of [...list].sort((a, b) => a.id.localeCompare(b.id))) {
      const cweNum = r.cwe.replace(/^CWE-/, "");
      lines.push(
        `| \`${r.id}\` | [${r.cwe}](https://cwe.mitre.org/data/definitions/${cweNum}.html) ` +
          `${cell(r.cwe_name)} | ${cell(r.owasp)} | ${r.severity} | ${r.confidence} | ${cell(r.title)} | ` +
          `${hasFix(r) ? "yes" : ""} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}

import { describe, expect, it } from "@jest/globals";
import { loadRules, ruleLanguageDir } from "./index";
import { loadCoverage, rulesOf } from "./coverage";

const rules = loadRules();
const coverage = loadCoverage();

describe("the coverage plan (coverage.yml)", () => {
  it("has Java, Kotlin, JSP, Python and JavaScript families, each with its CWEs and at least one peer", () => {
    expect(Object.keys(coverage).sort()).toEqual(["java", "javascript", "jsp", "kotlin", "python"]);
    for (const rows of Object.values(coverage))
      for (const row of rows) {
        expect(row.cwe.length).toBeGreaterThan(0);
        for (const c of row.cwe) expect(c).toMatch(/^CWE-\d+$/);
        expect([row.family, Boolean(row.findsecbugs || row.sonar || row.bandit_tests || row.semgrep || row.asked)]).toEqual([
          row.family,
          true,
        ]);
      }
  });

  it("says for every family what covers it or why it is left out", () => {
    const open: string[] = [];
    for (const [language, rows] of Object.entries(coverage))
      for (const row of rows) {
        const ours = rulesOf(row, language, rules);
        if (ours.length === 0 && !row.taint && !row.analyzer && !row.bandit && !row.out) open.push(`${language}: ${row.family}`);
      }
    expect(open).toEqual([]);
  });

  it("names only rules that exist: a row's pattern matches a rule of its language unless the family is left out", () => {
    const dangling: string[] = [];
    for (const [language, rows] of Object.entries(coverage))
      for (const row of rows)
        if (row.rules && !row.out && rulesOf(row, language, rules).length === 0) dangling.push(`${language}: ${row.rules}`);
    expect(dangling).toEqual([]);
  });

  it("places every Java, Kotlin, Python and JavaScript rule in some family", () => {
    const placed = new Set(Object.entries(coverage).flatMap(([language, rows]) => rows.flatMap((row) => rulesOf(row, language, rules))));
    const unplaced = rules
      .filter((r) => ["java", "kotlin", "python", "javascript"].includes(ruleLanguageDir(r.file)) && !placed.has(r.id))
      .map((r) => r.id);
    expect(unplaced).toEqual([]);
  });
});

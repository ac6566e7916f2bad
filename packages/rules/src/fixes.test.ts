// Every rule that offers a fix, checked on every vulnerable case of its own tests with the
// real ast-grep: applying the fix makes the rule stop matching and adds no parse error.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpDir } from "@ax/testkit/temp";
import { astGrepBinary, loadRules, readYaml, ruleTestFile } from "./index";

const EXTENSION: Record<string, string> = {
  Tsx: "tsx",
  TypeScript: "ts",
  JavaScript: "js",
  Python: "py",
  Java: "java",
  Go: "go",
  Php: "php",
  Ruby: "rb",
  CSharp: "cs",
  Kotlin: "kt",
};

const bin = astGrepBinary();
const withFix = loadRules().filter((r) => {
  const doc = readYaml(r.file) as { fix?: unknown };
  return doc.fix !== undefined;
});
const work = tmpDir("ax-fixes-");

function matches(ruleFile: string, file: string): number {
  const r = spawnSync(bin, ["scan", "-r", ruleFile, "--json=stream", file], { encoding: "utf8" });
  return r.stdout.split("\n").filter((l) => l.trim()).length;
}

function parseErrors(language: string, file: string): number {
  const inline = `id: parse-error\nlanguage: ${language}\nseverity: info\nrule:\n  kind: ERROR\n`;
  const r = spawnSync(bin, ["scan", "--inline-rules", inline, "--json=stream", file], { encoding: "utf8" });
  return r.stdout.split("\n").filter((l) => l.trim()).length;
}

describe("rule fixes", () => {
  it("exist for the mechanical cases (weak hashes, unsafe YAML loading, disabled TLS checks, …)", () => {
    expect(withFix.length).toBeGreaterThanOrEqual(8);
  });

  it.each(withFix.map((r) => [r.id, r] as const))("%s: the fix removes the finding and keeps the file parseable", (_id, rule) => {
    const cases = (readYaml(ruleTestFile(rule.id)) as { invalid?: string[] }).invalid ?? [];
    expect(cases.length).toBeGreaterThanOrEqual(1);
    const ext = EXTENSION[rule.language];
    expect(ext).toBeDefined();
    cases.forEach((code, i) => {
      const file = join(work, `${rule.id}-${i}.${ext}`);
      writeFileSync(file, code);
      expect(matches(rule.file, file)).toBeGreaterThanOrEqual(1);
      const errorsBefore = parseErrors(rule.language, file);
      const applied = spawnSync(bin, ["scan", "-r", rule.file, "--update-all", file], { encoding: "utf8" });
      expect(applied.status).toBe(0);
      const after = readFileSync(file, "utf8");
      expect({ case: i, changed: after !== code }).toEqual({ case: i, changed: true });
      expect({ case: i, remaining: matches(rule.file, file) }).toEqual({ case: i, remaining: 0 });
      expect(parseErrors(rule.language, file)).toBeLessThanOrEqual(errorsBefore);
    });
  });
});

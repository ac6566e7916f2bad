import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shellcheckAnalyzer } from "./shellcheck";
import { AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext, requireTool, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  requireTool("shellcheck");
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);

const VULNERABLE = [
  "#!/bin/bash",
  "target=$1",
  "rm -rf $target/*",
  "cd /tmp/work",
  'find . -name "*.log" -exec sh -c "gzip {}" \\;',
  'printf "$2" done',
  "if [[ $token == $3 ]]; then echo ok; fi",
  "read line",
  "",
].join("\n");

const SAFE = [
  "#!/bin/sh",
  "set -eu",
  'dir="${1:?usage: clean DIR}"',
  'cd "$dir" || exit 1',
  'find . -name "*.tmp" -exec rm -- {} +',
  "",
].join("\n");

it("reports the installed version", async () => {
  await expect(shellcheckAnalyzer().version()).resolves.toMatch(/^\d+\.\d+\.\d+ \(mapping \d+\)$/);
});

it("reports the security-relevant checks with their CWE, and nothing else", async () => {
  const dir = writeCheckout(root, "vulnerable", {
    "scripts/deploy.sh": VULNERABLE,
    "scripts/clean.sh": SAFE,
    "bin/tool": "#!/bin/sh\necho $1\n",
  });
  const findings = await shellcheckAnalyzer().run(ctx(dir, ["scripts/deploy.sh", "scripts/clean.sh", "bin/tool"]));
  expect(findings.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`).sort()).toEqual([
    "bin/tool:2:shellcheck.SC2086",
    "scripts/deploy.sh:3:shellcheck.SC2086",
    "scripts/deploy.sh:3:shellcheck.SC2115",
    "scripts/deploy.sh:4:shellcheck.SC2164",
    "scripts/deploy.sh:5:shellcheck.SC2156",
    "scripts/deploy.sh:6:shellcheck.SC2059",
    "scripts/deploy.sh:7:shellcheck.SC2053",
  ]);
  const at = (line: number, rule: string) =>
    findings.find((f) => f.start_line === line && f.rule_id === rule && f.file === "scripts/deploy.sh");
  expect(at(3, "shellcheck.SC2086")).toMatchObject({
    analyzer: "shellcheck",
    cwe_id: "CWE-88",
    severity: "LOW",
    confidence: "LOW",
    start_column: 8,
    end_column: 15,
    snippet: "rm -rf $target/*",
    message: "Double quote to prevent globbing and word splitting.",
    fingerprint: "",
  });
  expect(at(3, "shellcheck.SC2086")?.cwe_name).toMatch(/Argument Injection/);
  expect(at(3, "shellcheck.SC2115")).toMatchObject({ cwe_id: "CWE-456", severity: "MEDIUM" });
  expect(at(4, "shellcheck.SC2164")).toMatchObject({ cwe_id: "CWE-252", cwe_name: "Unchecked Return Value" });
  expect(at(5, "shellcheck.SC2156")).toMatchObject({ cwe_id: "CWE-78", severity: "MEDIUM", owasp: "A03:2021-Injection" });
  expect(at(6, "shellcheck.SC2059")).toMatchObject({ cwe_id: "CWE-134" });
  expect(at(7, "shellcheck.SC2053")).toMatchObject({ cwe_id: "CWE-697", cwe_name: "Incorrect Comparison" });
  expect(findings.filter((f) => f.file === "scripts/clean.sh")).toEqual([]);
});

it("reports every check on request, without a CWE", async () => {
  const dir = writeCheckout(root, "all", { "a.sh": VULNERABLE });
  const findings = await shellcheckAnalyzer({ allChecks: true }).run(ctx(dir, ["a.sh"]));
  expect(findings.find((f) => f.rule_id === "shellcheck.SC2162")).toMatchObject({ start_line: 8, cwe_id: null, severity: "INFO" });
});

it("offers shellcheck's fix as one byte range; applying it clears the finding and the script still parses", async () => {
  const script = "#!/bin/bash\n# naïve 日本\nrm -f $1\n";
  const dir = writeCheckout(root, "fix", { "f.sh": script });
  const [finding] = await shellcheckAnalyzer().run(ctx(dir, ["f.sh"]));
  expect(finding).toMatchObject({ rule_id: "shellcheck.SC2086", start_line: 3 });
  const fix = finding?.fix as NonNullable<NonNullable<typeof finding>["fix"]>;
  const bytes = Buffer.from(script);
  expect(bytes.subarray(fix.start_byte, fix.end_byte).toString()).toBe("$1");
  expect(fix.replacement).toBe('"$1"');
  const fixed = Buffer.concat([bytes.subarray(0, fix.start_byte), Buffer.from(fix.replacement), bytes.subarray(fix.end_byte)]);
  writeFileSync(join(dir, "f.sh"), fixed);
  expect(readFileSync(join(dir, "f.sh"), "utf8")).toBe('#!/bin/bash\n# naïve 日本\nrm -f "$1"\n');
  expect(await shellcheckAnalyzer().run(ctx(dir, ["f.sh"]))).toEqual([]);
  execFileSync("bash", ["-n", join(dir, "f.sh")]);
});

it("ignores a .shellcheckrc in the repository", async () => {
  const dir = writeCheckout(root, "rc", { ".shellcheckrc": "disable=SC2086,SC2115\n", "x.sh": "#!/bin/sh\nrm -rf $1/*\n" });
  const findings = await shellcheckAnalyzer().run(ctx(dir, ["x.sh"]));
  expect(findings.map((f) => f.rule_id).sort()).toEqual(["shellcheck.SC2086", "shellcheck.SC2115"]);
});

it("finds every file of a list longer than one command line", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1100; i++)
    files[`s/x${String(i).padStart(4, "0")}.sh`] = i % 550 === 0 ? "#!/bin/sh\nrm $1\n" : "#!/bin/sh\necho hi\n";
  const dir = writeCheckout(root, "many", files);
  const findings = await shellcheckAnalyzer().run(ctx(dir, Object.keys(files)));
  expect(findings.map((f) => f.file).sort()).toEqual(["s/x0000.sh", "s/x0550.sh"]);
});

it("stops at the output cap", async () => {
  const dir = writeCheckout(root, "noisy", { "n.sh": "#!/bin/sh\n" + "rm $1\n".repeat(300) });
  const err = await shellcheckAnalyzer()
    .run(ctx(dir, ["n.sh"], { maxOutputBytes: 2048 }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
});

it("is unavailable when shellcheck is not installed", async () => {
  const missing = shellcheckAnalyzer({ binary: join(root, "no-such-shellcheck") });
  await expect(missing.version()).resolves.toBeNull();
  const dir = writeCheckout(root, "missing", { "a.sh": "echo\n" });
  await expect(missing.run(ctx(dir, ["a.sh"]))).rejects.toThrow(
    new AnalyzerUnavailableError("shellcheck is not installed on this worker."),
  );
});

import { join } from "node:path";
import { banditAnalyzer } from "./bandit";
import { AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext, requireTool, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  requireTool("bandit");
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);

const VULNERABLE = [
  "import subprocess",
  "import yaml",
  "import hashlib",
  "",
  "",
  "def run(cmd, data):",
  "    subprocess.call(cmd, shell=True)",
  "    value = eval(data)",
  "    conf = yaml.load(data)",
  "    digest = hashlib.md5(data).hexdigest()",
  "    subprocess.call(cmd, shell=True)  # nosec",
  '    connect(password="s3cr3t-Pw")',
  "    assert value",
  "    return value, conf, digest",
  "",
].join("\n");

const SAFE = ["import json", "", "", "def load(data):", "    return json.loads(data)", ""].join("\n");

it("reports the installed version with the mapping revision", async () => {
  await expect(banditAnalyzer().version()).resolves.toMatch(/^\d+\.\d+\.\d+ \(mapping \d+\.[0-9a-f]{8}\)$/);
});

it("maps bandit's results: rule, normalized CWE, line, severity, confidence", async () => {
  const dir = writeCheckout(root, "vulnerable", { "app/tasks.py": VULNERABLE, "app/safe.py": SAFE });
  const findings = await banditAnalyzer().run(ctx(dir, ["app/tasks.py", "app/safe.py"]));
  const at = (rule: string, line: number) => findings.find((f) => f.rule_id === rule && f.start_line === line);

  expect(at("bandit.B602", 7)).toMatchObject({
    analyzer: "bandit",
    file: "app/tasks.py",
    cwe_id: "CWE-78",
    owasp: "A03:2021-Injection",
    severity: "HIGH",
    confidence: "HIGH",
    start_column: 1,
    end_line: 7,
    end_column: 37,
    snippet: "    subprocess.call(cmd, shell=True)",
    fingerprint: "",
    title: "Subprocess popen with shell equals true",
  });
  expect(at("bandit.B602", 7)?.cwe_name).toMatch(/OS Command Injection/);
  expect(at("bandit.B602", 7)?.raw).toMatchObject({ test_id: "B602", nosec: false });
  // bandit tags eval CWE-78 (newer releases) or nothing (1.6.2): normalized to eval injection.
  expect(at("bandit.B307", 8)).toMatchObject({ cwe_id: "CWE-95", severity: "MEDIUM", title: "Use of eval" });
  expect(at("bandit.B307", 8)?.cwe_name).toMatch(/Eval Injection/);
  expect(at("bandit.B307", 8)?.raw).toMatchObject({ cwe_normalized: { to: "CWE-95" } });
  expect(at("bandit.B506", 9)).toMatchObject({ cwe_id: "CWE-502", remediation: expect.stringMatching(/safe_load/) });
  expect(at("bandit.B303", 10)).toMatchObject({ cwe_id: "CWE-328" });
  // --ignore-nosec: the line is reported, and raw says it had a nosec comment.
  expect(at("bandit.B602", 11)?.raw).toMatchObject({ nosec: true });
  expect(at("bandit.B404", 1)).toMatchObject({ severity: "LOW", cwe_id: null, title: "Import of subprocess" });
  expect(at("bandit.B101", 13)).toMatchObject({ cwe_id: "CWE-703", severity: "LOW" });
  expect(findings.filter((f) => f.file === "app/safe.py")).toEqual([]);
});

it("never stores the hard-coded password bandit quotes", async () => {
  const dir = writeCheckout(root, "password", { "db.py": VULNERABLE });
  const findings = await banditAnalyzer().run(ctx(dir, ["db.py"]));
  const pw = findings.find((f) => f.rule_id === "bandit.B106");
  expect(pw).toMatchObject({ start_line: 12, cwe_id: "CWE-798" });
  expect(JSON.stringify(findings)).not.toContain("s3cr3t-Pw");
  expect(pw?.message).toMatch(/…\[redacted, 9 chars\]/);
});

it("skips asserts in test files but not elsewhere", async () => {
  const dir = writeCheckout(root, "asserts", {
    "tests/test_x.py": "def test_a():\n    assert 1 == 1\n",
    "lib/x.py": "def f(a):\n    assert a\n",
  });
  const findings = await banditAnalyzer().run(ctx(dir, ["tests/test_x.py", "lib/x.py"]));
  expect(findings.map((f) => `${f.file}:${f.rule_id}`)).toEqual(["lib/x.py:bandit.B101"]);
});

it("finds every file of a list longer than one command line", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1205; i++) files[`pkg/m${String(i).padStart(4, "0")}.py`] = i % 300 === 0 ? "eval(x)\n" : "x = 1\n";
  const dir = writeCheckout(root, "many", files);
  const findings = await banditAnalyzer().run(ctx(dir, Object.keys(files)));
  expect(findings.map((f) => f.file).sort()).toEqual(["pkg/m0000.py", "pkg/m0300.py", "pkg/m0600.py", "pkg/m0900.py", "pkg/m1200.py"]);
});

it("stops at the output cap", async () => {
  const dir = writeCheckout(root, "noisy", { "n.py": "eval(x)\n".repeat(500) });
  const err = await banditAnalyzer()
    .run(ctx(dir, ["n.py"], { maxOutputBytes: 2048 }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  expect((err as Error).message).toMatch(/^bandit produced more than 2048 bytes of output/);
});

it("is unavailable (the run is skipped) when bandit is not installed", async () => {
  const missing = banditAnalyzer({ binary: join(root, "no-such-bandit") });
  await expect(missing.version()).resolves.toBeNull();
  const dir = writeCheckout(root, "missing", { "a.py": "eval(x)\n" });
  const err = await missing.run(ctx(dir, ["a.py"])).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerUnavailableError);
  expect((err as Error).message).toBe("bandit is not installed on this worker.");
});

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { astGrepAnalyzer } from "./ast-grep";
import { AnalyzerFailedError, AnalyzerOutputLimitError, type AnalyzerContext } from "./types";
import { astGrepBinaryPath, writeFixtureRulePack } from "../test-support/ast-grep-fixture";
import { removeDir, tempDir } from "../test-support/git-fixtures";

let root: string;
let configPath: string;
const binary = astGrepBinaryPath();

beforeAll(() => {
  root = tempDir();
  configPath = writeFixtureRulePack(join(root, "pack"));
});
afterAll(() => removeDir(root));

function checkout(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

function ctx(dir: string, over: Partial<AnalyzerContext> = {}): AnalyzerContext {
  return {
    dir, languages: new Set(["javascript", "python"]), timeoutMs: 30_000, maxOutputBytes: 64 * 1024 * 1024,
    signal: new AbortController().signal, scratchDir: mkdtempSync(join(root, "scratch-")), ...over,
  };
}

it("reports the version of the real binary", async () => {
  await expect(astGrepAnalyzer({ binary, configPath }).version()).resolves.toBe("0.51.1");
});

it("normalises matches: repo-relative file, 1-based positions, snippet, rule metadata", async () => {
  const dir = checkout("basic", {
    "src/app.js": "const a = 1;\n\nfunction run(input) {\n  return eval(\n    input\n  );\n}\n",
    "tools/x.py": "import os\nexec(code)\n",
  });
  const findings = await astGrepAnalyzer({ binary, configPath }).run(ctx(dir));
  const js = findings.find((f) => f.rule_id === "js-eval");
  expect(js).toMatchObject({
    analyzer: "ast-grep",
    file: "src/app.js",
    start_line: 4, start_column: 10, end_line: 6, end_column: 4,
    snippet: "  return eval(\n    input\n  );",
    title: "Use of eval",
    message: "Avoid eval of input",
    cwe_id: "CWE-95",
    owasp: "A03:2021 - Injection",
    severity: "HIGH",
    confidence: "MEDIUM",
    likelihood: "LOW",
    impact: "HIGH",
    remediation: "Parse the data instead of evaluating it.",
    fingerprint: "",
  });
  expect(js?.cwe_name).toMatch(/Eval Injection/);
  expect(js?.raw).toMatchObject({ ruleId: "js-eval", text: "eval(\n    input\n  )", metaVariables: { X: "input" } });
  expect(js?.raw).not.toHaveProperty("lines");

  // No metadata: severity from ast-grep's "warning", defaults elsewhere.
  expect(findings.find((f) => f.rule_id === "py-exec")).toMatchObject({
    file: "tools/x.py", start_line: 2, start_column: 1, end_line: 2, end_column: 11,
    severity: "MEDIUM", confidence: "MEDIUM", likelihood: null, cwe_id: null, title: "py-exec", remediation: "Avoid exec.",
  });
  expect(findings).toHaveLength(2);
});

it("skips vendored/minified code but not hidden or .gitignored files, and ignores the repository's own sgconfig", async () => {
  const dir = checkout("scope", {
    "node_modules/lib/index.js": "eval(a)\n", "vendor/v.js": "eval(b)\n", "dist/d.js": "eval(c)\n", "web/build/b.js": "eval(d)\n",
    "public/app.min.js": "eval(e)\n", ".github/scripts/s.js": "eval(f)\n", "ignored.js": "eval(g)\n", ".gitignore": "ignored.js\n",
    // A repository trying to bring its own rules (or turn ours off) with a config of its own.
    "sgconfig.yml": "ruleDirs:\n  - myrules\n", "myrules/r.yml": "id: repo-rule\nlanguage: javascript\nrule:\n  pattern: $A\n",
  });
  const findings = await astGrepAnalyzer({ binary, configPath }).run(ctx(dir));
  expect(findings.map((f) => f.file).sort()).toEqual([".github/scripts/s.js", "ignored.js"]);
  expect(findings.every((f) => f.rule_id === "js-eval")).toBe(true);
});

it("stops at the output cap and keeps what was parsed", async () => {
  const dir = checkout("noisy", { "many.js": "eval(x);\n".repeat(2000) });
  const err = await astGrepAnalyzer({ binary, configPath }).run(ctx(dir, { maxOutputBytes: 4096 })).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  const partial = (err as AnalyzerOutputLimitError).partial;
  expect(partial.length).toBeGreaterThan(0);
  expect(partial.length).toBeLessThan(2000);
  expect((err as Error).message).toMatch(/more than 4096 bytes of output/);
});

it("reports a broken rule pack as a failure without the worker's paths", async () => {
  const pack = join(root, "broken-pack");
  mkdirSync(join(pack, "rules"), { recursive: true });
  writeFileSync(join(pack, "sgconfig.yml"), "ruleDirs:\n  - rules\n");
  writeFileSync(join(pack, "rules", "bad.yml"), "id: bad\nlanguage: nolang\nrule:\n  pattern: x\n");
  const err = await astGrepAnalyzer({ binary, configPath: join(pack, "sgconfig.yml") })
    .run(ctx(checkout("for-broken", { "a.js": "eval(1)\n" })))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerFailedError);
  expect((err as AnalyzerFailedError).notice).toMatch(/^ast-grep failed \(exit code \d+\)/);
  expect((err as AnalyzerFailedError).notice).not.toContain(root);
});

it("has no version when the binary is missing", async () => {
  await expect(astGrepAnalyzer({ binary: join(root, "no-such-ast-grep"), configPath }).version()).resolves.toBeNull();
});

it("runs the tool with a minimal environment: no database URL or keys", async () => {
  const envDump = join(root, "env.txt");
  const fake = join(root, "fake-ast-grep");
  writeFileSync(fake, `#!/bin/sh\nenv > '${envDump}'\n`);
  chmodSync(fake, 0o755);
  process.env.DATABASE_URL = "postgres://user:secret@db/ax";
  process.env.AI_API_KEY = "sk-test-secret";
  try {
    await expect(astGrepAnalyzer({ binary: fake, configPath }).run(ctx(checkout("env", { "a.js": "" })))).resolves.toEqual([]);
  } finally {
    delete process.env.DATABASE_URL;
    delete process.env.AI_API_KEY;
  }
  const env = readFileSync(envDump, "utf8");
  expect(env).not.toMatch(/DATABASE_URL|AI_API_KEY|secret/);
  expect(env).toMatch(/^HOME=/m);
});

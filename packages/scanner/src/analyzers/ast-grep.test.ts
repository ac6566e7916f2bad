import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { astGrepAnalyzer, ruleConfigFor } from "./ast-grep";
import { loadRulePack } from "./rule-pack";
import { AnalyzerFailedError, AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { astGrepBinaryPath, writeFixtureRulePack } from "../../test/ast-grep-fixture";
import { analyzerContext, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
let configPath: string;
const binary = astGrepBinaryPath();

beforeAll(() => {
  root = tempDir();
  configPath = writeFixtureRulePack(join(root, "pack"));
});
afterAll(() => removeDir(root));

const checkout = (name: string, files: Record<string, string>) => writeCheckout(root, name, files);
const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);
const analyzer = () => astGrepAnalyzer({ binary, configPath });

it("declares its languages and is cacheable", () => {
  const a = analyzer();
  expect(a.languages).toEqual(["javascript", "typescript", "python", "java", "go", "php", "ruby", "csharp", "kotlin"]);
  expect(a.cacheable).toBe(true);
});

it("reports the version of the real binary", async () => {
  await expect(analyzer().version()).resolves.toBe("0.51.1");
});

it("normalises matches: repo-relative file, 1-based positions, snippet, rule metadata", async () => {
  const dir = checkout("basic", {
    "src/app.js": "const a = 1;\n\nfunction run(input) {\n  return eval(\n    input\n  );\n}\n",
    "tools/x.py": "import os\nexec(code)\n",
  });
  const findings = await analyzer().run(ctx(dir, ["src/app.js", "tools/x.py"]));
  const js = findings.find((f) => f.rule_id === "js-eval");
  expect(js).toMatchObject({
    analyzer: "ast-grep",
    file: "src/app.js",
    start_line: 4,
    start_column: 10,
    end_line: 6,
    end_column: 4,
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
  expect(js).not.toHaveProperty("fix");

  // No metadata: severity from ast-grep's "warning", defaults elsewhere.
  expect(findings.find((f) => f.rule_id === "py-exec")).toMatchObject({
    file: "tools/x.py",
    start_line: 2,
    start_column: 1,
    end_line: 2,
    end_column: 11,
    severity: "MEDIUM",
    confidence: "MEDIUM",
    likelihood: null,
    cwe_id: null,
    title: "py-exec",
    remediation: "Avoid exec.",
  });
  expect(findings).toHaveLength(2);
});

it("scans exactly ctx.files: listed vendored, hidden and .gitignored files yes, unlisted files no, the repository's sgconfig never", async () => {
  const dir = checkout("scope", {
    "node_modules/lib/index.js": "eval(a)\n",
    ".github/scripts/s.js": "eval(f)\n",
    "ignored.js": "eval(g)\n",
    ".gitignore": "ignored.js\n",
    "not-listed.js": "eval(h)\n",
    "-dash.js": "eval(i)\n",
    // A repository trying to bring its own rules (or turn ours off) with a config of its own.
    "sgconfig.yml": "ruleDirs:\n  - myrules\n",
    "myrules/r.yml": "id: repo-rule\nlanguage: javascript\nrule:\n  pattern: $A\n",
  });
  const files = ["node_modules/lib/index.js", ".github/scripts/s.js", "ignored.js", "-dash.js"];
  const findings = await analyzer().run(ctx(dir, files));
  expect(findings.map((f) => f.file).sort()).toEqual([...files].sort());
  expect(findings.every((f) => f.rule_id === "js-eval")).toBe(true);
});

it("passes long file lists in several command lines and finds every file", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1203; i++) files[`src/module-${String(i).padStart(4, "0")}.js`] = i % 100 === 0 ? "eval(x);\n" : "let y = 1;\n";
  const dir = checkout("many-files", files);
  const findings = await analyzer().run(ctx(dir, Object.keys(files)));
  // More than DEFAULT_CHUNK_FILES (1000): at least two ast-grep processes.
  expect(findings.map((f) => f.file).sort()).toEqual(Object.keys(files).filter((_, i) => i % 100 === 0));
});

it("maps a rule's fix to byte offsets that rewrite the file correctly, also after multi-byte text", async () => {
  const source = 'import yaml\n# é ünïcode 日本\nd = yaml.load(  data )\nx = "日本"; yaml.load(x)\n';
  const dir = checkout("fix", { "app/conf.py": source });
  const findings = (await analyzer().run(ctx(dir, ["app/conf.py"]))).filter((f) => f.rule_id === "py-yaml-load");
  expect(findings).toHaveLength(2);
  const bytes = Buffer.from(source, "utf8");
  const [first, second] = findings;
  expect(first?.fix).toEqual({ replacement: "yaml.safe_load(data)", start_byte: 38, end_byte: 56, description: "Use yaml.safe_load." });
  expect(bytes.subarray(first?.fix?.start_byte, first?.fix?.end_byte).toString()).toBe("yaml.load(  data )");
  expect(second?.fix?.replacement).toBe("yaml.safe_load(x)");
  expect(bytes.subarray(second?.fix?.start_byte, second?.fix?.end_byte).toString()).toBe("yaml.load(x)");
  expect(first?.raw).not.toHaveProperty("replacement");

  // Applying both fixes (last first, so offsets stay valid) leaves nothing to report.
  let fixed = bytes;
  for (const f of [...findings].sort((a, b) => (b.fix?.start_byte ?? 0) - (a.fix?.start_byte ?? 0))) {
    const fix = f.fix as NonNullable<typeof f.fix>;
    fixed = Buffer.concat([fixed.subarray(0, fix.start_byte), Buffer.from(fix.replacement), fixed.subarray(fix.end_byte)]);
  }
  expect(fixed.toString()).toBe('import yaml\n# é ünïcode 日本\nd = yaml.safe_load(data)\nx = "日本"; yaml.safe_load(x)\n');
  writeFileSync(join(dir, "app/conf.py"), fixed);
  expect((await analyzer().run(ctx(dir, ["app/conf.py"]))).filter((f) => f.rule_id === "py-yaml-load")).toEqual([]);
});

it("redacts credentials that a match quotes", async () => {
  const token = `ghp_${"aB3dE5fG7h".repeat(3)}Zx9Qw8`;
  const dir = checkout("quoted-secret", { "a.js": `eval("${token}");\n` });
  const [finding] = await analyzer().run(ctx(dir, ["a.js"]));
  expect(JSON.stringify(finding)).not.toContain(token);
  expect(finding?.snippet).toContain("ghp_…[redacted, 40 chars]");
});

it("stops at the output cap and keeps what was parsed", async () => {
  const dir = checkout("noisy", { "many.js": "eval(x);\n".repeat(2000) });
  const err = await analyzer()
    .run(ctx(dir, ["many.js"], { maxOutputBytes: 4096 }))
    .catch((e: unknown) => e);
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
    .run(ctx(checkout("for-broken", { "a.js": "eval(1)\n" }), ["a.js"]))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerFailedError);
  expect((err as AnalyzerFailedError).notice).toMatch(/^ast-grep failed \(exit code \d+\)/);
  expect((err as AnalyzerFailedError).notice).not.toContain(root);
});

it("is unavailable, not failed, when the binary is missing", async () => {
  const missing = astGrepAnalyzer({ binary: join(root, "no-such-ast-grep"), configPath });
  await expect(missing.version()).resolves.toBeNull();
  const err = await missing.run(ctx(checkout("no-binary", { "a.js": "eval(1)\n" }), ["a.js"])).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerUnavailableError);
  expect((err as Error).message).toBe("ast-grep is not installed on this worker.");
});

it("runs the tool with a minimal environment: no database URL or keys", async () => {
  const envDump = join(root, "env.txt");
  const fake = join(root, "fake-ast-grep");
  writeFileSync(fake, `#!/bin/sh\nenv > '${envDump}'\n`);
  chmodSync(fake, 0o755);
  process.env.DATABASE_URL = "postgres://user:secret@db/ax";
  process.env.AI_API_KEY = "sk-test-secret";
  try {
    await expect(astGrepAnalyzer({ binary: fake, configPath }).run(ctx(checkout("env", { "a.js": "" }), ["a.js"]))).resolves.toEqual([]);
  } finally {
    delete process.env.DATABASE_URL;
    delete process.env.AI_API_KEY;
  }
  const env = readFileSync(envDump, "utf8");
  expect(env).not.toMatch(/DATABASE_URL|AI_API_KEY|secret/);
  expect(env).toMatch(/^HOME=/m);
});

describe("the shipped rule pack, loaded per language", () => {
  const files = {
    "web/app.js": "const { exec } = require('child_process');\nexports.run = (req) => exec(req.query.cmd);\nexports.e = (x) => eval(x);\n",
    "tools/job.py": "import os, pickle\ndef run(cmd, blob):\n    os.system(cmd)\n    return pickle.loads(blob)\n",
    "src/Run.java":
      'class Run {\n  void f(String x) throws Exception {\n    Runtime.getRuntime().exec(x);\n    java.security.MessageDigest.getInstance("MD5");\n  }\n}\n',
    "cmd/main.go": 'package main\nimport ("crypto/md5"; "os/exec")\nfunc f(x string) { exec.Command("sh", "-c", x).Run(); md5.New() }\n',
    "lib/x.rb": 'def f\n  eval(params[:code])\n  system("ls #{params[:dir]}")\nend\n',
  };
  const key = (fs: NormalizedFinding[]) => fs.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`).sort();

  let loadedConfig = "";
  beforeAll(async () => {
    loadedConfig = (await loadRulePack())?.configPath ?? "";
  });

  it("gives each file the findings of the whole pack from a config with only its language's rules", async () => {
    const pack = await loadRulePack();
    if (!pack?.binary) throw new Error("the @ax/rules pack and its ast-grep binary are needed here");
    const shipped = astGrepAnalyzer({ binary: pack.binary, configPath: pack.configPath });
    const dir = checkout("per-language", { ...files, "native/x.c": "int main(void) { return 0; }\n" });
    // A C file has no rule directory: the pack's own config, every rule.
    const whole = await shipped.run(ctx(dir, [...Object.keys(files), "native/x.c"]));
    // Every language's file has findings, so the comparison below covers each.
    expect(new Set(whole.map((f) => f.file))).toEqual(new Set(Object.keys(files)));
    const each = await Promise.all(Object.keys(files).map((f) => shipped.run(ctx(dir, [f]))));
    expect(key(each.flat())).toEqual(key(whole));

    const scratch = mkdtempSync(join(root, "cfg-"));
    const config = readFileSync(await ruleConfigFor(pack.configPath, ["tools/job.py", "web/app.ts"], scratch), "utf8");
    const block = /^ruleDirs:\n((?:[ \t]+- .+\n)+)/m.exec(config)?.[1] ?? "";
    const ruleDirs = [...block.matchAll(/- "(.+)"/g)].map((m) => basename(m[1] ?? ""));
    expect(ruleDirs.sort()).toEqual(["javascript", "python"]);
    expect(config).toContain("languageGlobs:");
    expect(await ruleConfigFor(pack.configPath, ["tools/job.py", "native/x.c"], scratch)).toBe(pack.configPath);
  });

  it("keeps one language per rule directory, which is what loading them per language relies on", () => {
    const rules = join(dirname(loadedConfig), "rules");
    for (const dir of readdirSync(rules)) {
      const languages = new Set(
        readdirSync(join(rules, dir)).map((f) => /^language:\s*(\S+)/m.exec(readFileSync(join(rules, dir, f), "utf8"))?.[1]),
      );
      expect([dir, [...languages]]).toEqual([dir, [dir === "javascript" ? "Tsx" : expect.any(String)]]);
    }
  });
});

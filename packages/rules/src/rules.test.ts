import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tmpDir } from "@ax/testkit/temp";
import {
  astGrepBinary,
  LEVELS,
  loadRules,
  readYaml,
  RULE_PACK_VERSION,
  ruleFiles,
  ruleLanguageDir,
  rulesRoot,
  ruleTestFile,
  SEVERITIES,
  sgConfigPath,
  type RuleMeta,
} from "./index";
import { CWE_NAMES, OWASP_2021 } from "./taxonomy";

// node:child_process rather than execa: the execa hoisted at the root is v5 (CommonJS, no
// named `execa` export), and this package does not depend on execa itself.
function run(args: string[], cwd = rulesRoot): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(astGrepBinary(), args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 50_000 });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const METADATA_KEYS = ["confidence", "cwe", "cwe_name", "impact", "likelihood", "owasp", "references", "remediation", "severity", "title"];

const OWASP_CATEGORIES = new Set<string>(OWASP_2021);

/** Directory → [id prefix, ast-grep language names allowed there]. */
const LANGUAGE_DIRS: Record<string, { prefix: string; languages: string[] }> = {
  javascript: { prefix: "js-", languages: ["Tsx", "TypeScript", "JavaScript"] },
  python: { prefix: "py-", languages: ["Python"] },
  java: { prefix: "java-", languages: ["Java"] },
  go: { prefix: "go-", languages: ["Go"] },
  php: { prefix: "php-", languages: ["Php"] },
  ruby: { prefix: "rb-", languages: ["Ruby"] },
  csharp: { prefix: "cs-", languages: ["CSharp"] },
  kotlin: { prefix: "kt-", languages: ["Kotlin"] },
};

/** Languages that must each have a substantial rule set. */
const REQUIRED_LANGUAGE_DIRS = ["javascript", "python", "java", "go", "php", "ruby", "csharp", "kotlin"];

/** ast-grep's own severity must agree with the metadata severity. */
const LEVEL_FOR: Record<string, string[]> = {
  CRITICAL: ["error"],
  HIGH: ["error"],
  MEDIUM: ["warning"],
  LOW: ["info", "warning"],
  INFO: ["info", "hint"],
};

const REQUIRED_CWES = [
  "CWE-89",
  "CWE-78",
  "CWE-95",
  "CWE-94",
  "CWE-79",
  "CWE-22",
  "CWE-918",
  "CWE-328",
  "CWE-327",
  "CWE-338",
  "CWE-502",
  "CWE-611",
  "CWE-601",
  "CWE-614",
  "CWE-1004",
  "CWE-798",
  "CWE-295",
];

const rules: RuleMeta[] = loadRules();
const files = ruleFiles();

describe("ast-grep rule tests", () => {
  it("passes every rule's valid and invalid cases", () => {
    const { status, stdout, stderr } = run(["test", "-c", sgConfigPath, "--skip-snapshot-tests", "--color", "never"]);
    const output = `${stdout}\n${stderr}`;
    expect({ status, output }).toMatchObject({ status: 0 });
    const summary = /test result: ok\. (\d+) passed; (\d+) failed;/.exec(output);
    expect(summary).not.toBeNull();
    expect(Number(summary?.[1])).toBe(files.length);
    expect(Number(summary?.[2])).toBe(0);
    const passed = new Set([...output.matchAll(/^PASS (\S+)/gm)].map((m) => m[1]));
    expect([...passed].sort()).toEqual(rules.map((r) => r.id).sort());
  });
});

describe("rule metadata", () => {
  it("has one rule per file, named after its unique id", () => {
    expect(rules).toHaveLength(files.length);
    const ids = rules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of rules) expect(basename(rule.file)).toBe(`${rule.id}.yml`);
  });

  it.each(files.map((file) => [basename(file, ".yml"), file]))("%s is well-formed", (_id, file) => {
    const doc = readYaml(file);
    if (!isRecord(doc)) throw new Error(`${file} is not a mapping`);
    const dir = LANGUAGE_DIRS[ruleLanguageDir(file)];
    expect(dir).toBeDefined();
    const id = String(doc.id);
    expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)+$/);
    expect(id.startsWith(dir?.prefix ?? "?")).toBe(true);
    expect(dir?.languages).toContain(doc.language);
    expect(["error", "warning", "info", "hint"]).toContain(doc.severity);
    expect(typeof doc.message).toBe("string");
    expect(String(doc.message)).not.toContain("\n");
    expect(String(doc.message)).toMatch(/\.$/);
    expect(typeof doc.note).toBe("string");
    expect(isRecord(doc.rule)).toBe(true);

    const meta = doc.metadata;
    if (!isRecord(meta)) throw new Error(`${file} has no metadata`);
    expect(Object.keys(meta).sort()).toEqual(METADATA_KEYS);
    const cwe = String(meta.cwe);
    expect(cwe).toMatch(/^CWE-\d+$/);
    expect(meta.cwe_name).toBe(CWE_NAMES[cwe]);
    expect(String(meta.owasp)).toMatch(/^A\d\d:2021-.+/);
    expect(OWASP_CATEGORIES.has(String(meta.owasp))).toBe(true);
    expect(SEVERITIES).toContain(meta.severity);
    expect(LEVELS).toContain(meta.confidence);
    expect(LEVELS).toContain(meta.likelihood);
    expect(LEVELS).toContain(meta.impact);
    expect(LEVEL_FOR[String(meta.severity)]).toContain(doc.severity);
    for (const key of ["title", "remediation"]) expect(String(meta[key]).trim().length).toBeGreaterThan(0);
    const refs = meta.references;
    expect(Array.isArray(refs) && refs.length > 0).toBe(true);
    for (const ref of Array.isArray(refs) ? refs : []) expect(String(ref)).toMatch(/^https:\/\/\S+$/);
    expect(refs).toContain(`https://cwe.mitre.org/data/definitions/${cwe.slice(4)}.html`);
  });

  it.each(rules.map((r) => [r.id]))("%s has a test file with at least 2 valid and 2 invalid cases", (id) => {
    const file = ruleTestFile(id);
    expect(existsSync(file)).toBe(true);
    const doc = readYaml(file);
    if (!isRecord(doc)) throw new Error(`${file} is not a mapping`);
    expect(doc.id).toBe(id);
    for (const key of ["valid", "invalid"]) {
      const cases = doc[key];
      expect(Array.isArray(cases)).toBe(true);
      const list = Array.isArray(cases) ? cases : [];
      expect(list.length).toBeGreaterThanOrEqual(2);
      for (const c of list) expect(typeof c).toBe("string");
    }
  });

  it("exposes a content hash as the pack version", () => {
    expect(RULE_PACK_VERSION).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe("coverage", () => {
  const byDir = (dir: string): RuleMeta[] => rules.filter((r) => ruleLanguageDir(r.file) === dir);

  it("has at least 150 rules and at least 20 per language", () => {
    expect(rules.length).toBeGreaterThanOrEqual(150);
    for (const dir of REQUIRED_LANGUAGE_DIRS) expect(byDir(dir).length).toBeGreaterThanOrEqual(20);
  });

  it.each(REQUIRED_CWES)("covers %s", (cwe) => {
    expect(rules.some((r) => r.cwe === cwe)).toBe(true);
  });
});

describe("end-to-end scan", () => {
  let dir = "";

  beforeAll(() => {
    dir = tmpDir("ax-rules-");
    const write = (path: string, text: string): void => {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write(
      "vuln/app.js",
      [
        'const crypto = require("crypto");',
        'app.get("/user", (req, res) => {',
        '  db.query("SELECT * FROM users WHERE id = " + req.query.id);',
        '  res.send(crypto.createHash("md5").update(req.query.id).digest("hex"));',
        "});",
        "",
      ].join("\n"),
    );
    // .ts and .tsx go through the same Tsx rules via languageGlobs.
    write("vuln/redirect.ts", "export function back(req: Request, res: Response): void {\n  res.redirect(req.query.next as string);\n}\n");
    write("vuln/Comment.tsx", "export const Comment = ({ body }: { body: string }) => <p dangerouslySetInnerHTML={{ __html: body }} />;\n");
    write(
      "vuln/util.py",
      [
        "import pickle, subprocess, yaml",
        "",
        "def load(data, name):",
        "    cfg = yaml.load(data)",
        '    subprocess.run(f"tar -xf {name}", shell=True)',
        "    return pickle.loads(data)",
        "",
      ].join("\n"),
    );
    write(
      "vuln/Crypto.java",
      [
        "import java.security.MessageDigest;",
        "import javax.crypto.Cipher;",
        "public class Crypto {",
        '  byte[] digest(byte[] d) throws Exception { return MessageDigest.getInstance("MD5").digest(d); }',
        '  Cipher cipher() throws Exception { return Cipher.getInstance("DES/CBC/PKCS5Padding"); }',
        '  void run(String host) throws Exception { Runtime.getRuntime().exec("ping -c 1 " + host); }',
        "}",
        "",
      ].join("\n"),
    );
    write(
      "safe/app.js",
      [
        'const crypto = require("crypto");',
        'app.get("/user", (req, res) => {',
        '  db.query("SELECT * FROM users WHERE id = $1", [req.query.id]);',
        '  res.json({ hash: crypto.createHash("sha256").update(String(req.query.id)).digest("hex") });',
        "});",
        "",
      ].join("\n"),
    );
    write("safe/redirect.ts", 'export function back(res: Response): void {\n  res.redirect("/home");\n}\n');
    write(
      "safe/util.py",
      [
        "import json, subprocess, yaml",
        "",
        "def load(data, name):",
        "    cfg = yaml.safe_load(data)",
        '    subprocess.run(["tar", "-xf", name], check=True)',
        "    return json.loads(data)",
        "",
      ].join("\n"),
    );
    write(
      "safe/Crypto.java",
      [
        "import java.security.MessageDigest;",
        "import javax.crypto.Cipher;",
        "public class Crypto {",
        '  byte[] digest(byte[] d) throws Exception { return MessageDigest.getInstance("SHA-256").digest(d); }',
        '  Cipher cipher() throws Exception { return Cipher.getInstance("AES/GCM/NoPadding"); }',
        '  void run(String host) throws Exception { new ProcessBuilder("/bin/ping", "-c", "1", host).start(); }',
        "}",
        "",
      ].join("\n"),
    );
  });

  const scan = (target: string): Record<string, unknown>[] => {
    const { status, stdout, stderr } = run(
      ["scan", "-c", sgConfigPath, "--json=stream", "--include-metadata", "--color", "never", target],
      dir,
    );
    // ast-grep exits 1 when error-level findings exist; anything else is a failure.
    expect({ status, stderr: status === 0 || status === 1 ? "" : stderr }).toMatchObject({ stderr: "" });
    return stdout
      .split("\n")
      .filter((line) => line.trim().length > 0)
      .map((line): unknown => JSON.parse(line))
      .filter(isRecord);
  };

  it("reports the expected rules, with their metadata, in vulnerable files", () => {
    const findings = scan("vuln");
    const found = (ruleId: string, file: string): Record<string, unknown> | undefined =>
      findings.find((f) => f.ruleId === ruleId && String(f.file).endsWith(file));
    const expected: [string, string][] = [
      ["js-sql-injection-concat", "app.js"],
      ["js-weak-hash", "app.js"],
      ["js-open-redirect", "redirect.ts"],
      ["js-xss-dangerously-set-inner-html", "Comment.tsx"],
      ["py-yaml-unsafe-load", "util.py"],
      ["py-subprocess-shell-injection", "util.py"],
      ["py-pickle-deserialization", "util.py"],
      ["java-weak-hash", "Crypto.java"],
      ["java-weak-cipher", "Crypto.java"],
      ["java-command-injection", "Crypto.java"],
    ];
    for (const [ruleId, file] of expected) {
      const finding = found(ruleId, file);
      expect({ ruleId, file, found: finding !== undefined }).toEqual({ ruleId, file, found: true });
      const rule = rules.find((r) => r.id === ruleId);
      expect(finding?.metadata).toEqual(
        expect.objectContaining({
          cwe: rule?.cwe,
          cwe_name: rule?.cwe_name,
          owasp: rule?.owasp,
          severity: rule?.severity,
          confidence: rule?.confidence,
          title: rule?.title,
        }),
      );
      expect(finding?.message).toBe(rule?.message);
    }
  });

  it("reports nothing in the safe twins", () => {
    expect(scan("safe")).toEqual([]);
  });
});

describe("docs/rules.md", () => {
  it("is generated from the rule files (npm run docs:rules)", async () => {
    const { readFileSync } = await import("node:fs");
    const { renderRulesMarkdown } = await import("./docs");
    expect(readFileSync(join(rulesRoot, "../../docs/rules.md"), "utf8")).toBe(renderRulesMarkdown());
  });
});

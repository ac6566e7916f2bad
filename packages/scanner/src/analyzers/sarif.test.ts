// The "real run" tests use a small node script that prints SARIF as a stand-in for semgrep
// or CodeQL (not installed here): it proves the command, placeholder and parsing path.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseSarif, parseSarifToolsConfig, sarifAnalyzer } from "./sarif";
import { AnalyzerFailedError, AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
let script: string;
beforeAll(() => {
  root = tempDir();
  // Reports every line containing "danger(" in the files it is given (or finds itself), as SARIF.
  script = join(root, "fake-sast.mjs");
  writeFileSync(
    script,
    `import { readFileSync, readdirSync, writeFileSync } from "node:fs";
const args = process.argv.slice(2);
let out = null, list = null, files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--out") out = args[++i];
  else if (args[i] === "--list") list = args[++i];
  else if (args[i] === "--exit") process.exitCode = Number(args[++i]);
  else files.push(args[i]);
}
if (list) files = readFileSync(list, "utf8").split("\\n").filter(Boolean);
if (files.length === 0) files = readdirSync(".").filter((f) => f.endsWith(".js"));
const results = [];
for (const f of files) {
  readFileSync(f, "utf8").split("\\n").forEach((line, i) => {
    const col = line.indexOf("danger(");
    if (col >= 0) results.push({ ruleId: "js/danger", level: "error", message: { text: "danger() with " + line.trim() },
      locations: [{ physicalLocation: { artifactLocation: { uri: f.replace(/^\\.\\//, "") },
        region: { startLine: i + 1, startColumn: col + 1, endColumn: col + 8 } } }] });
  });
}
const sarif = JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "fake",
  rules: [{ id: "js/danger", shortDescription: { text: "Dangerous call" },
  properties: { tags: ["security", "external/cwe/cwe-094"], "security-severity": "9.1", precision: "high" } }] } }, results }] });
if (out) writeFileSync(out, sarif); else process.stdout.write(sarif);
`,
  );
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);
const node = process.execPath;

describe("parseSarif", () => {
  const dir = "/checkout/repo";
  const codeql = {
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "CodeQL",
            rules: [
              {
                id: "js/sql-injection",
                name: "js/sql-injection",
                shortDescription: { text: "Database query built from user-controlled sources" },
                help: { text: "Use parameterized queries." },
                properties: { tags: ["security", "external/cwe/cwe-089"], "security-severity": "8.8", precision: "high" },
                messageStrings: { default: { text: "This query depends on {0}." } },
              },
              { id: "js/unused", properties: { tags: ["maintainability"] }, defaultConfiguration: { level: "note" } },
            ],
          },
        },
        originalUriBaseIds: { "%SRCROOT%": { uri: "file:///checkout/repo/" } },
        artifacts: [{ location: { uri: "lib/db.js", uriBaseId: "%SRCROOT%" } }],
        results: [
          {
            ruleIndex: 0,
            message: { id: "default", arguments: ["a user-provided value"] },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: "src/app.js", uriBaseId: "%SRCROOT%" },
                  region: { startLine: 12, startColumn: 5, endLine: 13, endColumn: 20 },
                },
              },
            ],
          },
          {
            ruleId: "js/unused",
            message: { text: "Unused variable x." },
            locations: [{ physicalLocation: { artifactLocation: { index: 0 }, region: { startLine: 3 } } }],
          },
          {
            ruleId: "js/unused",
            kind: "pass",
            message: { text: "ok" },
            locations: [{ physicalLocation: { artifactLocation: { uri: "src/app.js" }, region: { startLine: 1 } } }],
          },
          {
            ruleId: "js/unused",
            baselineState: "absent",
            message: { text: "gone" },
            locations: [{ physicalLocation: { artifactLocation: { uri: "src/app.js" }, region: { startLine: 2 } } }],
          },
        ],
      },
    ],
  };

  it("maps CodeQL-style SARIF: rule index, message strings, uriBaseId, security-severity, precision, CWE tag", async () => {
    const findings = await parseSarif(JSON.stringify(codeql), { tool: "codeql", dir });
    expect(findings).toHaveLength(2);
    expect(findings[0]).toMatchObject({
      analyzer: "codeql",
      rule_id: "codeql.js/sql-injection",
      title: "Database query built from user-controlled sources",
      message: "This query depends on a user-provided value.",
      cwe_id: "CWE-89",
      owasp: "A03:2021-Injection",
      file: "src/app.js",
      start_line: 12,
      start_column: 5,
      end_line: 13,
      end_column: 20,
      severity: "HIGH",
      confidence: "HIGH",
      remediation: "Use parameterized queries.",
      fingerprint: "",
    });
    expect(findings[0]?.cwe_name).toMatch(/SQL Injection/);
    expect(findings[1]).toMatchObject({
      rule_id: "codeql.js/unused",
      file: "lib/db.js",
      start_line: 3,
      severity: "LOW",
      cwe_id: null,
      owasp: null,
    });
  });

  it("maps semgrep-style SARIF: level, CWE and OWASP tags, relative paths, snippets", async () => {
    const semgrep = {
      version: "2.1.0",
      runs: [
        {
          tool: {
            driver: {
              name: "Semgrep",
              rules: [
                {
                  id: "xss.innerhtml",
                  properties: {
                    tags: ["CWE-79: Improper Neutralization of Input During Web Page Generation", "OWASP-A03:2021 - Injection"],
                  },
                },
              ],
            },
          },
          results: [
            {
              ruleId: "xss.innerhtml",
              level: "warning",
              message: { text: "innerHTML with user data" },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: "web/%61pp.js" },
                    region: { startLine: 7, startColumn: 3, endColumn: 30, snippet: { text: "el.innerHTML = location.hash" } },
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const [f] = await parseSarif(semgrep, { tool: "semgrep", dir });
    expect(f).toMatchObject({
      rule_id: "semgrep.xss.innerhtml",
      file: "web/app.js",
      cwe_id: "CWE-79",
      owasp: "A03:2021-Injection",
      severity: "MEDIUM",
      snippet: "el.innerHTML = location.hash",
    });
  });

  it("refuses paths outside the checkout and other schemes, and keeps only the selected files", async () => {
    const at = (uri: string, extra: Record<string, unknown> = {}) => ({
      ruleId: "r",
      message: { text: "m" },
      locations: [{ physicalLocation: { artifactLocation: { uri, ...extra }, region: { startLine: 1 } } }],
    });
    const doc = {
      runs: [
        {
          tool: { driver: { name: "t" } },
          originalUriBaseIds: { ROOT: { uri: "file:///checkout/repo/" } },
          results: [
            at("../../etc/passwd"),
            at("file:///etc/passwd"),
            at("/etc/shadow"),
            at("https://example.com/a.js"),
            at("..%2F..%2Fetc%2Fpasswd"),
            at("../outside.js", { uriBaseId: "ROOT" }),
            at("src/%ZZ.js"),
            at("file:///checkout/repo/src/in.js"),
            at("src/../src/kept.js"),
            at("src/not-selected.js"),
          ],
        },
      ],
    };
    const all = await parseSarif(doc, { tool: "t", dir });
    expect(all.map((f) => f.file)).toEqual(["src/in.js", "src/kept.js", "src/not-selected.js"]);
    const selected = await parseSarif(doc, { tool: "t", dir, files: new Set(["src/in.js", "src/kept.js"]) });
    expect(selected.map((f) => f.file)).toEqual(["src/in.js", "src/kept.js"]);
  });

  it("normalizes CWEs by tool name (bandit through SARIF still gets eval right) and reads CWE relationships", async () => {
    const doc = {
      runs: [
        {
          tool: {
            driver: {
              name: "x",
              rules: [
                { id: "B307", properties: { tags: ["CWE-78"] } },
                { id: "FF1001", relationships: [{ target: { id: "CWE-120", toolComponent: { name: "CWE" } } }] },
              ],
            },
          },
          results: [
            {
              ruleId: "B307",
              message: { text: "eval" },
              locations: [{ physicalLocation: { artifactLocation: { uri: "a.py" }, region: { startLine: 1 } } }],
            },
            {
              ruleId: "FF1001",
              level: "error",
              message: { text: "strcpy" },
              locations: [{ physicalLocation: { artifactLocation: { uri: "a.c" }, region: { startLine: 2 } } }],
            },
          ],
        },
      ],
    };
    const bandit = await parseSarif(doc, { tool: "bandit-sarif", dir });
    expect(bandit.map((f) => f.cwe_id)).toEqual(["CWE-78", "CWE-120"]);
    // Under the name "bandit" (e.g. `bandit -f sarif` configured as a SARIF tool) the correction applies.
    const named = await parseSarif(doc, { tool: "bandit", dir });
    expect(named[0]).toMatchObject({ cwe_id: "CWE-95", raw: { cwe_reported: "CWE-78" } });
  });

  it("maps a single-replacement fix to byte offsets", async () => {
    const repo = writeCheckout(root, "sarif-fix", { "a.py": "import yaml\nx = yaml.load(s)\n" });
    const doc = {
      runs: [
        {
          tool: { driver: { name: "t" } },
          results: [
            {
              ruleId: "r",
              message: { text: "m" },
              locations: [
                { physicalLocation: { artifactLocation: { uri: "a.py" }, region: { startLine: 2, startColumn: 5, endColumn: 17 } } },
              ],
              fixes: [
                {
                  description: { text: "safe_load" },
                  artifactChanges: [
                    {
                      artifactLocation: { uri: "a.py" },
                      replacements: [
                        { deletedRegion: { startLine: 2, startColumn: 10, endColumn: 14 }, insertedContent: { text: "safe_load" } },
                      ],
                    },
                  ],
                },
              ],
            },
            {
              ruleId: "r2",
              message: { text: "m" },
              locations: [{ physicalLocation: { artifactLocation: { uri: "a.py" }, region: { startLine: 1 } } }],
              fixes: [
                {
                  artifactChanges: [
                    {
                      artifactLocation: { uri: "a.py" },
                      replacements: [{ deletedRegion: { byteOffset: 0, byteLength: 6 }, insertedContent: { text: "# " } }],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [a, b] = await parseSarif(doc, { tool: "t", dir: repo });
    expect(a?.fix).toEqual({ replacement: "safe_load", start_byte: 21, end_byte: 25, description: "safe_load" });
    expect(b?.fix).toEqual({ replacement: "# ", start_byte: 0, end_byte: 6 });
    expect(a?.snippet).toBe("x = yaml.load(s)");
  });

  it("returns nothing for malformed documents", async () => {
    for (const doc of ["", "{", "null", "[]", '{"runs": 3}', '{"runs": [{"results": [{"ruleId": "r"}]}]}']) {
      await expect(parseSarif(doc, { tool: "t", dir })).resolves.toEqual([]);
    }
  });
});

describe("parseSarifToolsConfig", () => {
  it("accepts the documented example and fills the defaults", () => {
    const [tool] = parseSarifToolsConfig(
      '[{"name":"semgrep","command":["semgrep","--sarif","--config","p/ci","{files}"],"languages":"*"}]',
    );
    expect(tool).toEqual({
      name: "semgrep",
      command: ["semgrep", "--sarif", "--config", "p/ci", "{files}"],
      languages: "*",
      cacheable: false,
      outputFile: false,
      successExitCodes: [0, 1],
    });
    expect(parseSarifToolsConfig("")).toEqual([]);
    expect(parseSarifToolsConfig("[]")).toEqual([]);
  });

  it.each([
    ["{", /not valid JSON/],
    ['{"name":"x"}', /expected array/],
    ['[{"name":"x","command":["x"],"languages":["js"]}]', /languages/],
    ['[{"name":"bandit","command":["x"],"languages":"*"}]', /taken by a built-in analyzer/],
    ['[{"name":"x","command":["x"],"languages":"*"},{"name":"x","command":["y"],"languages":"*"}]', /unique/],
    ['[{"name":"x","command":["x"],"languages":"*","outputFile":true}]', /\{output\} placeholder/],
    ['[{"name":"x","command":["x","--in={files}"],"languages":"*"}]', /element of its own/],
    ['[{"name":"x","command":["x"],"languages":"*","shell":true}]', /Unrecognized key/],
    ['[{"name":"Bad Name","command":["x"],"languages":"*"}]', /name must be/],
    ['[{"name":"x","command":[],"languages":"*"}]', /command/],
  ])("refuses %s", (json, message) => {
    expect(() => parseSarifToolsConfig(json)).toThrow(message);
  });
});

describe("sarifAnalyzer, running a real command", () => {
  it("passes {files}, reads SARIF from stdout, keeps the tool's CWE and security-severity", async () => {
    const dir = writeCheckout(root, "run-stdout", {
      "src/a.js": "ok();\n  danger(x);\n",
      "src/b.js": "fine();\n",
      "-odd.js": "danger(y)\n",
    });
    const analyzer = sarifAnalyzer({ name: "fake-sast", command: [node, script, "{files}"], languages: ["javascript"] });
    expect(analyzer).toMatchObject({ name: "fake-sast", languages: ["javascript"], cacheable: false });
    await expect(analyzer.version()).resolves.toMatch(/^unversioned \(config [0-9a-f]{8}\)$/);
    const findings = await analyzer.run(ctx(dir, ["src/a.js", "src/b.js", "-odd.js"]));
    expect(findings.map((f) => `${f.file}:${f.start_line}:${f.start_column}`).sort()).toEqual(["-odd.js:1:1", "src/a.js:2:3"]);
    expect(findings.find((f) => f.file === "src/a.js")).toMatchObject({
      analyzer: "fake-sast",
      rule_id: "fake-sast.js/danger",
      cwe_id: "CWE-94",
      severity: "CRITICAL",
      confidence: "HIGH",
      snippet: "  danger(x);",
      message: "danger() with danger(x);",
    });
  });

  it("runs once per chunk when the file list is long", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 1050; i++) files[`m/f${String(i).padStart(4, "0")}.js`] = i % 350 === 0 ? "danger(1)\n" : "x\n";
    const dir = writeCheckout(root, "run-chunks", files);
    const findings = await sarifAnalyzer({ name: "fake-sast", command: [node, script, "{files}"], languages: "*" }).run(
      ctx(dir, Object.keys(files)),
    );
    expect(findings.map((f) => f.file).sort()).toEqual(["m/f0000.js", "m/f0350.js", "m/f0700.js"]);
  });

  it("passes {filelist} and reads {output} with outputFile", async () => {
    const dir = writeCheckout(root, "run-output", { "a.js": "danger()\n", "b.js": "danger()\n" });
    const analyzer = sarifAnalyzer({
      name: "fake-sast",
      command: [node, script, "--list", "{filelist}", "--out", "{output}"],
      languages: "*",
      outputFile: true,
    });
    const findings = await analyzer.run(ctx(dir, ["b.js"]));
    expect(findings.map((f) => f.file)).toEqual(["b.js"]);
  });

  it("lets a tool scan the checkout itself and keeps only the selected files", async () => {
    const dir = writeCheckout(root, "run-cwd", { "a.js": "danger()\n", "vendored.js": "danger()\n" });
    const findings = await sarifAnalyzer({ name: "fake-sast", command: [node, script], languages: "*" }).run(ctx(dir, ["a.js"]));
    expect(findings.map((f) => f.file)).toEqual(["a.js"]);
  });

  it("uses versionCommand for the version (part of the cache key)", async () => {
    const analyzer = sarifAnalyzer({
      name: "fake-sast",
      command: [node, script, "{files}"],
      languages: "*",
      cacheable: true,
      versionCommand: [node, "--version"],
    });
    await expect(analyzer.version()).resolves.toMatch(/^v\d+\.\d+\.\d+ \(config [0-9a-f]{8}\)$/);
  });

  it("reports an unexpected exit code as a failure", async () => {
    const dir = writeCheckout(root, "run-fail", { "a.js": "x\n" });
    const err = await sarifAnalyzer({ name: "fake-sast", command: [node, script, "--exit", "3", "{files}"], languages: "*" })
      .run(ctx(dir, ["a.js"]))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyzerFailedError);
    expect((err as AnalyzerFailedError).notice).toBe("fake-sast failed (exit code 3).");
  });

  it("stops at the output cap", async () => {
    const dir = writeCheckout(root, "run-cap", { "a.js": "danger()\n".repeat(500) });
    const err = await sarifAnalyzer({ name: "fake-sast", command: [node, script, "{files}"], languages: "*" })
      .run(ctx(dir, ["a.js"], { maxOutputBytes: 4096 }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  });

  it("is unavailable when the command's binary is missing", async () => {
    const analyzer = sarifAnalyzer({ name: "semgrep", command: [join(root, "no-such-semgrep"), "--sarif", "{files}"], languages: "*" });
    await expect(analyzer.version()).resolves.toBeNull();
    const dir = writeCheckout(root, "run-missing", { "a.js": "x\n" });
    await expect(analyzer.run(ctx(dir, ["a.js"]))).rejects.toThrow(
      new AnalyzerUnavailableError("semgrep is not installed on this worker."),
    );
  });

  it("does not pass file names through a shell", async () => {
    const dir = writeCheckout(root, "run-shell", { "$(touch pwned).js": "danger()\n", "a;touch pwned2.js": "danger()\n" });
    const findings = await sarifAnalyzer({ name: "fake-sast", command: [node, script, "{files}"], languages: "*" }).run(
      ctx(dir, ["$(touch pwned).js", "a;touch pwned2.js"]),
    );
    expect(findings.map((f) => f.file).sort()).toEqual(["$(touch pwned).js", "a;touch pwned2.js"]);
    expect(existsSync(join(dir, "pwned")) || existsSync(join(dir, "pwned2.js"))).toBe(false);
  });
});

import { join } from "node:path";
import { flawfinderAnalyzer, flawfinderCwes, parseCsvRecords } from "./flawfinder";
import { sanitizeUtf8 } from "./utf8-inputs";
import { AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext, requireTool, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  requireTool("flawfinder");
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);

const VULNERABLE = [
  "#include <stdio.h>",
  "#include <string.h>",
  "#include <stdlib.h>",
  "",
  "void copy(char *src) {",
  "    char buf[10];",
  "    strcpy(buf, src);",
  "    printf(src);",
  "}",
  "",
  "int main(int argc, char **argv) {",
  "    char line[80];",
  "    gets(line);",
  "    system(argv[1]);",
  "    srandom(42);",
  '    strcpy(line, "constant");',
  "    return 0;",
  "}",
  "",
].join("\n");

const SAFE = [
  "#include <stdio.h>",
  "",
  "int greet(const char *name) {",
  "    char buf[64];",
  '    snprintf(buf, sizeof buf, "hello %s", name);',
  "    return puts(buf);",
  "}",
  "",
].join("\n");

it("reports the installed version with its settings", async () => {
  await expect(flawfinderAnalyzer().version()).resolves.toMatch(/^2\.\d+\.\d+ \(minlevel 4, mapping \d+\.[0-9a-f]{8}\)$/);
});

it("maps hits: rule per function, first/marked CWE, level to severity, line and column", async () => {
  const dir = writeCheckout(root, "vulnerable", { "src/main.c": VULNERABLE, "src/safe.c": SAFE });
  const findings = await flawfinderAnalyzer().run(ctx(dir, ["src/main.c", "src/safe.c"]));
  expect(findings.map((f) => `${f.rule_id}:${f.start_line}`)).toEqual([
    "flawfinder.gets:13",
    "flawfinder.strcpy:7",
    "flawfinder.printf:8",
    "flawfinder.system:14",
  ]);
  expect(findings.find((f) => f.rule_id === "flawfinder.gets")).toMatchObject({
    analyzer: "flawfinder",
    file: "src/main.c",
    cwe_id: "CWE-120",
    severity: "HIGH",
    confidence: "HIGH",
    start_column: 5,
    end_column: 9,
    snippet: "    gets(line);",
    fingerprint: "",
    remediation: "Use fgets() instead.",
  });
  expect(findings.find((f) => f.rule_id === "flawfinder.gets")?.raw).toMatchObject({
    level: 5,
    cwes: ["CWE-120", "CWE-20"],
    ignore_directive: false,
  });
  expect(findings.find((f) => f.rule_id === "flawfinder.strcpy")).toMatchObject({
    cwe_id: "CWE-120",
    severity: "MEDIUM",
    confidence: "MEDIUM",
    end_column: 11,
  });
  expect(findings.find((f) => f.rule_id === "flawfinder.strcpy")?.cwe_name).toMatch(/Classic Buffer Overflow/);
  expect(findings.find((f) => f.rule_id === "flawfinder.printf")).toMatchObject({ cwe_id: "CWE-134", owasp: null });
  expect(findings.find((f) => f.rule_id === "flawfinder.system")).toMatchObject({ cwe_id: "CWE-78", owasp: "A03:2021-Injection" });
  expect(findings.filter((f) => f.file === "src/safe.c")).toEqual([]);
});

it("reports lower levels on request, with flawfinder's PRNG CWE normalized", async () => {
  const dir = writeCheckout(root, "level3", { "a.c": VULNERABLE });
  const findings = await flawfinderAnalyzer({ minLevel: 3 }).run(ctx(dir, ["a.c"]));
  // flawfinder says CWE-327 (broken crypto algorithm) for srandom; a weak PRNG is CWE-338.
  expect(findings.find((f) => f.rule_id === "flawfinder.srandom")).toMatchObject({ start_line: 15, severity: "LOW", cwe_id: "CWE-338" });
  expect(findings.find((f) => f.rule_id === "flawfinder.srandom")?.raw).toMatchObject({
    cwes: ["CWE-327"],
    cwe_normalized: { from: "CWE-327", to: "CWE-338" },
  });
});

it("does not let a Flawfinder: ignore comment hide a hit, and says it was there", async () => {
  const dir = writeCheckout(root, "ignore", {
    "i.c": "#include <string.h>\nvoid f(char *s) {\n  char b[4];\n  strcpy(b, s); /* Flawfinder: ignore */\n}\n",
  });
  const [hit] = await flawfinderAnalyzer().run(ctx(dir, ["i.c"]));
  expect(hit).toMatchObject({ rule_id: "flawfinder.strcpy", start_line: 4 });
  expect(hit?.raw).toMatchObject({ ignore_directive: true });
});

it("scans files that are not UTF-8 (flawfinder alone would abort the run) under their own path", async () => {
  const latin1 = Buffer.concat([
    Buffer.from("/* caf"),
    Buffer.from([0xe9]),
    Buffer.from(" */\n#include <stdio.h>\nvoid f(char *s) { char b[9]; gets(b); }\n"),
  ]);
  const dir = writeCheckout(root, "latin1", { "legacy/old.c": latin1, "new.c": "void g(char *d, char *s) { strcat(d, s); }\n" });
  const findings = await flawfinderAnalyzer().run(ctx(dir, ["legacy/old.c", "new.c"]));
  expect(findings.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`).sort()).toEqual([
    "legacy/old.c:3:flawfinder.gets",
    "new.c:1:flawfinder.strcat",
  ]);
});

it("finds every file of a list longer than one command line", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1010; i++)
    files[`src/f${String(i).padStart(4, "0")}.c`] = i % 500 === 0 ? "void f(char *b) { gets(b); }\n" : "int x;\n";
  const dir = writeCheckout(root, "many", files);
  const findings = await flawfinderAnalyzer().run(ctx(dir, Object.keys(files)));
  expect(findings.map((f) => f.file).sort()).toEqual(["src/f0000.c", "src/f0500.c", "src/f1000.c"]);
});

it("stops at the output cap and keeps the complete records", async () => {
  const dir = writeCheckout(root, "noisy", { "n.c": "void f(char *b) {\n" + "  gets(b);\n".repeat(400) + "}\n" });
  const err = await flawfinderAnalyzer()
    .run(ctx(dir, ["n.c"], { maxOutputBytes: 4096 }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  const partial = (err as AnalyzerOutputLimitError).partial;
  expect(partial.length).toBeGreaterThan(0);
  expect(partial.length).toBeLessThan(400);
  expect(partial.every((f) => f.rule_id === "flawfinder.gets")).toBe(true);
});

it("is unavailable when flawfinder is not installed", async () => {
  const missing = flawfinderAnalyzer({ binary: join(root, "no-such-flawfinder") });
  await expect(missing.version()).resolves.toBeNull();
  const dir = writeCheckout(root, "missing", { "a.c": "int x;\n" });
  await expect(missing.run(ctx(dir, ["a.c"]))).rejects.toThrow(new AnalyzerUnavailableError("flawfinder is not installed on this worker."));
});

describe("helpers", () => {
  it("parses RFC 4180 CSV: quotes, doubled quotes, commas and newlines in fields, a cut last record", () => {
    const csv = 'A,B,C\n"x, ""y""",2,"multi\nline"\nplain,3,z\ncut,4';
    expect(parseCsvRecords(csv)).toEqual([
      { A: 'x, "y"', B: "2", C: "multi\nline" },
      { A: "plain", B: "3", C: "z" },
    ]);
    expect(parseCsvRecords(`${csv},"q"`, false)).toHaveLength(2);
  });

  it("picks the CWE flawfinder marks with !, else the first", () => {
    expect(flawfinderCwes("CWE-119!/CWE-120")).toEqual({ primary: "CWE-119", all: ["CWE-119", "CWE-120"] });
    expect(flawfinderCwes("CWE-362/CWE-367!")).toEqual({ primary: "CWE-367", all: ["CWE-362", "CWE-367"] });
    expect(flawfinderCwes("CWE-120, CWE-20")).toEqual({ primary: "CWE-120", all: ["CWE-120", "CWE-20"] });
    expect(flawfinderCwes("")).toEqual({ primary: null, all: [] });
  });

  it("replaces invalid UTF-8 byte for byte and keeps valid sequences", () => {
    const input = Buffer.concat([Buffer.from("é"), Buffer.from([0xe9, 0x41, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from("日")]);
    expect(sanitizeUtf8(input).toString("utf8")).toBe("é?A?????日");
    expect(sanitizeUtf8(input)).toHaveLength(input.length);
  });
});

it("drops format and command hits whose argument is a constant flawfinder could not see as one", async () => {
  const code = [
    "#include <stdio.h>",
    "#include <stdlib.h>",
    '#define LISTING "ls -l"',
    'static const char *ANSWER = "%s\\n";',
    "int main(int argc, char **argv) {",
    "    char r[16];",
    '    snprintf(r, sizeof(r), argc > 1 ? "true\\n" : "false\\n");',
    "    printf(ANSWER, r);",
    "    system(LISTING);",
    "    snprintf(r, sizeof(r), argv[1]);",
    "    system(argv[1]);",
    "    return 0;",
    "}",
    "",
  ].join("\n");
  const dir = writeCheckout(root, "constants", { "c.c": code });
  const findings = await flawfinderAnalyzer().run(ctx(dir, ["c.c"]));
  expect(findings.map((f) => `${f.rule_id}:${f.start_line}`)).toEqual(["flawfinder.snprintf:10", "flawfinder.system:11"]);
});

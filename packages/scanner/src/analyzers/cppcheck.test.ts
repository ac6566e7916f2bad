import { readdirSync } from "node:fs";
import { join } from "node:path";
import { cppcheckAnalyzer, parseCppcheckXml } from "./cppcheck";
import { AnalyzerOutputLimitError, AnalyzerUnavailableError, type AnalyzerContext } from "./types";
import { analyzerContext, requireTool, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  requireTool("cppcheck");
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);

const VULNERABLE = `#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int a[5] = {0};
    a[10] = 1;
    char *p = malloc(8);
    free(p);
    free(p);
    int *q = NULL;
    *q = 2;
    unsigned n = 3;
    if (n < 0) return 1;
    int unused = 4;
    char s[8];
    scanf("%s", s);
    return a[0];
}
`;

const SAFE = `#include <stdio.h>
#include <string.h>

int copy_name(char *dst, size_t size, const char *src) {
    if (dst == NULL || src == NULL || size == 0) {
        return -1;
    }
    snprintf(dst, size, "%s", src);
    return (int)strlen(dst);
}
`;

it("reports the installed version", async () => {
  await expect(cppcheckAnalyzer().version()).resolves.toMatch(/^\d+\.\d+(\.\d+)? \(mapping \d+\.[0-9a-f]{8}\)$/);
});

it("maps errors, warnings and security-relevant style checks; drops style noise", async () => {
  const dir = writeCheckout(root, "vulnerable", { "src/v.c": VULNERABLE, "src/safe.c": SAFE });
  const findings = await cppcheckAnalyzer().run(ctx(dir, ["src/v.c", "src/safe.c"]));
  const by = (rule: string) => findings.find((f) => f.rule_id === rule);
  expect(findings.map((f) => `${f.rule_id}:${f.start_line}`).sort()).toEqual([
    "cppcheck.arrayIndexOutOfBounds:6",
    "cppcheck.doubleFree:9",
    "cppcheck.invalidscanf:16",
    "cppcheck.nullPointer:11",
    "cppcheck.unsignedLessThanZero:13",
  ]);
  expect(by("cppcheck.arrayIndexOutOfBounds")).toMatchObject({
    analyzer: "cppcheck",
    file: "src/v.c",
    severity: "HIGH",
    confidence: "HIGH",
    cwe_id: "CWE-788",
    cwe_name: "Access of Memory Location After End of Buffer",
    start_column: 6,
    end_column: 7,
    snippet: "    a[10] = 1;",
    message: "Array 'a[5]' accessed at index 10, which is out of bounds.",
    title: "Array index out of bounds",
    fingerprint: "",
  });
  expect(by("cppcheck.doubleFree")).toMatchObject({ cwe_id: "CWE-415", cwe_name: "Double Free", severity: "HIGH" });
  expect(by("cppcheck.nullPointer")).toMatchObject({ cwe_id: "CWE-476", severity: "HIGH", remediation: expect.stringMatching(/NULL/) });
  expect(by("cppcheck.nullPointer")?.raw).toMatchObject({
    locations: [
      { file: "src/v.c", line: 11 },
      { file: "src/v.c", line: 10 },
    ],
  });
  // cppcheck's CWE-119 for scanf %s is normalized to the unbounded copy, as flawfinder tags it.
  expect(by("cppcheck.invalidscanf")).toMatchObject({ cwe_id: "CWE-120", severity: "MEDIUM", confidence: "MEDIUM" });
  expect(by("cppcheck.invalidscanf")?.raw).toMatchObject({ cwe: "CWE-119", cwe_normalized: { to: "CWE-120" } });
  expect(by("cppcheck.unsignedLessThanZero")).toMatchObject({ cwe_id: "CWE-570", severity: "LOW" });
  expect(findings.filter((f) => f.file === "src/safe.c")).toEqual([]);
});

it("keeps its build directory between scans of a project: same findings, and a changed file is re-analysed", async () => {
  const stateDir = join(root, "state-project");
  const key = (fs: { rule_id: string; file: string; start_line: number }[]) =>
    fs.map((f) => `${f.file}:${f.rule_id}:${f.start_line}`).sort();
  const first = writeCheckout(root, "kept-1", { "src/v.c": VULNERABLE, "src/safe.c": SAFE });
  const fresh = await cppcheckAnalyzer().run(ctx(first, ["src/v.c", "src/safe.c"]));
  const kept1 = await cppcheckAnalyzer().run(ctx(first, ["src/v.c", "src/safe.c"], { stateDir }));
  // Another checkout of the same project (a new workspace), unchanged: replayed from the build directory.
  const second = writeCheckout(root, "kept-2", { "src/v.c": VULNERABLE, "src/safe.c": SAFE });
  const kept2 = await cppcheckAnalyzer().run(ctx(second, ["src/v.c", "src/safe.c"], { stateDir }));
  expect(key(kept1)).toEqual(key(fresh));
  expect(kept2).toEqual(kept1);
  expect(readdirSync(stateDir)).toEqual([expect.stringMatching(/^cppcheck-build-[0-9a-f]{16}$/)]);
  // The vulnerable file changed: its findings follow the new content.
  const third = writeCheckout(root, "kept-3", {
    "src/v.c": VULNERABLE.replace("    free(p);\n    free(p);\n", "    free(p);\n    p = NULL;\n"),
    "src/safe.c": SAFE,
  });
  const kept3 = await cppcheckAnalyzer().run(ctx(third, ["src/v.c", "src/safe.c"], { stateDir }));
  const direct3 = await cppcheckAnalyzer().run(ctx(third, ["src/v.c", "src/safe.c"]));
  expect(key(kept3)).toEqual(key(direct3));
  expect(key(kept3)).not.toContain("src/v.c:cppcheck.doubleFree:9");
});

it("reports a finding in a header at the first location inside the selection", async () => {
  const files = {
    "inc/h.h": "static inline int get(int *a) { return a[10]; }\n",
    "third_party/t.h": "static inline int get2(int *a) { return a[10]; }\n",
    "m.c":
      '#include "inc/h.h"\n#include "third_party/t.h"\nint main(void) {\n  int a[5] = {0};\n  int b[5] = {0};\n  return get(a) + get2(b);\n}\n',
  };
  const dir = writeCheckout(root, "headers", files);
  const findings = await cppcheckAnalyzer().run(ctx(dir, ["m.c", "inc/h.h"]));
  const places = findings.map((f) => `${f.rule_id}@${f.file}:${f.start_line}`);
  expect(places).toContain("cppcheck.ctuArrayIndex@inc/h.h:1");
  // third_party/t.h was not selected: the same bug there is reported at its call site in m.c.
  expect(places).toContain("cppcheck.ctuArrayIndex@m.c:6");
  expect(findings.every((f) => f.file !== "third_party/t.h")).toBe(true);
});

it("takes the file list from a file, also for names a list line cannot hold", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++)
    files[`lib/m${i}.c`] = i === 299 ? "void f(void){ int *q = 0; *q = 1; }\n" : `int v${i}(void){ return ${i}; }\n`;
  files["odd\nname.c"] = "void g(void){ int a[2]; a[5] = 0; }\n";
  const dir = writeCheckout(root, "list", files);
  const findings = await cppcheckAnalyzer().run(ctx(dir, Object.keys(files)));
  expect(findings.map((f) => `${f.file}:${f.rule_id}`).sort()).toEqual([
    "lib/m299.c:cppcheck.nullPointer",
    "odd\nname.c:cppcheck.arrayIndexOutOfBounds",
  ]);
});

it("stops at the output cap and keeps the complete <error> elements", async () => {
  const body = Array.from({ length: 200 }, (_, i) => `  int *q${i} = 0; *q${i} = 1;`).join("\n");
  const dir = writeCheckout(root, "noisy", { "n.c": `void f(void) {\n${body}\n}\n` });
  const err = await cppcheckAnalyzer()
    .run(ctx(dir, ["n.c"], { maxOutputBytes: 4096 }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  const partial = (err as AnalyzerOutputLimitError).partial;
  expect(partial.length).toBeGreaterThan(0);
  expect(partial.length).toBeLessThan(200);
});

it("is unavailable when cppcheck is not installed", async () => {
  const missing = cppcheckAnalyzer({ binary: join(root, "no-such-cppcheck") });
  await expect(missing.version()).resolves.toBeNull();
  const dir = writeCheckout(root, "missing", { "a.c": "int x;\n" });
  await expect(missing.run(ctx(dir, ["a.c"]))).rejects.toThrow(new AnalyzerUnavailableError("cppcheck is not installed on this worker."));
});

it("parses entities, symbols and self-closing errors", () => {
  const xml =
    `<results><errors>
    <error id="a" severity="error" msg="x &apos;&lt;&amp;&gt;&quot; &#65;&#x42;" cwe="1">` +
    `<location file="f.c" line="2" column="3" info="i"/><symbol>buf</symbol></error>
    <error id="b" severity="warning" msg="m"/>
    <error id="cut" severity="error" msg="never closed"><location file="f.c" line="9" column="1"/>`;
  expect(parseCppcheckXml(xml)).toEqual([
    {
      attrs: { id: "a", severity: "error", msg: "x '<&>\" AB", cwe: "1" },
      locations: [{ file: "f.c", line: 2, column: 3, info: "i" }],
      symbols: ["buf"],
    },
    { attrs: { id: "b", severity: "warning", msg: "m" }, locations: [], symbols: [] },
  ]);
});

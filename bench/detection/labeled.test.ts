import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir, tmpDir } from "@ax/testkit/temp";
import { acceptedCwes } from "./cwe";
import {
  filterFindings,
  loadLabeledCases,
  parseLabeledCase,
  scoreLabeled,
  SINK_MARKER,
  type LabeledCase,
  type LabeledFinding,
} from "./labeled";

const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), "taint-cases");

async function write(root: string, rel: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, rel)), { recursive: true });
  await writeFile(join(root, rel), text);
}

const PY_VULN = `# ax-bench: vulnerable CWE-89 — f-string query
from flask import request

def handler(db):
    name = request.args["name"]
    return db.execute(f"SELECT * FROM t WHERE name = '{name}'")  # ax-bench: sink
`;

const PY_SAFE = `# ax-bench: safe CWE-89 — bound parameter
from flask import request

def handler(db):
    name = request.args["name"]
    return db.execute("SELECT * FROM t WHERE name = ?", (name,))  # ax-bench: sink
`;

const JS_VULN = `// ax-bench: vulnerable CWE-78 — concatenated command
import { exec } from "node:child_process";
export const h = (req) => exec("ls " + req.query.dir); // ax-bench: sink
`;

const TS_SAFE = `// ax-bench: safe CWE-78 — constant command
import { execSync } from "node:child_process";
export const h = (): string => execSync("uptime", { encoding: "utf8" }); // ax-bench: sink
`;

describe("loadLabeledCases", () => {
  let dir = "";

  beforeAll(async () => {
    dir = tmpDir("ax-bench-labeled-");
    await write(dir, "py/a_vuln.py", PY_VULN);
    await write(dir, "py/a_safe.py", PY_SAFE);
    await write(dir, "js/deep/b_vuln.js", JS_VULN);
    await write(dir, "js/b_safe.ts", TS_SAFE.replace(/\n/g, "\r\n"));
  });

  it("reads every file recursively with its label, language and sink line", async () => {
    const cases = await loadLabeledCases(dir);
    expect(cases).toEqual([
      { file: "js/b_safe.ts", language: "typescript", cwe: 78, vulnerable: false, description: "constant command", sinkLine: 3 },
      { file: "js/deep/b_vuln.js", language: "javascript", cwe: 78, vulnerable: true, description: "concatenated command", sinkLine: 3 },
      { file: "py/a_safe.py", language: "python", cwe: 89, vulnerable: false, description: "bound parameter", sinkLine: 6 },
      { file: "py/a_vuln.py", language: "python", cwe: 89, vulnerable: true, description: "f-string query", sinkLine: 6 },
    ]);
  });

  it("names the file when one has no valid header", async () => {
    const bad = tmpDir("ax-bench-labeled-bad-");
    try {
      await write(bad, "ok.py", PY_VULN);
      await write(bad, "sub/nohead.py", "import os\nos.system(cmd)  # ax-bench: sink\n");
      await expect(loadLabeledCases(bad)).rejects.toThrow(/sub\/nohead\.py: line 1 must be the header/);
    } finally {
      removeDir(bad);
    }
  });

  it("rejects malformed headers, sink markers and unknown file types", () => {
    const body = "x = 1\nrun(x)  # ax-bench: sink\n";
    expect(() => parseLabeledCase("a.py", `# ax-bench: vulnerable CWE-89 - hyphen, not em dash\n${body}`)).toThrow(
      /a\.py: line 1 must be the header/,
    );
    expect(() => parseLabeledCase("a.py", `// ax-bench: safe CWE-89 — JS comment in Python\n${body}`)).toThrow(/line 1 must be the header/);
    expect(() => parseLabeledCase("a.py", `# ax-bench: risky CWE-89 — unknown label\n${body}`)).toThrow(/line 1 must be the header/);
    expect(() => parseLabeledCase("a.py", `# ax-bench: safe CWE-89 — \n${body}`)).toThrow(/line 1 must be the header/);
    expect(() => parseLabeledCase("a.py", "# ax-bench: safe CWE-89 — no sink\nx = 1\n")).toThrow(/exactly one line .* found 0/);
    expect(() => parseLabeledCase("a.py", `# ax-bench: safe CWE-89 — two sinks\n${body}${body}`)).toThrow(/found 2 \(lines 3, 5\)/);
    expect(() => parseLabeledCase("a.js", "// ax-bench: safe CWE-79 — marker alone\n// ax-bench: sink\nrun();\n")).toThrow(
      /a\.js:2: .* trailing \/\/ comment/,
    );
    expect(() => parseLabeledCase("README.md", "# ax-bench: safe CWE-79 — text\n")).toThrow(/README\.md: not a case file/);
  });
});

describe("scoreLabeled", () => {
  const c = (file: string, cwe: number, vulnerable: boolean, sinkLine = 10): LabeledCase => ({
    file,
    language: "python",
    cwe,
    vulnerable,
    description: file,
    sinkLine,
  });
  const cases = [
    c("sql_a_vuln.py", 89, true),
    c("sql_a_safe.py", 89, false),
    c("sql_b_vuln.py", 89, true),
    c("sql_b_safe.py", 89, false),
    c("cmd_vuln.py", 78, true),
    c("cmd_safe.py", 78, false),
    c("eval_vuln.py", 95, true),
    c("eval_safe.py", 95, false),
  ];
  type F = LabeledFinding & { confidence: "HIGH" | "MEDIUM" | "LOW" };
  const f = (file: string, cwe: string | null, line: number, confidence: F["confidence"] = "HIGH", rule = "r"): F => ({
    analyzer: "ast-grep",
    rule_id: rule,
    cwe_id: cwe,
    file,
    start_line: line,
    end_line: line,
    confidence,
  });
  const findings: F[] = [
    f("sql_a_vuln.py", "CWE-89", 10, "HIGH", "sql"), // TP on the sink line
    f("sql_a_vuln.py", "CWE-89", 12, "HIGH", "sql"), // same case: still one TP
    f("sql_a_safe.py", "CWE-943", 3, "LOW", "nosql"), // CWE-943 is CWE-89's parent: a FP (at LOW confidence)
    f("sql_b_vuln.py", "CWE-798", 2), // another CWE: not scored
    f("cmd_vuln.py", "CWE-77", 4, "MEDIUM", "cmd"), // parent of CWE-78: TP, not on the sink line
    f("eval_vuln.py", "CWE-94", 10, "HIGH", "vm"),
    f("elsewhere/x.py", "CWE-89", 1), // no such case
  ];

  it("counts a case when a finding in its file has an accepted CWE, as the Juliet scoring does", () => {
    const { rows, mean, unmatchedFindings } = scoreLabeled(cases, findings);
    expect(rows.map((r) => r.cwe)).toEqual([78, 89, 95]);
    const [cmd, sql, evalRow] = rows;
    expect(sql).toMatchObject({
      vulnerable: 2,
      safe: 2,
      tp: 1,
      tpAtSink: 1,
      fp: 1,
      tpr: 0.5,
      fpr: 0.5,
      score: 0,
      detected: ["sql_a_vuln.py"],
      missed: ["sql_b_vuln.py"],
      flaggedSafe: ["sql_a_safe.py"],
    });
    expect(sql?.accepted).toEqual(acceptedCwes(89));
    expect(sql?.rules).toEqual({ "ast-grep:sql": { tp: 1, fp: 0 }, "ast-grep:nosql": { tp: 0, fp: 1 } });
    expect(sql?.otherCwes).toEqual({ "CWE-798": { vulnerable: 1, safe: 0 } });
    expect(cmd).toMatchObject({ vulnerable: 1, safe: 1, tp: 1, tpAtSink: 0, fp: 0, tpr: 1, fpr: 0, score: 1 });
    // Whether CWE-94 counts for CWE-95 is the table's call, not the scorer's.
    const related = acceptedCwes(95).includes(94);
    expect(evalRow).toMatchObject({ tp: related ? 1 : 0, otherCwes: related ? {} : { "CWE-94": { vulnerable: 1, safe: 0 } } });
    expect(unmatchedFindings).toBe(1);
    const evalScore = related ? 1 : 0;
    expect(mean).toMatchObject({ cwes: 3, vulnerable: 4, safe: 4, fp: 1, tp: 2 + evalScore });
    expect(mean.tpr).toBeCloseTo((1 + 0.5 + evalScore) / 3);
    expect(mean.fpr).toBeCloseTo(0.5 / 3);
    expect(mean.score).toBeCloseTo((1 + 0 + evalScore) / 3);
    expect(mean.pooled).toEqual({ tpr: (2 + evalScore) / 4, fpr: 0.25, score: (2 + evalScore) / 4 - 0.25 });
  });

  it("lets the caller decide which findings count and which CWEs are related", () => {
    const counts = (x: F): boolean => x.confidence !== "LOW";
    expect(filterFindings(findings, counts)).toHaveLength(findings.length - 1);
    expect(filterFindings(findings)).toEqual(findings);
    const strict = scoreLabeled(cases, findings, { counts });
    expect(strict.rows.find((r) => r.cwe === 89)).toMatchObject({ tp: 1, fp: 0, fpr: 0, score: 0.5 });
    const widened = scoreLabeled(cases, findings, { accepted: (cwe) => (cwe === 95 ? [94, 95] : acceptedCwes(cwe)) });
    expect(widened.rows.find((r) => r.cwe === 95)).toMatchObject({ accepted: [94, 95], tp: 1, tpAtSink: 1, otherCwes: {} });
  });

  it("credits every analyzer and rule of a merged finding", () => {
    const merged: LabeledFinding = {
      ...f("cmd_vuln.py", "CWE-78", 10),
      sources: [
        { analyzer: "ast-grep", rule_id: "py-cmd" },
        { analyzer: "bandit", rule_id: "B602" },
      ],
    };
    const { rows } = scoreLabeled(cases, [merged]);
    expect(rows.find((r) => r.cwe === 78)?.rules).toEqual({ "ast-grep:py-cmd": { tp: 1, fp: 0 }, "bandit:B602": { tp: 1, fp: 0 } });
  });
});

describe("taint-cases", () => {
  const HEADER = /^(#|\/\/) ax-bench: (vulnerable|safe) CWE-(\d+) — \S.*$/;

  async function files(dir: string): Promise<string[]> {
    const out: string[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile()) out.push(relative(CASES_DIR, join(entry.parentPath, entry.name)).split(sep).join(posix.sep));
    }
    return out.sort();
  }

  for (const language of ["python", "javascript"]) {
    describe(language, () => {
      it("has a valid header, exactly one sink line and 15–60 lines in every file", async () => {
        const rels = await files(join(CASES_DIR, language));
        expect(rels.length).toBeGreaterThanOrEqual(40);
        for (const rel of rels) {
          const lines = (await readFile(join(CASES_DIR, rel), "utf8")).replace(/\n$/, "").split("\n");
          expect([rel, HEADER.test(lines[0] ?? "")]).toEqual([rel, true]);
          expect([rel, lines.filter((l) => l.includes(SINK_MARKER)).length]).toEqual([rel, 1]);
          expect([rel, lines.length >= 15 && lines.length <= 60]).toEqual([rel, true]);
        }
      });

      it("loads, and has vulnerable and safe cases of every CWE as twins", async () => {
        const cases = await loadLabeledCases(join(CASES_DIR, language));
        const byCwe = new Map<number, { vulnerable: number; safe: number }>();
        for (const c of cases) {
          const n = byCwe.get(c.cwe) ?? { vulnerable: 0, safe: 0 };
          if (c.vulnerable) n.vulnerable++;
          else n.safe++;
          byCwe.set(c.cwe, n);
        }
        for (const [cwe, n] of byCwe) expect([cwe, n.vulnerable >= 1 && n.safe >= 1]).toEqual([cwe, true]);
        // Twins are named <pair>_vuln.<ext> / <pair>_safe.<ext> and carry the same CWE.
        const byFile = new Map(cases.map((c) => [c.file, c]));
        for (const c of cases) {
          const m = /^(.*)_(vuln|safe)(\.\w+)$/.exec(c.file);
          expect([c.file, m !== null && (m[2] === "vuln") === c.vulnerable]).toEqual([c.file, true]);
          const twin = byFile.get(`${m?.[1]}_${m?.[2] === "vuln" ? "safe" : "vuln"}${m?.[3]}`);
          expect([c.file, twin?.cwe]).toEqual([c.file, c.cwe]);
        }
      });
    });
  }
});

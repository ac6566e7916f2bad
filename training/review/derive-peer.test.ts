// Labelling of peer findings from tiny made-up labels and findings (no dataset is read).
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { RelatedIndex, fsSourceReader } from "@ax/ai/review";
import { labelledExamples, peerVerdict, preciseLabels } from "./derive-peer";
import { twinGroup, twinVerdict } from "./derive-own";

function rec(over: Record<string, unknown>): string {
  return JSON.stringify({
    source: "lint-a",
    file: "lint-a/App.java",
    line: 10,
    cwe: ["CWE-89"],
    label: "vulnerable",
    rule: "R1",
    kind: "line",
    count: 1,
    ...over,
  });
}

function finding(file: string, cwe: string | null, line: number): NormalizedFinding {
  return {
    analyzer: "ast-grep",
    rule_id: "java-sqli",
    cwe_id: cwe,
    file,
    start_line: line,
    end_line: line,
    snippet: "",
  } as NormalizedFinding;
}

describe("peerVerdict", () => {
  const labels = preciseLabels(
    [
      rec({}),
      rec({ line: 20, label: "safe" }),
      rec({ kind: "file", line: null, count: 1 }), // located by the line labels: adds nothing
      rec({ file: "lint-a/Safe.java", kind: "file", line: null, label: "safe", count: 0 }),
      rec({ file: "lint-a/Other.java", kind: "file", line: null, rule: "R2", cwe: ["CWE-78"], count: 2 }),
      rec({ file: "lint-a/b.py", kind: "file", line: null, rule: "B602", cwe: ["CWE-78"], lines: [3, 9] }),
      rec({ file: "lint-a/c.py", kind: "file", line: null, rule: "*", cwe: [], label: "safe", count: 0 }),
      rec({ file: "lint-a/Both.java", line: 5 }),
      rec({ file: "lint-a/Both.java", line: 5, label: "safe", rule: "R3" }),
    ].join("\n"),
  );

  it("is 1 on a vulnerable label, 0 on a safe one, unknown elsewhere", () => {
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-89", 10))).toBe(1);
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-89", 20))).toBe(0);
    // An unmarked line of a fixture with marked lines: not labelled (the file record adds nothing).
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-89", 15))).toBe("unknown");
    // A CWE the label's rule does not accept.
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-327", 10))).toBe("unknown");
  });

  it("lets a safe file record cover its whole file, and an unlocated vulnerable one too", () => {
    expect(peerVerdict(labels, finding("lint-a/Safe.java", "CWE-89", 77))).toBe(0);
    expect(peerVerdict(labels, finding("lint-a/Safe.java", "CWE-78", 77))).toBe("unknown");
    expect(peerVerdict(labels, finding("lint-a/c.py", "CWE-502", 4))).toBe(0);
    expect(peerVerdict(labels, finding("lint-a/Other.java", "CWE-78", 40))).toBe(1);
  });

  it("uses bandit's lines instead of its file record", () => {
    expect(peerVerdict(labels, finding("lint-a/b.py", "CWE-78", 9))).toBe(1);
    expect(peerVerdict(labels, finding("lint-a/b.py", "CWE-78", 5))).toBe("unknown");
  });

  it("leaves out a finding both kinds of label claim, and honours the line slack", () => {
    expect(peerVerdict(labels, finding("lint-a/Both.java", "CWE-89", 5))).toBe("conflict");
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-89", 8))).toBe("unknown");
    expect(peerVerdict(labels, finding("lint-a/App.java", "CWE-89", 8), 2)).toBe(1);
  });
});

describe("labelledExamples", () => {
  it("stores labelled findings with stripped code and facts, counting the rest", async () => {
    const root = mkdtempSync(join(tmpdir(), "ax-derive-peer-"));
    try {
      mkdirSync(join(root, "lint-a"));
      const java = [
        "class App {",
        "  void unsafeSearch(String q) throws Exception {",
        '    stmt.executeQuery("SELECT * FROM t WHERE n = \'" + q + "\'"); // Noncompliant',
        "  }",
        "}",
      ].join("\n");
      writeFileSync(join(root, "lint-a", "App.java"), java);
      const labels = preciseLabels([rec({ line: 3 }), rec({ line: 9, label: "safe" })].join("\n"));
      const findings = [finding("lint-a/App.java", "CWE-89", 3), finding("lint-a/App.java", "CWE-89", 4)];
      findings[0]!.snippet = '    stmt.executeQuery("…" + q); // Noncompliant';
      const { examples, counts } = await labelledExamples(findings, (f) => peerVerdict(labels, f), {
        source: "sonar-java",
        related: new RelatedIndex(fsSourceReader(root)),
        group: (f) => f.file,
      });
      expect(counts).toEqual({ truePositives: 1, falsePositives: 0, unknown: 1, conflict: 0 });
      expect(examples).toHaveLength(1);
      const e = examples[0]!;
      expect([e.source, e.group, e.label, e.cwe_id, e.line, e.rule_id]).toEqual([
        "sonar-java",
        "lint-a/App.java",
        1,
        "CWE-89",
        3,
        "java-sqli",
      ]);
      expect(e.code).toContain("void ident1(String q)");
      expect(e.code).toContain("executeQuery(");
      expect(e.code).not.toMatch(/Noncompliant|unsafe/i);
      expect(e.facts?.snippet).toBe('    stmt.executeQuery("…" + q);');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("own twins", () => {
  it("labels by the case's header and keeps a pair of twins in one group", () => {
    const cases = [
      { file: "sql_flask_search_vuln.py", language: "python" as const, cwe: 89, vulnerable: true, description: "", sinkLine: 5 },
      { file: "sql_flask_search_safe.py", language: "python" as const, cwe: 89, vulnerable: false, description: "", sinkLine: 5 },
    ];
    expect(twinVerdict(cases, finding("sql_flask_search_vuln.py", "CWE-89", 5))).toBe(1);
    expect(twinVerdict(cases, finding("sql_flask_search_safe.py", "CWE-89", 5))).toBe(0);
    expect(twinVerdict(cases, finding("sql_flask_search_safe.py", "CWE-798", 2))).toBe("unknown");
    expect(twinGroup("python", "sql_flask_search_vuln.py")).toBe(twinGroup("python", "sql_flask_search_safe.py"));
  });
});

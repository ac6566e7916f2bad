import type { NormalizedFinding } from "@ax/contracts";
import {
  addCounts,
  countBy,
  countOutcomes,
  HELD_OUT_SOURCE,
  isScored,
  matchesLabel,
  parsePeerLabel,
  parsePeerLabels,
  peerLanguage,
  scorePeerLabels,
  type PeerFinding,
  type PeerLabel,
} from "./peer";
import { missesMarkdown, peerMisses } from "./peer-misses";
import { peerSection, peerSummaryLines } from "./peer-report";
import { heldOutAggregate, isRefuted, peerLineSlack, type PeerSuiteResult } from "./peer-suite";

/** A made-up label record (labels.jsonl shape). */
function rec(over: Record<string, unknown>): Record<string, unknown> {
  return {
    source: "lint-a",
    file: "lint-a/src/App.java",
    line: 10,
    cwe: ["CWE-89"],
    label: "vulnerable",
    rule: "R1",
    kind: "line",
    count: 1,
    ...over,
  };
}
const label = (over: Record<string, unknown>): PeerLabel => parsePeerLabel(rec(over), "test");

function finding(file: string, cwe: string | null, start: number, end = start, rule = "r"): PeerFinding {
  return { analyzer: "ast-grep", rule_id: rule, cwe_id: cwe, file, start_line: start, end_line: end, fingerprint: `fp-${file}-${start}` };
}

describe("parsePeerLabels", () => {
  it("reads records with their language, kind, CWEs and line range", () => {
    const text = [
      JSON.stringify(rec({})),
      "",
      JSON.stringify(rec({ file: "lint-b/x.py", kind: "file", line: null, cwe: [], label: "safe", rule: "*", count: 0 })),
      JSON.stringify(rec({ file: "lint-c/A.kt", kind: "method", line: 4, end_line: 9, cwe: ["CWE-327", "327"] })),
    ].join("\n");
    const labels = parsePeerLabels(text);
    expect(labels.map((l) => [l.file, l.language, l.kind, l.line, l.endLine, l.cwes, l.vulnerable, l.rule])).toEqual([
      ["lint-a/src/App.java", "Java", "line", 10, null, [89], true, "R1"],
      ["lint-b/x.py", "Python", "file", null, null, [], false, "*"],
      ["lint-c/A.kt", "Kotlin", "method", 4, 9, [327], true, "R1"],
    ]);
  });

  it("names the record of a malformed label", () => {
    expect(() => parsePeerLabels(`${JSON.stringify(rec({}))}\n${JSON.stringify(rec({ line: null }))}\n`)).toThrow(
      /labels\.jsonl:2: a line label needs a line/,
    );
    expect(() => parsePeerLabel(rec({ label: "maybe" }), "x")).toThrow(/vulnerable or safe/);
  });

  it("maps extensions to languages", () => {
    expect(["a.java", "b.kt", "c.jsp", "d.py", "e.mjs", "f.tsx", "g.rb"].map(peerLanguage)).toEqual([
      "Java",
      "Kotlin",
      "JSP",
      "Python",
      "JavaScript",
      "TypeScript",
      "Other",
    ]);
  });
});

describe("matchesLabel", () => {
  const F = "lint-a/src/App.java";

  it("line labels: the finding's range must include the line, and its CWE be accepted", () => {
    const l = label({});
    expect(matchesLabel(l, finding(F, "CWE-89", 10))).toBe(true);
    expect(matchesLabel(l, finding(F, "CWE-89", 8, 11))).toBe(true);
    expect(matchesLabel(l, finding(F, "CWE-89", 11))).toBe(false);
    expect(matchesLabel(l, finding(F, "CWE-943", 10))).toBe(true); // CWE-943 is a direct parent of CWE-89
    expect(matchesLabel(l, finding(F, "CWE-78", 10))).toBe(false);
    expect(matchesLabel(l, finding(F, null, 10))).toBe(false);
    expect(matchesLabel(l, finding("lint-a/src/Other.java", "CWE-89", 10))).toBe(false);
  });

  it("line slack admits a finding that starts up to N lines before (the held-out source's bytecode lines)", () => {
    const l = label({});
    expect(matchesLabel(l, finding(F, "CWE-89", 8), 2)).toBe(true);
    expect(matchesLabel(l, finding(F, "CWE-89", 7), 2)).toBe(false);
    expect(matchesLabel(l, finding(F, "CWE-89", 8), 0)).toBe(false);
    expect(peerLineSlack(HELD_OUT_SOURCE)).toBe(2);
    expect(peerLineSlack("lint-a")).toBe(0);
  });

  it("method/class labels: the finding starts within line..end_line; without a line, anywhere in the file", () => {
    const m = label({ kind: "method", line: 20, end_line: 30 });
    expect(matchesLabel(m, finding(F, "CWE-89", 20))).toBe(true);
    expect(matchesLabel(m, finding(F, "CWE-89", 30))).toBe(true);
    expect(matchesLabel(m, finding(F, "CWE-89", 31))).toBe(false);
    expect(matchesLabel(m, finding(F, "CWE-89", 19, 25))).toBe(false);
    expect(matchesLabel(label({ kind: "class", line: null }), finding(F, "CWE-89", 99))).toBe(true);
  });

  it("file labels match anywhere in the file; a safe '*' record matches any finding, whatever its CWE", () => {
    expect(matchesLabel(label({ kind: "file", line: null }), finding(F, "CWE-89", 500))).toBe(true);
    expect(matchesLabel(label({ kind: "file", line: null, cwe: ["CWE-259"] }), finding(F, "CWE-798", 3))).toBe(true); // 259 → 798
    const any = label({ kind: "file", line: null, cwe: [], rule: "*", label: "safe" });
    expect(matchesLabel(any, finding(F, null, 1))).toBe(true);
    expect(matchesLabel(any, finding("lint-a/other.py", "CWE-89", 1))).toBe(false);
  });
});

describe("scorePeerLabels and counts", () => {
  const F = "lint-a/src/App.java";
  const labels = [
    label({ line: 10 }), // found
    label({ line: 20 }), // missed
    label({ line: 30, cwe: ["CWE-1333"] }), // missed, out of scope
    label({ line: 40, label: "safe" }), // false alarm
    label({ line: 50, label: "safe" }), // quiet
    label({ line: 60, cwe: [], rule: "NOCWE" }), // not scored
    label({ file: "lint-a/web/app.js", line: 5, cwe: ["CWE-79"] }), // found
  ];
  const findings = [
    finding(F, "CWE-89", 10),
    finding(F, "CWE-89", 40),
    finding(F, "CWE-89", 60),
    finding(F, "CWE-1333", 20), // wrong CWE for line 20
    finding("lint-a/web/app.js", "CWE-80", 5), // CWE-80 is a child of CWE-79
  ];
  const scope = (lang: string): Set<number> => new Set(lang === "Java" ? [89] : [79]);
  const outcomes = scorePeerLabels(labels, findings, { scope });

  it("finds, misses and flags each label by its own rule", () => {
    expect(outcomes.map((o) => [o.label.line, o.unscored, o.inScope, o.matches.map((f) => f.start_line)])).toEqual([
      [10, false, true, [10]],
      [20, false, true, []],
      [30, false, false, []],
      [40, false, true, [40]],
      [50, false, true, []],
      [60, true, false, []],
      [5, false, true, [5]],
    ]);
    expect(isScored(labels[5] as PeerLabel)).toBe(false);
  });

  it("counts recall, in-scope recall and the false-alarm rate; pooled sums recompute the rates", () => {
    const c = countOutcomes(outcomes);
    expect(c).toEqual({
      vulnerable: 4,
      found: 2,
      safe: 2,
      falseAlarms: 1,
      inScopeVulnerable: 3,
      inScopeFound: 2,
      unscored: 1,
      recall: 0.5,
      inScopeRecall: 2 / 3,
      falseAlarmRate: 0.5,
    });
    const byLang = countBy(outcomes, (o) => o.label.language);
    expect(Object.keys(byLang)).toEqual(["Java", "JavaScript"]);
    expect(byLang.JavaScript?.recall).toBe(1);
    expect(addCounts([byLang.Java!, byLang.JavaScript!])).toEqual(c);
  });

  it("lists missed labels and false alarms for diagnosis, with our findings", () => {
    const misses = peerMisses(outcomes, findings);
    expect(misses.map((m) => [m.kind, m.line, m.inScope])).toEqual([
      ["false-alarm", 40, true],
      ["missed", 20, true],
      ["missed", 30, false],
    ]);
    expect(misses[1]?.findings.map((f) => f.cwe)).toContain("CWE-1333");
    expect(missesMarkdown(misses)).toMatch(/\| missed \| lint-a \| lint-a\/src\/App\.java \| 20 \|/);
  });

  it("refuses the held-out source in the misses list", () => {
    const held = scorePeerLabels([label({ source: HELD_OUT_SOURCE, file: `${HELD_OUT_SOURCE}/A.java` })], []);
    expect(() => peerMisses(held, [])).toThrow(/held out/);
    expect(() => peerMisses(outcomes, [finding(`${HELD_OUT_SOURCE}/A.java`, "CWE-89", 1)])).toThrow(/held out/);
  });
});

describe("the held-out aggregate and the report", () => {
  const secretFile = `${HELD_OUT_SOURCE}/secret/Hidden.java`;
  const held = scorePeerLabels(
    [
      label({ source: HELD_OUT_SOURCE, file: secretFile, rule: "HIDDEN_RULE", line: 5 }),
      label({ source: HELD_OUT_SOURCE, file: `${HELD_OUT_SOURCE}/x.jsp`, rule: "HIDDEN_RULE", line: 3, label: "safe" }),
    ],
    [finding(secretFile, "CWE-89", 4)],
    { lineSlack: peerLineSlack },
  );
  const counted = [finding(secretFile, "CWE-89", 4)] as unknown as NormalizedFinding[];
  const info = { findings: 1, refuted: 2, unconfirmed: 0, outsideLabelledFiles: 0, scanMs: 5, analyzers: [] };
  const aggregate = heldOutAggregate(held, counted, info, { Java: 2 });

  it("keeps only per-language counts: no file, line or rule", () => {
    expect(Object.keys(aggregate.byLanguage)).toEqual(["JSP", "Java"]);
    expect(aggregate.byLanguage.Java).toMatchObject({ vulnerable: 1, found: 1, findings: 1, refuted: 2 });
    expect(aggregate.byLanguage.JSP).toMatchObject({ safe: 1, falseAlarms: 0, findings: 0, refuted: 0 });
    const json = JSON.stringify(aggregate);
    expect(json).not.toContain("Hidden");
    expect(json).not.toContain("HIDDEN_RULE");
  });

  it("renders the development section, the held-out aggregate and summary rows", () => {
    const dev = scorePeerLabels([label({}), label({ line: 12, label: "safe" })], [finding("lint-a/src/App.java", "CWE-89", 10)]);
    const total = countOutcomes(dev);
    const result: PeerSuiteResult = {
      dataset: { file: "peer.tar.gz", sha256: "0".repeat(64), version: "test" },
      lineSlack: { [HELD_OUT_SOURCE]: 2 },
      scope: { Java: [89] },
      development: {
        sources: [
          {
            source: "lint-a",
            files: 1,
            ...info,
            total,
            byLanguage: { Java: total },
            byKind: { line: total },
            byRule: { R1: total },
            refutation: { falseAlarmsRemoved: 3, labelsLost: 0 },
          },
        ],
        byLanguage: { Java: total },
        byKind: { line: total },
        pooled: total,
      },
      heldOut: aggregate,
      totalMs: 10,
    };
    const md = peerSection(result).join("\n");
    expect(md).toContain("| lint-a | Java | 1 | 1 | 100.0% | 1 | 100.0% | 1 | 0 | 0.0% | 0 |");
    expect(md).toContain(`## Peer-labelled held-out set (${HELD_OUT_SOURCE})`);
    expect(md).toMatch(/\| lint-a \| \d+ \| \d+ \| 3 \| 0 \|/);
    expect(md).not.toContain("Hidden");
    expect(md).not.toContain("HIDDEN_RULE");
    const summary = peerSummaryLines(result);
    expect(summary).toHaveLength(2);
    expect(summary[0]).toContain("recall **100.0%** (1/1 vulnerable labels)");
  });

  it("treats refuted findings as not reported", () => {
    const f = { dataflow: { status: "refuted" } } as unknown as NormalizedFinding;
    const g = { dataflow: { status: "unconfirmed" } } as unknown as NormalizedFinding;
    expect([isRefuted(f), isRefuted(g), isRefuted({} as NormalizedFinding)]).toEqual([true, false, false]);
  });
});

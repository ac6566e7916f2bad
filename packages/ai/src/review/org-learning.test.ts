import {
  adjustVerdict,
  buildOrgStats,
  codeShape,
  emptyOrgStats,
  labelKeyOf,
  orgLabelOf,
  orgShift,
  pathPattern,
  reviewFacts,
  type LabelFacts,
  type OrgLabel,
} from "./org-learning";

const SQLI: LabelFacts = {
  analyzer: "semgrep",
  rule_id: "java-sqli",
  cwe_id: "CWE-89",
  file: "src/main/java/com/acme/web/UserController.java",
  snippet: '    stmt.executeQuery("SELECT * FROM users WHERE id = " + id); // user lookup',
};
const verdict = (pTrue: number) => ({
  class: pTrue >= 0.5 ? ("TRUE_POSITIVE" as const) : ("FALSE_POSITIVE" as const),
  confidence: pTrue >= 0.5 ? pTrue : 1 - pTrue,
  pTrue,
  model: "review-lr-test",
  reasons: ["the taint analysis traced request data to this sink"],
});
const label = (facts: LabelFacts, truePositive: boolean, extra: Partial<OrgLabel> = {}): OrgLabel => ({
  facts,
  truePositive,
  projectId: "p1",
  ...extra,
});
const sibling = (n: number): LabelFacts => ({
  ...SQLI,
  file: `src/main/java/com/acme/admin/Report${n}.java`,
  snippet: `  st.executeQuery("SELECT name FROM t WHERE k = " + key${n});`,
});

describe("keys", () => {
  it("generalise the directory's last segment and abstract identifiers and literals of the sink line", () => {
    expect(pathPattern("src/main/java/com/acme/web/UserController.java")).toBe("src/main/java/com/acme/*");
    expect(pathPattern("app.py")).toBe(".");
    expect(codeShape(SQLI.snippet, SQLI.file)).toBe("i.executeQuery(\u00a7+i);");
    expect(codeShape(sibling(3).snippet, SQLI.file)).toBe(codeShape(SQLI.snippet, SQLI.file));
    expect(codeShape('stmt.executeQuery("SELECT 1")', "A.java")).not.toBe(codeShape(SQLI.snippet, SQLI.file));
    expect(labelKeyOf(SQLI).map((k) => k.level)).toEqual(["shape", "dir", "rule", "cwe-shape"]);
    expect(labelKeyOf({ ...SQLI, snippet: "" }).map((k) => k.level)).toEqual(["dir", "rule"]);
  });
});

describe("adjustVerdict", () => {
  it("changes nothing for an organization without labels", () => {
    const v = verdict(0.93);
    expect(adjustVerdict(v, SQLI, emptyOrgStats())).toBe(v);
    expect(adjustVerdict(v, SQLI, buildOrgStats([]))).toBe(v);
  });

  it("moves the verdict toward FALSE_POSITIVE after similar findings were marked false positive, and says why", () => {
    const stats = buildOrgStats([label(sibling(1), false), label(sibling(2), false)], { projectId: "p1" });
    const v = verdict(0.9);
    const moved = adjustVerdict(v, SQLI, stats);
    expect(moved.pTrue).toBeLessThan(0.9);
    expect(moved.model).toBe("review-lr-test+org");
    expect(moved.reasons[0]).toBe("2 findings of the same rule and code shape in this project were marked false positive");
    // More labels, further.
    const more = buildOrgStats(
      Array.from({ length: 10 }, (_, n) => label(sibling(n + 1), false)),
      { projectId: "p1" },
    );
    const further = adjustVerdict(v, SQLI, more);
    expect(further.pTrue).toBeLessThan(moved.pTrue);
    expect(further.class).toBe("FALSE_POSITIVE");
    expect(further.confidence).toBeCloseTo(1 - further.pTrue, 4);
    expect(further.reasons[1]).toMatch(/^the review model alone said TRUE_POSITIVE/);
  });

  it("moves the verdict toward TRUE_POSITIVE after similar findings were confirmed", () => {
    const stats = buildOrgStats([label(sibling(1), true), label(sibling(2), true), label(sibling(3), true)]);
    const moved = adjustVerdict(verdict(0.4), SQLI, stats);
    expect(moved.pTrue).toBeGreaterThan(0.4);
    expect(moved.reasons[0]).toBe("3 findings of the same rule and code shape in this organization were confirmed as true positive");
  });

  it("barely moves another rule's finding, and cites mixed counts", () => {
    const xss: LabelFacts = {
      analyzer: "semgrep",
      rule_id: "js-xss",
      cwe_id: "CWE-79",
      file: "web/views/a.js",
      snippet: "el.innerHTML = name;",
    };
    const labels = [1, 2, 3, 4, 5, 6].map((n) => label(sibling(n), false));
    const stats = buildOrgStats(labels, { projectId: "p1" });
    expect(orgShift(xss, stats).shift).toBe(0);
    expect(adjustVerdict(verdict(0.8), xss, stats).pTrue).toBe(0.8);
    // Same rule, other code shape and directory: only the rule level moves it, less than the shape level would.
    const other: LabelFacts = { ...SQLI, file: "lib/db/Q.java", snippet: "conn.prepareStatement(sql).executeQuery();" };
    expect(Math.abs(orgShift(other, stats).shift)).toBeLessThan(Math.abs(orgShift(SQLI, stats).shift) / 2);
    const mixed = buildOrgStats([...labels, label(sibling(7), true)], { projectId: "p1" });
    expect(adjustVerdict(verdict(0.9), SQLI, mixed).reasons[0]).toBe(
      "6 of 7 findings of the same rule and code shape in this project were marked false positive",
    );
  });

  it("leaves a finding's own label out of its verdict", () => {
    const stats = buildOrgStats([label(SQLI, false, { fingerprint: "fp-1" })], { projectId: "p1" });
    const v = verdict(0.9);
    expect(adjustVerdict(v, SQLI, stats, { fingerprint: "fp-1" })).toBe(v);
    expect(adjustVerdict(v, SQLI, stats, { fingerprint: "fp-2" }).pTrue).toBeLessThan(0.9);
  });

  it("names the organization when the labels come from other projects", () => {
    const stats = buildOrgStats([label(sibling(1), false, { projectId: "p2" }), label(sibling(2), false, { projectId: "p2" })], {
      projectId: "p1",
    });
    expect(adjustVerdict(verdict(0.9), SQLI, stats).reasons[0]).toContain("in this organization");
  });

  it("links votes on review answers with findings of the same weakness and code shape", () => {
    const vote = orgLabelOf({
      kind: "vote",
      truePositive: false,
      cwe_id: "CWE-89",
      file: "Snippet.java",
      line: null,
      code: 'rs = stmt.executeQuery("SELECT a FROM b WHERE c = " + c);',
      pTrue: null,
    });
    const stats = buildOrgStats([vote, vote]);
    const moved = adjustVerdict(verdict(0.9), SQLI, stats);
    expect(moved.pTrue).toBeLessThan(0.9);
    expect(moved.reasons[0]).toBe(
      "2 findings with the same weakness (CWE-89) and code shape in this organization were marked false positive",
    );
    expect(reviewFacts({ code: "a\nb\nc", line: "2", cwe_id: "CWE-89" }).snippet).toBe("b");
    expect(reviewFacts({ code: "a\nb\nc", line: "9" }).snippet).toBeNull();
  });

  it("trusts the counts more when they predicted the organization's labels better than the model did", () => {
    // Rule `noisy` is wrong every time, `sharp` right every time; the model said 0.8 to all.
    const labels: OrgLabel[] = [];
    for (let i = 0; i < 40; i++) {
      const noisy = i % 2 === 0;
      labels.push(label({ ...sibling(i), rule_id: noisy ? "noisy" : "sharp" }, !noisy, { pTrue: 0.8 }));
    }
    expect(buildOrgStats(labels).scale).toBeGreaterThan(1);
    // Too few scored labels to fit: the counts are taken as they are.
    expect(buildOrgStats(labels.slice(0, 10)).scale).toBe(1);
    // Every key half right and half wrong, and a model that told them apart: less trust.
    const mixed = labels.map((l, i) => ({ ...l, facts: sibling(i % 4), truePositive: i % 3 === 0, pTrue: i % 3 === 0 ? 0.9 : 0.1 }));
    expect(buildOrgStats(mixed).scale).toBeLessThan(1);
  });

  it("tempers the model's own confidence when it was too sure on the organization's labels, and says so", () => {
    // The model said 0.97 to every one; a third were true positives.
    const labels = Array.from({ length: 60 }, (_, i) =>
      label({ ...sibling(i), rule_id: `rule-${i}`, cwe_id: null }, i % 3 === 0, { pTrue: 0.97 }),
    );
    const stats = buildOrgStats(labels);
    expect(stats.temperature).toBeLessThan(1);
    expect(stats.record).toEqual({ scored: 60, correct: 20 });
    // A finding of a rule nobody labelled: same class, less sure.
    const lone: LabelFacts = { ...SQLI, rule_id: "unlabelled", cwe_id: null };
    const v = verdict(0.97);
    const moved = adjustVerdict(v, lone, stats);
    expect(moved.class).toBe("TRUE_POSITIVE");
    expect(moved.pTrue).toBeLessThan(0.97);
    expect(moved.reasons[0]).toBe(
      "the review model was right on 20 of 60 findings triaged in this organization, so its own confidence counts for less",
    );
    // A model that was right keeps its confidence.
    const right = labels.map((l) => ({ ...l, pTrue: l.truePositive ? 0.97 : 0.03 }));
    expect(buildOrgStats(right).temperature).toBe(1);
  });

  it("is deterministic, bounded and fast", () => {
    const labels: OrgLabel[] = [];
    for (let i = 0; i < 5_000; i++)
      labels.push(label({ ...sibling(i), rule_id: `r${i % 50}`, file: `d${i % 70}/x/F${i}.java` }, i % 3 === 0));
    const stats = buildOrgStats(labels, { projectId: "p1", maxLabels: 4_000 });
    expect(stats.labels).toBe(4_000);
    expect(buildOrgStats(labels, { projectId: "p1", maxLabels: 4_000 }).counts).toEqual(stats.counts);
    const t0 = process.hrtime.bigint();
    const out = labels.slice(0, 1000).map((l) => adjustVerdict(verdict(0.7), l.facts, stats).pTrue);
    const perFindingMs = Number(process.hrtime.bigint() - t0) / 1e6 / 1000;
    expect(perFindingMs).toBeLessThan(1);
    expect(out).toEqual(labels.slice(0, 1000).map((l) => adjustVerdict(verdict(0.7), l.facts, stats).pTrue));
    // Hostile text: quotes that never close, a 64 KiB one-line review.
    const t1 = process.hrtime.bigint();
    codeShape('"'.repeat(4000) + "'".repeat(4000), "a.js");
    reviewFacts({ code: `f(${"a+".repeat(32_000)}b)`, cwe_id: "CWE-89" });
    expect(Number(process.hrtime.bigint() - t1) / 1e6).toBeLessThan(50);
    // The shift is bounded.
    const many = buildOrgStats(Array.from({ length: 3000 }, () => label(SQLI, false)));
    expect(adjustVerdict(verdict(0.999), SQLI, many).pTrue).toBeCloseTo(1 / (1 + Math.exp(-(Math.log(999) - 5))), 3);
  });
});

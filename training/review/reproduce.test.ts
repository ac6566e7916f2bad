// The shipped review model is reproducible from the committed examples: training again
// gives the artifact byte for byte (npm run ai:train), so no one can ship weights that the
// training script and data in the repository do not produce.
import { readFileSync } from "node:fs";
import { DEFAULT_MODEL_PATH, type ReviewModelArtifact } from "@ax/ai/review";
import { DEFAULT_EXAMPLES } from "./derive";
import { dedupKey } from "./strip";
import { loadExamples, type LabeledExample } from "./examples";
import { HELD_OUT_SOURCES, capped, priorTable, thresholdFor, trainArtifact, vectorOf } from "./train";

it("retrains the committed artifact exactly, never on the held-out source", async () => {
  const examples = await loadExamples(DEFAULT_EXAMPLES);
  const artifact = trainArtifact(examples);
  expect(`${JSON.stringify(artifact, null, 1)}\n`).toBe(readFileSync(DEFAULT_MODEL_PATH, "utf8"));
  const shipped = JSON.parse(readFileSync(DEFAULT_MODEL_PATH, "utf8")) as ReviewModelArtifact;
  const sources = shipped.training.sources as string[];
  for (const held of HELD_OUT_SOURCES) expect(sources).not.toContain(held);
}, 600_000);

const example = (over: Partial<LabeledExample>): LabeledExample => ({
  source: "own-twins",
  group: "g",
  label: 1,
  cwe_id: "CWE-89",
  file: "app/users.py",
  line: 3,
  analyzer: "semgrep",
  rule_id: "py-sqli",
  code: 'def f(request):\n    cur.execute("SELECT * FROM u WHERE id=" + request.args["id"])\n',
  facts: { analyzer: "semgrep", rule_id: "py-sqli", cwe_id: "CWE-89", file: "app/users.py", start_line: 2, dataflow: null },
  ...over,
});

it("counts each rule's record and leaves a training example's own label out of its prior", () => {
  const rows = [example({ label: 1 }), example({ label: 1, group: "h" }), example({ label: 0, group: "i" })];
  const priors = priorTable(rows);
  expect(priors["python|semgrep:py-sqli"]).toEqual([2, 1]);
  expect(priors["*"]).toEqual([2, 1]);
  // The prior feature of the false positive, as a training example, sees only the two true positives.
  const asTraining = vectorOf(rows[2] as LabeledExample, priors, false, true);
  const asTest = vectorOf(rows[2] as LabeledExample, priors, false, false);
  expect([...asTraining.x.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan([...asTest.x.values()].reduce((a, b) => a + b, 0));
});

it("chooses the threshold that dismisses at most the budget of true positives", () => {
  const rows = [0.1, 0.2, 0.3, 0.9, 0.95].map((p) => ({ p, y: 1 as const }));
  expect(thresholdFor([...rows, { p: 0.05, y: 0 }], 0.2)).toBe(0.2);
  expect(thresholdFor(rows, 0)).toBe(0.1);
  // Never above 0.5: a finding more likely true than not is never dismissed.
  expect(thresholdFor([{ p: 0.9, y: 1 }], 0.5)).toBe(0.5);
});

it("samples a large source down by whole groups, deterministically", () => {
  const many = Array.from({ length: 4000 }, (_, i) => example({ source: "juliet-java", group: `g${Math.floor(i / 4)}`, line: i % 4 }));
  const a = capped(many);
  expect(a.length).toBe(1500);
  expect(
    capped([...many].reverse())
      .map((e) => `${e.group}:${e.line}`)
      .sort(),
  ).toEqual(a.map((e) => `${e.group}:${e.line}`).sort());
});

it("keys duplicates by code without comments or whitespace, and CWE", () => {
  const a = { code: "x = f(y)  # note", cwe_id: "CWE-78", file: "a.py" };
  expect(dedupKey(a)).toBe(dedupKey({ ...a, code: "x=f(y)" }));
  expect(dedupKey(a)).not.toBe(dedupKey({ ...a, cwe_id: "CWE-89" }));
});

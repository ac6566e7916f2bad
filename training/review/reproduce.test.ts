// The shipped review model is reproducible from the committed examples: training again
// gives the artifact byte for byte (npm run ai:train), so no one can ship weights that the
// training script and data in the repository do not produce.
import { readFileSync } from "node:fs";
import { DEFAULT_MODEL_PATH } from "@ax/ai/review";
import { DEFAULT_EXAMPLES } from "./derive";
import { loadExamples, splitOf } from "./examples";
import { trainArtifact } from "./train";

it("retrains the committed artifact exactly", async () => {
  const examples = await loadExamples(DEFAULT_EXAMPLES);
  const artifact = trainArtifact(examples);
  expect(`${JSON.stringify(artifact, null, 1)}\n`).toBe(readFileSync(DEFAULT_MODEL_PATH, "utf8"));
}, 120_000);

it("never splits a test case family", async () => {
  const examples = await loadExamples(DEFAULT_EXAMPLES);
  const sides = new Map<string, Set<string>>();
  for (const e of examples) sides.set(e.group, (sides.get(e.group) ?? new Set()).add(splitOf(e.group)));
  expect([...sides.values()].every((s) => s.size === 1)).toBe(true);
  const test = examples.filter((e) => splitOf(e.group) === "test");
  expect(test.length / examples.length).toBeGreaterThan(0.1);
  expect(test.some((e) => e.label === 0) && test.some((e) => e.label === 1)).toBe(true);
});

it("adds reviewers' votes (ax admin export-feedback) to the training data", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const { allExamples } = await import("./train");
  const dir = mkdtempSync(join(tmpdir(), "ax-votes-"));
  try {
    const votes = join(dir, "votes.jsonl");
    const vote = {
      source: "feedback",
      group: "feedback/r1",
      label: 0,
      cwe_id: "CWE-89",
      file: "a.java",
      line: 3,
      analyzer: "review-api",
      rule_id: "",
      code: "q()",
    };
    writeFileSync(votes, `${JSON.stringify(vote)}\n`);
    const base = await loadExamples(DEFAULT_EXAMPLES);
    const merged = await allExamples(DEFAULT_EXAMPLES, votes);
    expect(merged.length).toBe(base.length + 1);
    expect(merged.at(-1)).toMatchObject({ source: "feedback", label: 0, code: "q()" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import { prng } from "@ax/ai/review";
import type { LabeledExample } from "./examples";
import { fpRemovedAt, replay, replaySummary } from "./replay";

/**
 * A synthetic source: rule `noisy` is wrong 80% of the time, rule `sharp` right 95% of the
 * time, and the global model cannot tell them apart (its scores carry a little signal only).
 */
function source(n: number, seed: number): { examples: LabeledExample[]; scores: number[] } {
  const rnd = prng(seed);
  const examples: LabeledExample[] = [];
  const scores: number[] = [];
  for (let i = 0; i < n; i++) {
    const noisy = i % 2 === 0;
    const label: 0 | 1 = rnd() < (noisy ? 0.2 : 0.95) ? 1 : 0;
    examples.push({
      source: "own-apps",
      group: `g${i}`,
      label,
      cwe_id: noisy ? "CWE-79" : "CWE-89",
      file: `src/${noisy ? "views" : "dao"}/m${i % 7}/F${i}.java`,
      line: 10,
      analyzer: "semgrep",
      rule_id: noisy ? "noisy" : "sharp",
      code: "",
    });
    scores.push(Math.min(0.99, Math.max(0.01, 0.75 + 0.1 * (label - 0.5) + 0.2 * (rnd() - 0.5))));
  }
  return { examples, scores };
}

it("removes more false positives at the same true-positive loss once 10% was triaged", () => {
  const { examples, scores } = source(2000, 7);
  const result = replay(examples, scores, 0.1, 42);
  expect(result.triaged).toBe(200);
  expect(result.rest).toHaveLength(1800);
  const summary = replaySummary(result, 0.05);
  expect(summary.after).toBeGreaterThan(summary.before + 0.1);
  // Seeded: the same call gives the same figures; another seed another sample.
  expect(replaySummary(replay(examples, scores, 0.1, 42))).toEqual(summary);
  expect(replay(examples, scores, 0.1, 43).rest.map((r) => r.label)).not.toEqual(result.rest.map((r) => r.label));
});

it("changes nothing when nothing was triaged", () => {
  const { examples, scores } = source(200, 3);
  const result = replay(examples, scores, 0, 1);
  expect(result.triaged).toBe(0);
  expect(result.rest.every((r) => r.after === r.before)).toBe(true);
  expect(() => replay(examples, scores.slice(1))).toThrow(/scores/);
});

it("measures false positives removed at a bounded true-positive loss", () => {
  const items = [
    { p: 0.1, label: 0 as const },
    { p: 0.2, label: 0 as const },
    { p: 0.9, label: 0 as const },
    ...Array.from({ length: 20 }, (_, i) => ({ p: 0.3 + i * 0.03, label: 1 as const })),
  ];
  // 5% of 20 TPs: one may be dismissed, so everything below the second-lowest TP (0.33) is.
  expect(fpRemovedAt(items, 0.05)).toBeCloseTo(2 / 3);
  expect(fpRemovedAt(items, 0)).toBeCloseTo(2 / 3);
  expect(
    fpRemovedAt(
      items.filter((i) => i.label === 1),
      0.05,
    ),
  ).toBe(0);
});

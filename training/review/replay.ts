/**
 * Replay of learning from users' triage (issue 21, item 6), for ai:eval: of one source's
 * labelled examples, a seeded random `fraction` is taken as triaged by the user (their labels
 * become the organization's stats, org-learning.ts), and the rest is scored before and after
 * the adjustment. Pure: the caller gives the global model's p(TRUE_POSITIVE) per example.
 */
import { adjustVerdict, buildOrgStats, prng, type LabelFacts, type LearningParams, type OrgLabel } from "@ax/ai/review";
import type { LabeledExample } from "./examples";

export interface ReplayItem {
  label: 0 | 1;
  before: number;
  after: number;
}

export interface ReplayResult {
  /** How many examples were taken as triaged. */
  triaged: number;
  /** The other examples, in their order: label and p(TRUE_POSITIVE) before and after. */
  rest: ReplayItem[];
}

/** The facts an example's keys are read from (its scanner facts when it has them). */
export function exampleFacts(e: Pick<LabeledExample, "analyzer" | "rule_id" | "cwe_id" | "file" | "facts">): LabelFacts {
  return {
    analyzer: e.facts?.analyzer ?? e.analyzer,
    rule_id: e.facts?.rule_id ?? e.rule_id,
    cwe_id: e.facts?.cwe_id ?? e.cwe_id ?? null,
    file: e.facts?.file ?? e.file,
    snippet: e.facts?.snippet ?? null,
  };
}

/** A seeded choice of ⌈fraction·n⌉ indices (Fisher–Yates on a seeded generator). */
function chosen(n: number, fraction: number, seed: number): Set<number> {
  const rnd = prng(seed);
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return new Set(idx.slice(0, Math.ceil(n * Math.max(0, Math.min(1, fraction)))));
}

export function replay(
  examples: readonly Pick<LabeledExample, "label" | "analyzer" | "rule_id" | "cwe_id" | "file" | "facts">[],
  scores: readonly number[],
  fraction = 0.1,
  seed = 20261127,
  threshold = 0.5,
  params?: LearningParams,
): ReplayResult {
  if (scores.length !== examples.length) throw new Error(`replay: ${scores.length} scores for ${examples.length} examples`);
  const triaged = chosen(examples.length, fraction, seed);
  const labels: OrgLabel[] = [];
  for (const i of triaged)
    labels.push({ facts: exampleFacts(examples[i]!), truePositive: examples[i]!.label === 1, projectId: "replay", pTrue: scores[i]! });
  const stats = buildOrgStats(labels, { projectId: "replay", ...(params ? { params } : {}) });
  const rest: ReplayItem[] = [];
  examples.forEach((e, i) => {
    if (triaged.has(i)) return;
    const before = scores[i]!;
    const cls = before >= threshold ? "TRUE_POSITIVE" : "FALSE_POSITIVE";
    const verdict = { class: cls, confidence: cls === "TRUE_POSITIVE" ? before : 1 - before, pTrue: before, model: "replay" } as const;
    rest.push({
      label: e.label,
      before,
      after: adjustVerdict(verdict, exampleFacts(e), stats, { threshold, ...(params ? { params } : {}) }).pTrue,
    });
  });
  return { triaged: triaged.size, rest };
}

/**
 * The share of false positives whose p(TRUE_POSITIVE) is below the highest threshold that
 * dismisses at most `maxTpLoss` of the true positives — before and after the adjustment.
 */
export function replaySummary(
  result: ReplayResult,
  maxTpLoss = 0.05,
): { before: number; after: number; truePositives: number; falsePositives: number } {
  const at = (pick: (r: ReplayItem) => number) =>
    fpRemovedAt(
      result.rest.map((r) => ({ p: pick(r), label: r.label })),
      maxTpLoss,
    );
  return {
    before: at((r) => r.before),
    after: at((r) => r.after),
    truePositives: result.rest.filter((r) => r.label === 1).length,
    falsePositives: result.rest.filter((r) => r.label === 0).length,
  };
}

/** FP share below the largest threshold t with |{TP : p < t}| ≤ maxTpLoss·|TP|. */
export function fpRemovedAt(items: readonly { p: number; label: 0 | 1 }[], maxTpLoss: number): number {
  const tps = items
    .filter((i) => i.label === 1)
    .map((i) => i.p)
    .sort((a, b) => a - b);
  const fps = items.filter((i) => i.label === 0).map((i) => i.p);
  if (fps.length === 0) return 0;
  const allowed = Math.floor(maxTpLoss * tps.length);
  // Dismiss everything strictly below the (allowed+1)-th smallest TP score.
  const t = allowed < tps.length ? tps[allowed]! : Infinity;
  return fps.filter((p) => p < t).length / fps.length;
}

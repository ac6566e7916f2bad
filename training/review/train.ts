/**
 * `npm run ai:train` — trains the review model from the labeled examples and writes the
 * artifact (packages/ai/model/review-model.json). Deterministic: the same examples give
 * the same bytes (seeded shuffle, no timestamps), so a clean checkout reproduces the
 * shipped model.
 *
 *   node --import tsx training/review/train.ts [--examples FILE] [--feedback FILE.jsonl] [--out FILE]
 *
 * What generalizes to code the model never saw is chosen on code it never saw: the
 * configuration (code tokens or evidence alone) and the regularization are picked by the
 * mean ROC AUC of leave-one-source-out predictions inside the training data, and the
 * calibration is fitted on those same out-of-source scores. Each source weighs the same
 * (Juliet's thousands of findings would otherwise decide everything), and the rule's
 * measured record enters as a feature computed without the example's own label.
 *
 * find-sec-bugs (HELD_OUT_SOURCES) is never trained on: it is the detection benchmark's
 * held-out source, and ai:eval uses it only as a test source.
 *
 * --feedback adds reviewers' votes on review answers (`ax admin export-feedback`).
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MODEL_PATH,
  FEATURE_SCHEME,
  PRIOR_FEATURE,
  cweNumber,
  encodeWeights,
  evidenceBlock,
  evidenceOf,
  evidenceSign,
  featureIndex,
  family,
  featurize,
  fitPlatt,
  linearScore,
  rocAuc,
  rulePrior,
  sigmoid,
  trainLogistic,
  type Example,
  type LinearModel,
  type ReviewInput,
  type ReviewModelArtifact,
} from "@ax/ai/review";
import { DEFAULT_EXAMPLES } from "./derive";
import { loadExamples, type LabeledExample } from "./examples";

export const HYPER = { dims: 1 << 17, epochs: 6, learningRate: 0.2, seed: 20261122 };
export const L2_GRID = [1e-5, 1e-4, 1e-3];
export const CONFIGS = [{ tokens: false }] as const;
/**
 * At most this many examples of one source are trained on (a deterministic sample by group):
 * every source weighs the same anyway, and Juliet's thousands would only cost time.
 */
export const SOURCE_CAP = 1500;
/** Sources never trained on (held out of all development). */
export const HELD_OUT_SOURCES: ReadonlySet<string> = new Set(["findsecbugs"]);
/** The operating threshold is chosen so that out-of-source predictions dismiss at most this share of true positives. */
export const TP_LOSS_BUDGET = 0.05;

type Priors = Record<string, [number, number]>;

function log(message: string): void {
  process.stderr.write(`[ai:train] ${message}\n`);
}

const inputs = new WeakMap<LabeledExample, ReviewInput>();

/** What the model reads of a labeled example: its code, CWE, file and the evidence of its finding (computed once). */
export function inputOf(e: LabeledExample): ReviewInput {
  let input = inputs.get(e);
  if (!input) {
    input = { code: e.code, cwe_id: e.cwe_id, file: e.file, evidence: e.facts ? evidenceOf(e.facts, e.code) : null };
    inputs.set(e, input);
  }
  return input;
}

/** The weights whose direction is known (evidence.ts evidenceSign), by index. */
export function signsOf(rows: readonly LabeledExample[]): Map<number, 1 | -1> {
  const out = new Map<number, 1 | -1>([[featureIndex(PRIOR_FEATURE, HYPER.dims), 1]]);
  for (const e of rows) {
    for (const [name] of evidenceBlock(inputOf(e))) {
      const sign = evidenceSign(name);
      if (sign !== undefined) out.set(featureIndex(name, HYPER.dims), sign);
    }
  }
  return out;
}

/** Each rule's record (language|analyzer:rule), each language × weakness family's, and all of them ("*"). */
export function priorTable(rows: readonly LabeledExample[]): Priors {
  const out: Priors = {};
  const bump = (key: string, y: 0 | 1): void => {
    const c = (out[key] ??= [0, 0]);
    c[y === 1 ? 0 : 1] += 1;
  };
  for (const e of rows) {
    // A rule's record is of what it reports: refuted matches are never reported.
    if (e.refuted) continue;
    const ev = inputOf(e).evidence;
    bump("*", e.label);
    if (!ev) continue;
    bump(`${ev.language}|${ev.rule}`, e.label);
    bump(`${ev.language}|${family(cweNumber(e.cwe_id))}`, e.label);
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Features of an example; a training example's prior leaves its own label out. */
export function vectorOf(e: LabeledExample, priors: Priors, tokens: boolean, training: boolean): Example {
  const input = inputOf(e);
  const prior = rulePrior(priors, input, training ? e.label : undefined);
  const extra: [string, number][] = prior ? [[PRIOR_FEATURE, prior.value]] : [];
  return { x: featurize(input, HYPER.dims, extra, { tokens }), y: e.label };
}

/** Weights making every source count the same in the loss, whatever its size. */
function sourceWeights(rows: readonly LabeledExample[]): number[] {
  const sizes = new Map<string, number>();
  for (const e of rows) sizes.set(e.source, (sizes.get(e.source) ?? 0) + 1);
  return rows.map((e) => rows.length / (sizes.size * (sizes.get(e.source) ?? 1)));
}

/** The examples trained on: each source sampled down to SOURCE_CAP by a hash of the group, whole groups kept. */
export function capped(rows: readonly LabeledExample[]): LabeledExample[] {
  const bySource = new Map<string, LabeledExample[]>();
  for (const e of rows) bySource.set(e.source, [...(bySource.get(e.source) ?? []), e]);
  const out: LabeledExample[] = [];
  for (const list of bySource.values()) {
    if (list.length <= SOURCE_CAP) {
      out.push(...list);
      continue;
    }
    const ranks = new Map(list.map((e) => [e.group, createHash("sha256").update(`ax-review-cap-v1:${e.group}`).digest("hex")]));
    const rank = (e: LabeledExample): string => ranks.get(e.group) as string;
    const sorted = [...list].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : a.line - b.line));
    out.push(...sorted.slice(0, SOURCE_CAP));
  }
  return out;
}

export function fit(all: readonly LabeledExample[], tokens: boolean, l2: number): { model: LinearModel; priors: Priors } {
  const rows = capped(all);
  const priors = priorTable(rows);
  const weights = sourceWeights(rows);
  const xs = rows.map((e, i) => ({ ...vectorOf(e, priors, tokens, true), weight: weights[i] as number }));
  return { model: trainLogistic(xs, { ...HYPER, l2, signs: signsOf(rows) }), priors };
}

/** Scores of each source's examples by a model trained on the other sources. */
function outOfSource(rows: readonly LabeledExample[], tokens: boolean, l2: number): { scores: number[]; aucs: number[] } {
  const scores = new Array<number>(rows.length).fill(0);
  const aucs: number[] = [];
  for (const source of [...new Set(rows.map((e) => e.source))].sort()) {
    const { model, priors } = fit(
      rows.filter((e) => e.source !== source),
      tokens,
      l2,
    );
    const held: { p: number; y: 0 | 1 }[] = [];
    rows.forEach((e, i) => {
      if (e.source !== source) return;
      scores[i] = linearScore(model, vectorOf(e, priors, tokens, false).x);
      held.push({ p: scores[i] as number, y: e.label });
    });
    if (held.some((h) => h.y === 0) && held.some((h) => h.y === 1)) aucs.push(rocAuc(held));
  }
  return { scores, aucs };
}

/** The highest threshold on calibrated p(TRUE_POSITIVE) that dismisses at most `budget` of the true positives. */
export function thresholdFor(calibrated: readonly { p: number; y: 0 | 1 }[], budget: number): number {
  const tps = calibrated
    .filter((r) => r.y === 1)
    .map((r) => r.p)
    .sort((a, b) => a - b);
  const k = Math.floor(budget * tps.length);
  return Math.min(0.5, tps[k] ?? 0.5);
}

export function trainArtifact(examples: readonly LabeledExample[]): ReviewModelArtifact {
  const all = examples.filter((e) => !HELD_OUT_SOURCES.has(e.source));
  // Selection, calibration and threshold on the same capped sample the models train on: one
  // large suite must not decide the calibration any more than the weights.
  const rows = capped(all);
  const labels = rows.map((e) => e.label);
  let best: { tokens: boolean; l2: number; auc: number; scores: number[]; aucs: number[] } | null = null;
  for (const { tokens } of CONFIGS) {
    for (const l2 of L2_GRID) {
      const { scores, aucs } = outOfSource(rows, tokens, l2);
      const auc = aucs.reduce((s, a) => s + a, 0) / Math.max(1, aucs.length);
      log(`tokens ${tokens} l2 ${l2}: mean out-of-source ROC AUC ${auc.toFixed(4)} (${aucs.map((a) => a.toFixed(2)).join(" ")})`);
      if (!best || auc > best.auc + 1e-9) best = { tokens, l2, auc, scores, aucs };
    }
  }
  const chosen = best as NonNullable<typeof best>;
  const calibration = fitPlatt(chosen.scores, labels);
  const calibrated = chosen.scores.map((s, i) => ({ p: sigmoid(calibration.a * s + calibration.b), y: labels[i] as 0 | 1 }));
  const threshold = Math.round(thresholdFor(calibrated, TP_LOSS_BUDGET) * 10_000) / 10_000;
  const { model, priors } = fit(all, chosen.tokens, chosen.l2);
  const weights = encodeWeights(model.weights);
  const dataDigest = createHash("sha256");
  for (const e of rows)
    dataDigest.update(`${e.group}\0${e.label}\0${e.cwe_id}\0${e.file}\0${e.code}\0${JSON.stringify(e.facts ?? null)}\n`);
  const version = `review-lr-${createHash("sha256").update(weights).update(JSON.stringify({ calibration, threshold, priors })).digest("hex").slice(0, 10)}`;
  const fps = calibrated.filter((r) => r.y === 0);
  const tps = calibrated.filter((r) => r.y === 1);
  return {
    kind: "ax-review-logistic",
    version,
    featureScheme: FEATURE_SCHEME,
    dims: HYPER.dims,
    bias: model.bias,
    weights,
    calibration,
    threshold,
    rulePriors: priors,
    tokens: chosen.tokens,
    training: {
      dataSha256: dataDigest.digest("hex"),
      hyperParameters: { ...HYPER, l2: chosen.l2, l2Grid: L2_GRID, tokens: chosen.tokens, configs: CONFIGS, tpLossBudget: TP_LOSS_BUDGET },
      train: { examples: all.length, sample: rows.length, truePositives: tps.length, falsePositives: fps.length },
      outOfSourceAuc: chosen.auc,
      outOfSource: {
        fpCaught: fps.filter((r) => r.p < threshold).length / Math.max(1, fps.length),
        tpDismissed: tps.filter((r) => r.p < threshold).length / Math.max(1, tps.length),
      },
      sources: [...new Set(all.map((e) => e.source))].sort(),
      heldOut: [...HELD_OUT_SOURCES],
    },
  };
}

export async function allExamples(examplesPath: string, feedbackPath?: string): Promise<LabeledExample[]> {
  const examples = await loadExamples(examplesPath);
  if (feedbackPath) examples.push(...(await loadExamples(feedbackPath)).map((e) => ({ ...e, source: "feedback" as const })));
  return examples;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const examples = await allExamples(resolve(arg("--examples") ?? DEFAULT_EXAMPLES), arg("--feedback"));
  log(`${examples.length} examples`);
  const started = performance.now();
  const artifact = trainArtifact(examples);
  const out = resolve(arg("--out") ?? DEFAULT_MODEL_PATH);
  await writeFile(out, `${JSON.stringify(artifact, null, 1)}\n`);
  log(
    `wrote ${artifact.version} (threshold ${artifact.threshold.toFixed(4)}) to ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

/**
 * `npm run ai:train` — trains the review model from the labeled examples and writes the
 * artifact (packages/ai/model/review-model.json). Deterministic: the same examples give
 * the same bytes (seeded shuffle, no timestamps), so a clean checkout reproduces the
 * shipped model.
 *
 *   node --import tsx training/review/train.ts [--examples FILE] [--feedback FILE.jsonl] [--out FILE]
 *
 * --feedback adds reviewers' votes on review answers (`ax admin export-feedback`), each a
 * labeled example of its own group (the request), weighted like any other example.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MODEL_PATH,
  FEATURE_SCHEME,
  atThreshold,
  encodeWeights,
  featurize,
  fitPlatt,
  linearScore,
  rocAuc,
  sigmoid,
  trainLogistic,
  type Example,
  type ReviewModelArtifact,
} from "@ax/ai/review";
import { DEFAULT_EXAMPLES } from "./derive";
import { loadExamples, splitOf, type LabeledExample } from "./examples";

export const HYPER = { dims: 1 << 17, epochs: 6, learningRate: 0.2, seed: 20261122 };
const L2_GRID = [1e-6, 1e-5, 1e-4, 1e-3];
/**
 * The operating threshold: the more probable class. The probabilities are calibrated, so
 * p(TRUE_POSITIVE) < 0.5 means a false positive is the likelier truth, and the confidence
 * returned (that of the chosen class) is never below 0.5.
 */
export const THRESHOLD = 0.5;
const FOLDS = 5;

function log(message: string): void {
  process.stderr.write(`[ai:train] ${message}\n`);
}

export function toExample(e: LabeledExample, dims: number): Example {
  return { x: featurize({ code: e.code, cwe_id: e.cwe_id, file: e.file }, dims), y: e.label };
}

export async function allExamples(examplesPath: string, feedbackPath?: string): Promise<LabeledExample[]> {
  const examples = await loadExamples(examplesPath);
  if (feedbackPath) examples.push(...(await loadExamples(feedbackPath)).map((e) => ({ ...e, source: "feedback" as const })));
  return examples;
}

/** Fold (0…FOLDS-1) of a group inside the training side of the split. */
function foldOf(group: string): number {
  return parseInt(createHash("sha256").update(`ax-review-fold-v1:${group}`).digest("hex").slice(0, 8), 16) % FOLDS;
}

/**
 * Out-of-fold scores: each example scored by a model that never saw its group. Used to
 * choose the regularization, fit the calibration and choose the threshold on all of the
 * training side rather than on one small slice of it.
 */
function outOfFold(rows: readonly LabeledExample[], xs: readonly Example[], l2: number): number[] {
  const scores = new Array<number>(rows.length).fill(0);
  for (let k = 0; k < FOLDS; k++) {
    const inFold = rows.map((r) => foldOf(r.group) === k);
    const m = trainLogistic(
      xs.filter((_, i) => !inFold[i]),
      { ...HYPER, l2 },
    );
    xs.forEach((x, i) => {
      if (inFold[i]) scores[i] = linearScore(m, x.x);
    });
  }
  return scores;
}

export function trainArtifact(examples: readonly LabeledExample[]): ReviewModelArtifact {
  // The test split is never touched here: ai:eval reports on it.
  const rows = examples.filter((e) => splitOf(e.group) !== "test");
  const xs = rows.map((e) => toExample(e, HYPER.dims));
  const labels = xs.map((x) => x.y);
  let best: { l2: number; auc: number; scores: number[] } | null = null;
  for (const l2 of L2_GRID) {
    const scores = outOfFold(rows, xs, l2);
    const auc = rocAuc(scores.map((s, i) => ({ p: s, y: labels[i] as 0 | 1 })));
    log(`l2 ${l2}: out-of-fold ROC AUC ${auc.toFixed(4)}`);
    if (!best || auc > best.auc) best = { l2, auc, scores };
  }
  const { l2, scores } = best as { l2: number; scores: number[] };
  const calibration = fitPlatt(scores, labels);
  const calibrated = scores.map((s, i) => ({ p: sigmoid(calibration.a * s + calibration.b), y: labels[i] as 0 | 1 }));
  const threshold = THRESHOLD;
  const oof = atThreshold(calibrated, threshold);
  const model = trainLogistic(xs, { ...HYPER, l2 });
  const weights = encodeWeights(model.weights);
  const dataDigest = createHash("sha256");
  for (const e of examples) dataDigest.update(`${e.group}\0${e.label}\0${e.cwe_id}\0${e.file}\0${e.code}\n`);
  const digest = dataDigest.digest("hex");
  const version = `review-lr-${createHash("sha256").update(weights).update(JSON.stringify({ calibration, threshold })).digest("hex").slice(0, 10)}`;
  const count = (r: readonly LabeledExample[]) => ({
    examples: r.length,
    truePositives: r.filter((e) => e.label === 1).length,
    falsePositives: r.filter((e) => e.label === 0).length,
  });
  return {
    kind: "ax-review-logistic",
    version,
    featureScheme: FEATURE_SCHEME,
    dims: HYPER.dims,
    bias: model.bias,
    weights,
    calibration,
    threshold,
    training: {
      dataSha256: digest,
      hyperParameters: { ...HYPER, l2, l2Grid: L2_GRID, folds: FOLDS },
      train: count(rows),
      outOfFoldAuc: (best as { auc: number }).auc,
      outOfFold: { fpCaught: oof.fpCaught, tpDismissed: oof.tpDismissed },
      sources: [...new Set(examples.map((e) => e.source))].sort(),
    },
  };
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

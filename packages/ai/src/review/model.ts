/**
 * The review model at inference: hashed features → logistic score → calibrated probability
 * that the finding is a true positive. The artifact (packages/ai/model/review-model.json) is
 * written by `npm run ai:train`; it carries its own version, feature scheme, weights,
 * calibration and operating threshold, so a model and the code that reads it cannot
 * silently disagree.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FEATURE_SCHEME, featurize, type ReviewInput, type SparseVector } from "./features";

export const REVIEW_CLASSES = ["TRUE_POSITIVE", "FALSE_POSITIVE"] as const;
export type ReviewClass = (typeof REVIEW_CLASSES)[number];

export interface ReviewModelArtifact {
  kind: "ax-review-logistic";
  version: string;
  featureScheme: number;
  dims: number;
  bias: number;
  /** Float32 little-endian weights, base64. */
  weights: string;
  /** Platt scaling of the raw score: p = σ(a·score + b). */
  calibration: { a: number; b: number };
  /** p(TRUE_POSITIVE) below this → FALSE_POSITIVE. */
  threshold: number;
  /** What it was trained on, for the record (counts, data digest, hyper-parameters). */
  training: Record<string, unknown>;
}

export interface ReviewVerdict {
  class: ReviewClass;
  /** Calibrated probability of `class`, 0–1. */
  confidence: number;
  /** Calibrated probability that the finding is a true positive. */
  pTrue: number;
  model: string;
}

export const DEFAULT_MODEL_PATH = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "model", "review-model.json");

export class ReviewModel {
  private readonly w: Float32Array;

  constructor(readonly artifact: ReviewModelArtifact) {
    if (artifact.kind !== "ax-review-logistic") throw new Error(`unknown review model kind ${String(artifact.kind)}`);
    if (artifact.featureScheme !== FEATURE_SCHEME) {
      throw new Error(
        `review model ${artifact.version} uses feature scheme ${artifact.featureScheme}; this code computes scheme ${FEATURE_SCHEME}: run npm run ai:train`,
      );
    }
    const bytes = Buffer.from(artifact.weights, "base64");
    if (bytes.length !== artifact.dims * 4)
      throw new Error(`review model ${artifact.version}: ${bytes.length} weight bytes for ${artifact.dims} dims`);
    this.w = new Float32Array(artifact.dims);
    for (let i = 0; i < artifact.dims; i++) this.w[i] = bytes.readFloatLE(i * 4);
  }

  static load(path = DEFAULT_MODEL_PATH): ReviewModel {
    return new ReviewModel(JSON.parse(readFileSync(path, "utf8")) as ReviewModelArtifact);
  }

  get version(): string {
    return this.artifact.version;
  }

  /** The uncalibrated linear score. */
  score(x: SparseVector): number {
    let s = this.artifact.bias;
    for (const [i, v] of x) s += (this.w[i] ?? 0) * v;
    return s;
  }

  probability(input: ReviewInput): number {
    return calibrate(this.score(featurize(input, this.artifact.dims)), this.artifact.calibration);
  }

  review(input: ReviewInput): ReviewVerdict {
    const pTrue = this.probability(input);
    const cls: ReviewClass = pTrue >= this.artifact.threshold ? "TRUE_POSITIVE" : "FALSE_POSITIVE";
    return {
      class: cls,
      confidence: round(cls === "TRUE_POSITIVE" ? pTrue : 1 - pTrue),
      pTrue: round(pTrue),
      model: this.artifact.version,
    };
  }
}

export function calibrate(score: number, c: { a: number; b: number }): number {
  return sigmoid(c.a * score + c.b);
}

export function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

function round(p: number): number {
  return Math.round(p * 10_000) / 10_000;
}

let shared: ReviewModel | null = null;

/** The shipped model, loaded once per process. */
export function defaultReviewModel(): ReviewModel {
  shared ??= ReviewModel.load();
  return shared;
}

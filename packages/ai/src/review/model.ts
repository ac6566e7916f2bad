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
import { evidenceFeatures } from "./evidence";
import { FEATURE_SCHEME, cweNumber, family, featureIndex, featurize, type ReviewInput, type SparseVector } from "./features";

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
  /**
   * The rules' measured record on the training data: `language|analyzer:rule` (and
   * `language|family` as the fallback) → [true positives, false positives]. The model reads
   * it as one real-valued feature, the smoothed log-odds of the rule being right.
   */
  rulePriors?: Record<string, [number, number]>;
  /** Whether the code tokens are features (false: the evidence and the rule's record alone). */
  tokens?: boolean;
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
  /** The two or three pieces of evidence that weighed most toward `class`, in words. */
  reasons: string[];
}

/** One piece of evidence and how much it moved the score (positive: toward TRUE_POSITIVE). */
export interface Contribution {
  name: string;
  words: string;
  weight: number;
}

export const PRIOR_FEATURE = "prior:rule";
/** Pseudo-counts pulling a rule's record toward its fallback's rate. */
const PRIOR_STRENGTH = 4;

/** The rule's smoothed log-odds of being right, and the record it came from. */
export function rulePrior(
  priors: Readonly<Record<string, [number, number]>> | undefined,
  input: ReviewInput,
  /** Training only: the example's own label, taken out of the counts it is part of. */
  own?: 0 | 1,
): { value: number; key: string; tp: number; fp: number } | null {
  const ev = input.evidence;
  if (!priors || !ev) return null;
  const minus = (c: [number, number] | undefined): [number, number] | undefined =>
    c && own !== undefined ? [Math.max(0, c[0] - own), Math.max(0, c[1] - (1 - own))] : c;
  const fam = family(cweNumber(input.cwe_id));
  const base = minus(priors[`${ev.language}|${fam}`]) ?? minus(priors["*"]) ?? [1, 1];
  const rate = (base[0] + 1) / (base[0] + base[1] + 2);
  const record = minus(priors[`${ev.language}|${ev.rule}`]);
  const [tp, fp] = record ?? [0, 0];
  const p = (tp + PRIOR_STRENGTH * rate) / (tp + fp + PRIOR_STRENGTH);
  return { value: Math.log(p / (1 - p)), key: tp + fp > 0 ? ev.rule : `${ev.language} ${fam}`, tp, fp };
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

  /** The real-valued features the model adds to the hashed ones (the rule's record). */
  extra(input: ReviewInput): [string, number][] {
    const prior = rulePrior(this.artifact.rulePriors, input);
    return prior ? [[PRIOR_FEATURE, prior.value]] : [];
  }

  probability(input: ReviewInput): number {
    const x = featurize(input, this.artifact.dims, this.extra(input), { tokens: this.artifact.tokens ?? true });
    return calibrate(this.score(x), this.artifact.calibration);
  }

  /** How much each piece of named evidence moved the score, strongest first. */
  contributions(input: ReviewInput): Contribution[] {
    const out: Contribution[] = [];
    const dims = this.artifact.dims;
    const w = (name: string): number => this.w[featureIndex(name, dims)] ?? 0;
    const ev = input.evidence;
    if (ev) {
      const fam = family(cweNumber(input.cwe_id));
      for (const { name, words } of evidenceFeatures(ev)) out.push({ name, words, weight: w(name) + w(`${name}|${fam}`) });
    }
    const prior = rulePrior(this.artifact.rulePriors, input);
    if (prior) {
      const seen = prior.tp + prior.fp;
      const words =
        seen > 0
          ? `${prior.key} was right in ${prior.tp} of ${seen} labelled findings of the training data`
          : `findings like this (${prior.key}) are right ${Math.round(100 / (1 + Math.exp(-prior.value)))}% of the time in the training data`;
      out.push({ name: PRIOR_FEATURE, words, weight: w(PRIOR_FEATURE) * prior.value });
    }
    return out.sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight));
  }

  review(input: ReviewInput): ReviewVerdict {
    const pTrue = this.probability(input);
    const cls: ReviewClass = pTrue >= this.artifact.threshold ? "TRUE_POSITIVE" : "FALSE_POSITIVE";
    return {
      class: cls,
      confidence: round(cls === "TRUE_POSITIVE" ? pTrue : 1 - pTrue),
      pTrue: round(pTrue),
      model: this.artifact.version,
      reasons: reasonsFor(this.contributions(input), cls),
    };
  }
}

/** The strongest two or three contributions that pushed toward the class, in words. */
export function reasonsFor(contributions: readonly Contribution[], cls: ReviewClass): string[] {
  const sign = cls === "TRUE_POSITIVE" ? 1 : -1;
  const toward = contributions.filter((c) => c.weight * sign > 0.05);
  const words = [...new Set(toward.map((c) => c.words))].slice(0, 3);
  return words.length ? words : ["the code resembles findings of this kind in the training data"];
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

/**
 * Training of the review model: L2-regularized logistic regression on hashed features,
 * AdaGrad SGD with a seeded shuffle (the same data gives the same artifact), class weights
 * that balance true and false positives, then Platt scaling fitted on a separate
 * calibration split so that the probability means what it says.
 */
import type { SparseVector } from "./features";
import { sigmoid } from "./model";

export interface Example {
  x: SparseVector;
  /** 1 = true positive, 0 = false positive. */
  y: 0 | 1;
  weight?: number;
}

export interface TrainOptions {
  dims: number;
  epochs: number;
  learningRate: number;
  l2: number;
  seed: number;
  /**
   * Weights whose direction is known (index → +1 or −1): after each step a weight that
   * crossed zero is clipped back to it, so a piece of evidence can weigh less than
   * expected but never the wrong way (a projected gradient step).
   */
  signs?: ReadonlyMap<number, 1 | -1>;
}

export interface LinearModel {
  bias: number;
  weights: Float32Array;
}

/** Mulberry32: a tiny seeded PRNG, enough for shuffling. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function trainLogistic(examples: readonly Example[], opts: TrainOptions): LinearModel {
  const w = new Float64Array(opts.dims);
  const g2 = new Float64Array(opts.dims).fill(1e-8);
  let bias = 0;
  let gBias = 1e-8;
  const positives = examples.filter((e) => e.y === 1).length;
  const negatives = examples.length - positives;
  // Balance the classes: each contributes half of the loss.
  const classWeight = [examples.length / (2 * Math.max(1, negatives)), examples.length / (2 * Math.max(1, positives))];
  const order = examples.map((_, i) => i);
  const random = prng(opts.seed);
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (const k of order) {
      const ex = examples[k] as Example;
      let z = bias;
      for (const [i, v] of ex.x) z += (w[i] as number) * v;
      const weight = (classWeight[ex.y] as number) * (ex.weight ?? 1);
      const err = (sigmoid(z) - ex.y) * weight;
      gBias += err * err;
      bias -= (opts.learningRate / Math.sqrt(gBias)) * err;
      for (const [i, v] of ex.x) {
        const g = err * v + opts.l2 * (w[i] as number);
        g2[i] = (g2[i] as number) + g * g;
        w[i] = (w[i] as number) - (opts.learningRate / Math.sqrt(g2[i] as number)) * g;
        const sign = opts.signs?.get(i);
        if (sign !== undefined && (w[i] as number) * sign < 0) w[i] = 0;
      }
    }
  }
  return { bias, weights: Float32Array.from(w) };
}

export function linearScore(m: LinearModel, x: SparseVector): number {
  let s = m.bias;
  for (const [i, v] of x) s += (m.weights[i] ?? 0) * v;
  return s;
}

/**
 * Platt scaling: a, b minimizing log loss of σ(a·s + b) against the labels, by Newton's
 * method, with Platt's smoothed targets so that a separable calibration set cannot push
 * the probabilities to exactly 0 or 1.
 */
export function fitPlatt(scores: readonly number[], labels: readonly (0 | 1)[]): { a: number; b: number } {
  const pos = labels.filter((y) => y === 1).length;
  const neg = labels.length - pos;
  const hi = (pos + 1) / (pos + 2);
  const lo = 1 / (neg + 2);
  const t = labels.map((y) => (y === 1 ? hi : lo));
  let a = 1;
  let b = 0;
  for (let iter = 0; iter < 100; iter++) {
    let ga = 0;
    let gb = 0;
    let haa = 1e-9;
    let hab = 0;
    let hbb = 1e-9;
    for (let i = 0; i < scores.length; i++) {
      const s = scores[i] as number;
      const p = sigmoid(a * s + b);
      const d = p - (t[i] as number);
      const h = p * (1 - p);
      ga += d * s;
      gb += d;
      haa += h * s * s;
      hab += h * s;
      hbb += h;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a -= da;
    b -= db;
    if (Math.abs(da) < 1e-9 && Math.abs(db) < 1e-9) break;
  }
  return { a, b };
}

export function encodeWeights(w: Float32Array): string {
  const buf = Buffer.alloc(w.length * 4);
  for (let i = 0; i < w.length; i++) buf.writeFloatLE(w[i] as number, i * 4);
  return buf.toString("base64");
}

/** Evaluation figures of a binary classifier with calibrated probabilities. */

export interface Scored {
  /** Calibrated probability of the positive class (TRUE_POSITIVE). */
  p: number;
  y: 0 | 1;
}

/** ROC AUC by the rank-sum (Mann–Whitney) formula, ties counted half. NaN with one class only. */
export function rocAuc(items: readonly Scored[]): number {
  const sorted = [...items].sort((a, b) => a.p - b.p);
  let rankSum = 0;
  let pos = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && (sorted[j] as Scored).p === (sorted[i] as Scored).p) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) {
      if ((sorted[k] as Scored).y === 1) {
        rankSum += avgRank;
        pos++;
      }
    }
    i = j;
  }
  const neg = sorted.length - pos;
  if (pos === 0 || neg === 0) return Number.NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

export interface ReliabilityBin {
  from: number;
  to: number;
  count: number;
  meanConfidence: number;
  accuracy: number;
}

/**
 * Expected calibration error of the predicted class's confidence (the number the API
 * returns), over `bins` equal-width bins of confidence in [0.5, 1] — or, for a threshold
 * other than 0.5, wherever the confidences fall.
 */
export function expectedCalibrationError(items: readonly Scored[], threshold: number, bins = 10): { ece: number; bins: ReliabilityBin[] } {
  const rows = items.map((it) => {
    const predicted = it.p >= threshold ? 1 : 0;
    const confidence = predicted === 1 ? it.p : 1 - it.p;
    return { confidence, correct: predicted === it.y ? 1 : 0 };
  });
  const out: ReliabilityBin[] = [];
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    const from = b / bins;
    const to = (b + 1) / bins;
    const inBin = rows.filter((r) => r.confidence >= from && (b === bins - 1 ? r.confidence <= to : r.confidence < to));
    if (inBin.length === 0) continue;
    const meanConfidence = inBin.reduce((s, r) => s + r.confidence, 0) / inBin.length;
    const accuracy = inBin.reduce((s, r) => s + r.correct, 0) / inBin.length;
    ece += (inBin.length / rows.length) * Math.abs(meanConfidence - accuracy);
    out.push({ from, to, count: inBin.length, meanConfidence, accuracy });
  }
  return { ece, bins: out };
}

/** Calibration of p(TRUE_POSITIVE) itself over [0, 1] (the reliability diagram's usual form). */
export function probabilityCalibrationError(items: readonly Scored[], bins = 10): number {
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    const inBin = items.filter((it) => it.p >= b / bins && (b === bins - 1 ? it.p <= 1 : it.p < (b + 1) / bins));
    if (inBin.length === 0) continue;
    const mean = inBin.reduce((s, it) => s + it.p, 0) / inBin.length;
    const rate = inBin.reduce((s, it) => s + it.y, 0) / inBin.length;
    ece += (inBin.length / items.length) * Math.abs(mean - rate);
  }
  return ece;
}

export interface ClassFigures {
  support: number;
  precision: number;
  recall: number;
}

export interface ThresholdFigures {
  threshold: number;
  /** Share of actual false positives labelled FALSE_POSITIVE. */
  fpCaught: number;
  /** Share of actual true positives labelled FALSE_POSITIVE. */
  tpDismissed: number;
  truePositive: ClassFigures;
  falsePositive: ClassFigures;
  accuracy: number;
}

export function atThreshold(items: readonly Scored[], threshold: number): ThresholdFigures {
  let tp = 0; // TRUE_POSITIVE predicted, actual 1
  let fn = 0; // FALSE_POSITIVE predicted, actual 1
  let fp = 0; // TRUE_POSITIVE predicted, actual 0
  let tn = 0; // FALSE_POSITIVE predicted, actual 0
  for (const it of items) {
    const predicted = it.p >= threshold ? 1 : 0;
    if (it.y === 1 && predicted === 1) tp++;
    else if (it.y === 1) fn++;
    else if (predicted === 1) fp++;
    else tn++;
  }
  const div = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN);
  return {
    threshold,
    fpCaught: div(tn, tn + fp),
    tpDismissed: div(fn, tp + fn),
    truePositive: { support: tp + fn, precision: div(tp, tp + fp), recall: div(tp, tp + fn) },
    falsePositive: { support: tn + fp, precision: div(tn, tn + fn), recall: div(tn, tn + fp) },
    accuracy: div(tp + tn, items.length),
  };
}

/** Markdown of the review model's evaluation (the generated block of docs/ai.md). */
import type { ThresholdFigures } from "@ax/ai/review";

export interface GroupFigures {
  examples: number;
  truePositives: number;
  falsePositives: number;
  auc: number;
  fpCaught: number;
  tpDismissed: number;
  ece: number;
  truePositive: { precision: number; recall: number };
  falsePositive: { precision: number; recall: number };
}

export interface Evaluation {
  model: string;
  training: Record<string, unknown>;
  threshold: number;
  split: { train: number; test: number; testGroups: number };
  overall: GroupFigures;
  atThreshold: ThresholdFigures;
  probabilityEce: number;
  reliability: { from: number; to: number; count: number; meanConfidence: number; accuracy: number }[];
  tradeOff: { threshold: number; fpCaught: number; tpDismissed: number }[];
  ambiguity: { falsePositives: number; identicalToATruePositive: number };
  bySource: Record<string, GroupFigures>;
  byCwe: Record<string, GroupFigures>;
  latencyMs: { p50: number; p95: number; p99: number; samples: number };
  targets: { auc: number; fpCaught: number; tpDismissed: number; ece: number; p50Ms: number };
  node: string;
}

const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "–");
const num = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : "–");
const verdict = (ok: boolean): string => (ok ? "**met**" : "**not met**");

function groupTable(title: string, rows: Record<string, GroupFigures>, minExamples = 0): string[] {
  const out = [
    `| ${title} | Examples | TP / FP | ROC AUC | TRUE_POSITIVE precision / recall | FALSE_POSITIVE precision / recall (FP caught) | TP dismissed | ECE |`,
    "|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const [k, g] of Object.entries(rows)) {
    if (g.examples < minExamples) continue;
    out.push(
      `| ${k} | ${g.examples} | ${g.truePositives} / ${g.falsePositives} | ${num(g.auc)} | ` +
        `${pct(g.truePositive.precision)} / ${pct(g.truePositive.recall)} | ${pct(g.falsePositive.precision)} / ` +
        `${pct(g.falsePositive.recall)} | ${pct(g.tpDismissed)} | ${num(g.ece)} |`,
    );
  }
  return out;
}

export function renderEvaluation(ev: Evaluation): string {
  const o = ev.overall;
  const t = ev.targets;
  const at = ev.atThreshold;
  const hp = (ev.training.hyperParameters ?? {}) as Record<string, unknown>;
  const small = Object.values(ev.byCwe).filter((g) => g.examples < 20).length;
  const lines = [
    `Model **${ev.model}**, evaluated on the test split: ${ev.split.test} findings from ${ev.split.testGroups} test case families the ` +
      `model and its calibration never saw (the training side — training, out-of-fold calibration and ` +
      `threshold — has ${ev.split.train}). Node ${ev.node}.`,
    "",
    "| Target (issue 4) | Required | Measured | |",
    "|---|--:|--:|---|",
    `| ROC AUC | ≥ ${t.auc} | ${num(o.auc)} | ${verdict(o.auc >= t.auc)} |`,
    `| False positives labelled FALSE_POSITIVE at the operating threshold | ≥ ${pct(t.fpCaught)} | ${pct(o.fpCaught)} | ${verdict(o.fpCaught >= t.fpCaught)} |`,
    `| True positives labelled FALSE_POSITIVE | ≤ ${pct(t.tpDismissed)} | ${pct(o.tpDismissed)} | ${verdict(o.tpDismissed <= t.tpDismissed)} |`,
    `| Expected calibration error (confidence of the returned class, 10 bins) | ≤ ${t.ece} | ${num(o.ece)} | ${verdict(o.ece <= t.ece)} |`,
    `| Inference p50 (features + score + calibration, in process) | < ${t.p50Ms} ms | ${num(ev.latencyMs.p50)} ms | ${verdict(ev.latencyMs.p50 < t.p50Ms)} |`,
    "",
    `Operating threshold: p(TRUE_POSITIVE) < ${num(ev.threshold, 4)} → FALSE_POSITIVE, i.e. the more ` +
      `probable class under the calibrated probability (how this rule was chosen is told above, under "How ` +
      `these figures were reached"). On the training side's out-of-fold predictions (` +
      `${String(hp.folds ?? "?")} folds by test case family) this labels ` +
      `${pct(Number((ev.training.outOfFold as { fpCaught?: number } | undefined)?.fpCaught))} of false ` +
      `positives FALSE_POSITIVE and ` +
      `${pct(Number((ev.training.outOfFold as { tpDismissed?: number } | undefined)?.tpDismissed))} of true ` +
      `positives. Latency over ${ev.latencyMs.samples} reviews: p50 ${num(ev.latencyMs.p50)} ms, p95 ` +
      `${num(ev.latencyMs.p95)} ms, p99 ${num(ev.latencyMs.p99)} ms. Calibration error of ` +
      `p(TRUE_POSITIVE) itself over [0, 1]: ${num(ev.probabilityEce)}.`,
    "",
    `What no model of this input can separate: ${ev.ambiguity.identicalToATruePositive} of the ${ev.ambiguity.falsePositives} false positives in the ` +
      `data (${pct(ev.ambiguity.identicalToATruePositive / Math.max(1, ev.ambiguity.falsePositives))}) have exactly the same ` +
      `review input, after masking, as a true positive (typically a sink whose callers could not be found ` +
      `by name in the same directory).`,
    "",
    "Trade-off on the test split:",
    "",
    "| Threshold | FP labelled FALSE_POSITIVE | TP labelled FALSE_POSITIVE |",
    "|--:|--:|--:|",
    ...ev.tradeOff.map(
      (r) => `| ${num(r.threshold, 4)}${r.threshold === ev.threshold ? " (operating)" : ""} | ${pct(r.fpCaught)} | ${pct(r.tpDismissed)} |`,
    ),
    "",
    "Per class at the operating threshold:",
    "",
    "| Class | Support | Precision | Recall |",
    "|---|--:|--:|--:|",
    `| TRUE_POSITIVE | ${at.truePositive.support} | ${pct(at.truePositive.precision)} | ${pct(at.truePositive.recall)} |`,
    `| FALSE_POSITIVE | ${at.falsePositive.support} | ${pct(at.falsePositive.precision)} | ${pct(at.falsePositive.recall)} |`,
    "",
    "Reliability (confidence of the returned class):",
    "",
    "| Confidence | Findings | Mean confidence | Accuracy |",
    "|---|--:|--:|--:|",
    ...ev.reliability.map(
      (b) => `| ${b.from.toFixed(1)}–${b.to.toFixed(1)} | ${b.count} | ${num(b.meanConfidence)} | ${num(b.accuracy)} |`,
    ),
    "",
    "Per source:",
    "",
    ...groupTable("Source", ev.bySource),
    "",
    `Per CWE (CWE of the finding; AUC is undefined where the test split has one class only` +
      `${small > 0 ? `; ${small} CWEs with fewer than 20 test findings are listed too, read them with care` : ""}):`,
    "",
    ...groupTable("CWE", ev.byCwe),
    "",
    `Training side: ${JSON.stringify(ev.training.train)}; out-of-fold ROC AUC ` +
      `${num(Number(ev.training.outOfFoldAuc))}; hyper-parameters ${JSON.stringify(hp)}; data sha256 \`` +
      `${String(ev.training.dataSha256 ?? "").slice(0, 16)}…\`.`,
  ];
  return lines.join("\n");
}

/** Markdown of the review model's leave-one-source-out evaluation (the generated block of docs/ai.md). */

export interface SourceFigures {
  examples: number;
  truePositives: number;
  falsePositives: number;
  auc: number;
  /** At the model's operating threshold. */
  fpCaught: number;
  tpDismissed: number;
  /** At the best threshold losing at most 5% of true positives, chosen on this source (an oracle's figure). */
  fpCaughtAt5: number;
  ece: number;
}

export interface LosoSource extends SourceFigures {
  source: string;
  /** Never trained on by any model (the detection benchmark's held-out source). */
  heldOutOfDevelopment: boolean;
  duplicatesDropped: number;
  threshold: number;
  chosen: { tokens: boolean; l2: number };
  byLanguage: Record<string, SourceFigures>;
  /** Per-organization learning, replayed: FP caught at ≤ 5% TP lost (oracle threshold) and at the operating threshold, before and after. */
  replay?: {
    triaged: number;
    before: number;
    after: number;
    atThreshold: { before: { fpCaught: number; tpLost: number }; after: { fpCaught: number; tpLost: number } };
  };
}

export interface LosoEvaluation {
  model: string;
  training: Record<string, unknown>;
  threshold: number;
  sources: LosoSource[];
  latencyMs: { p50: number; p95: number; samples: number };
  targets: { auc: number; minLabels: number; fpCaught: number; tpDismissed: number; ece: number; p50Ms: number };
  pairs?: { total: number; right: number; rows: { name: string; expected: string; got: string; pTrue: number; reasons: string[] }[] };
  node: string;
}

const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "–");
const num = (x: number, d = 3): string => (Number.isFinite(x) ? x.toFixed(d) : "–");
const ok = (b: boolean): string => (b ? "met" : "**not met**");

function sourceRow(name: string, f: SourceFigures, t: LosoEvaluation["targets"], extra = ""): string {
  const big = f.examples >= t.minLabels && f.truePositives > 0 && f.falsePositives > 0;
  const aucVerdict = big ? ` (${ok(f.auc >= t.auc)})` : "";
  return (
    `| ${name}${extra} | ${f.examples} | ${f.truePositives} / ${f.falsePositives} | ${num(f.auc)}${aucVerdict} | ` +
    `${pct(f.fpCaught)} | ${pct(f.tpDismissed)} | ${pct(f.fpCaughtAt5)} | ${num(f.ece)} |`
  );
}

export function renderLoso(ev: LosoEvaluation): string {
  const t = ev.targets;
  const header = [
    "| Held-out source | Examples | TP / FP | ROC AUC | FP labelled FALSE_POSITIVE | TP labelled FALSE_POSITIVE | FP caught at ≤ 5% TP lost (oracle threshold) | ECE |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
  ];
  const rows: string[] = [];
  for (const s of ev.sources) {
    rows.push(sourceRow(`**${s.source}**`, s, t, s.heldOutOfDevelopment ? " (never trained on)" : ""));
    const langs = Object.entries(s.byLanguage);
    if (langs.length > 1) for (const [lang, f] of langs) rows.push(sourceRow(`  ${s.source} · ${lang}`, f, t));
  }
  const big = ev.sources.filter((s) => s.examples >= t.minLabels && s.truePositives > 0 && s.falsePositives > 0);
  const lines = [
    `Shipped model **${ev.model}** (trained on every source but find-sec-bugs; operating threshold: p(TRUE_POSITIVE) < ` +
      `${num(ev.threshold, 4)} → FALSE_POSITIVE). Each row below is a different model, trained by the same procedure ` +
      `without that source; test examples whose normalized code occurs in its training sources are dropped. Node ${ev.node}.`,
    "",
    ...header,
    ...rows,
    "",
    `Sources with ≥ ${t.minLabels} examples and both classes: ${big.length}; ROC AUC ≥ ${t.auc} on ` +
      `${big.filter((s) => s.auc >= t.auc).length} of them. ≥ ${pct(t.fpCaught)} of false positives caught with ≤ ` +
      `${pct(t.tpDismissed)} of true positives lost, at the operating threshold, on ` +
      `${big.filter((s) => s.fpCaught >= t.fpCaught && s.tpDismissed <= t.tpDismissed).length} of them. ECE ≤ ${t.ece} on ` +
      `${big.filter((s) => s.ece <= t.ece).length} of them.`,
    "",
    `Inference p50 ${num(ev.latencyMs.p50)} ms, p95 ${num(ev.latencyMs.p95)} ms over ${ev.latencyMs.samples} reviews ` +
      `(features, score, calibration and reasons, in process, one core; target ≤ ${t.p50Ms} ms: ${ok(ev.latencyMs.p50 <= t.p50Ms)}).`,
  ];
  const replay = ev.sources.filter((s) => s.replay);
  if (replay.length) {
    lines.push(
      "",
      "Replay of per-organization learning (a seeded 10% of each source triaged as a user would; figures on the other 90%, at the operating threshold):",
      "",
      "| Source | Triaged | FP caught at ≤ 5% TP lost, before → after | At the operating threshold: FP caught before → after | TP lost before → after |",
      "|---|--:|--:|--:|--:|",
      ...replay.map((s) => {
        const r = s.replay as NonNullable<LosoSource["replay"]>;
        const a = r.atThreshold;
        return (
          `| ${s.source} | ${r.triaged} | ${pct(r.before)} → ${pct(r.after)} | ${pct(a.before.fpCaught)} → ${pct(a.after.fpCaught)} | ` +
          `${pct(a.before.tpLost)} → ${pct(a.after.tpLost)} |`
        );
      }),
    );
  }
  if (ev.pairs) {
    lines.push(
      "",
      `Parameterized vs concatenated queries of our own (Java, Python, JavaScript): ${ev.pairs.right} of ${ev.pairs.total} get the right class.`,
      "",
      "| Pair | Expected | Got | p(TRUE_POSITIVE) | Reasons |",
      "|---|---|---|--:|---|",
      ...ev.pairs.rows.map((r) => `| ${r.name} | ${r.expected} | ${r.got} | ${num(r.pTrue)} | ${r.reasons.join("; ")} |`),
    );
  }
  lines.push("", `Training: ${JSON.stringify(ev.training.train)}; hyper-parameters ${JSON.stringify(ev.training.hyperParameters)}.`);
  return lines.join("\n");
}

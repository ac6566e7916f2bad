/**
 * `npm run ai:eval` — evaluates the shipped review model on the held-out test split (test
 * case families the model and its calibration never saw) and writes the figures between
 * the markers of docs/ai.md, and all of them to docs/ai-review-eval.json.
 *
 *   node --import tsx training/review/eval.ts [--examples FILE] [--model FILE] [--doc FILE]
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_MODEL_PATH,
  ReviewModel,
  atThreshold,
  tokens,
  expectedCalibrationError,
  probabilityCalibrationError,
  rocAuc,
  type Scored,
} from "@ax/ai/review";
import { DEFAULT_EXAMPLES } from "./derive";
import { loadExamples, splitOf, type LabeledExample } from "./examples";
import { renderEvaluation, type Evaluation, type GroupFigures } from "./report";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const TARGETS = { auc: 0.85, fpCaught: 0.6, tpDismissed: 0.05, ece: 0.05, p50Ms: 5 };
const START = "<!-- ai:eval:start -->";
const END = "<!-- ai:eval:end -->";

function figures(rows: readonly Scored[], threshold: number): GroupFigures {
  const at = atThreshold(rows, threshold);
  return {
    examples: rows.length,
    truePositives: rows.filter((r) => r.y === 1).length,
    falsePositives: rows.filter((r) => r.y === 0).length,
    auc: rocAuc(rows),
    fpCaught: at.fpCaught,
    tpDismissed: at.tpDismissed,
    ece: expectedCalibrationError(rows, threshold).ece,
    truePositive: { precision: at.truePositive.precision, recall: at.truePositive.recall },
    falsePositive: { precision: at.falsePositive.precision, recall: at.falsePositive.recall },
  };
}

/**
 * How many false positives have exactly the same (masked) code, CWE and all as some true
 * positive: no model that sees only that code can tell them apart.
 */
function ambiguity(examples: readonly LabeledExample[]): { falsePositives: number; identicalToATruePositive: number } {
  const key = (e: LabeledExample) => `${e.cwe_id}|${tokens(e.code, e.file).join(" ")}`;
  const positives = new Set(examples.filter((e) => e.label === 1).map(key));
  const negatives = examples.filter((e) => e.label === 0);
  return { falsePositives: negatives.length, identicalToATruePositive: negatives.filter((e) => positives.has(key(e))).length };
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function evaluate(model: ReviewModel, examples: readonly LabeledExample[]): Evaluation {
  const test = examples.filter((e) => splitOf(e.group) === "test");
  const threshold = model.artifact.threshold;
  const scored = test.map((e) => ({ e, p: model.probability({ code: e.code, cwe_id: e.cwe_id, file: e.file }) }));
  const rows: Scored[] = scored.map(({ e, p }) => ({ p, y: e.label }));
  const by = (key: (e: LabeledExample) => string): Record<string, GroupFigures> => {
    const groups = new Map<string, Scored[]>();
    for (const { e, p } of scored) groups.set(key(e), [...(groups.get(key(e)) ?? []), { p, y: e.label }]);
    return Object.fromEntries(
      [...groups].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })).map(([k, r]) => [k, figures(r, threshold)]),
    );
  };
  // Latency of one review as the API runs it (features + score + calibration), warm.
  const timings: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const { e } of scored.slice(0, 2000)) {
      const t0 = performance.now();
      model.review({ code: e.code, cwe_id: e.cwe_id, file: e.file });
      timings.push(performance.now() - t0);
    }
  }
  timings.sort((a, b) => a - b);
  const calibration = expectedCalibrationError(rows, threshold);
  return {
    model: model.version,
    training: model.artifact.training,
    threshold,
    split: {
      train: examples.filter((e) => splitOf(e.group) !== "test").length,
      test: test.length,
      testGroups: new Set(test.map((e) => e.group)).size,
    },
    overall: figures(rows, threshold),
    atThreshold: atThreshold(rows, threshold),
    probabilityEce: probabilityCalibrationError(rows),
    reliability: calibration.bins,
    tradeOff: [...new Set([0.3, 0.4, 0.45, 0.5, threshold, 0.55, 0.6, 0.7])]
      .sort((a, b) => a - b)
      .map((t) => {
        const at = atThreshold(rows, t);
        return { threshold: t, fpCaught: at.fpCaught, tpDismissed: at.tpDismissed };
      }),
    ambiguity: ambiguity(examples),
    bySource: by((e) => e.source),
    byCwe: by((e) => e.cwe_id),
    latencyMs: { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95), p99: percentile(timings, 0.99), samples: timings.length },
    targets: TARGETS,
    node: process.version,
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const model = ReviewModel.load(resolve(arg("--model") ?? DEFAULT_MODEL_PATH));
  const examples = await loadExamples(resolve(arg("--examples") ?? DEFAULT_EXAMPLES));
  const evaluation = evaluate(model, examples);
  const docPath = resolve(arg("--doc") ?? join(repoRoot, "docs/ai.md"));
  const doc = await readFile(docPath, "utf8").catch(() => `# AI\n\n${START}\n${END}\n`);
  const s = doc.indexOf(START);
  const e = doc.indexOf(END);
  if (s < 0 || e < s) throw new Error(`${docPath} has no ${START} … ${END} block`);
  const block = `${START}\n<!-- Generated by npm run ai:eval. Do not edit by hand. -->\n\n${renderEvaluation(evaluation)}\n${END}`;
  await writeFile(docPath, doc.slice(0, s) + block + doc.slice(e + END.length));
  await writeFile(join(dirname(docPath), "ai-review-eval.json"), `${JSON.stringify(evaluation, null, 1)}\n`);
  const o = evaluation.overall;
  process.stderr.write(
    `[ai:eval] ${model.version}: test ROC AUC ${o.auc.toFixed(3)}, FP caught ` +
      `${(o.fpCaught * 100).toFixed(1)}%, TP dismissed ${(o.tpDismissed * 100).toFixed(1)}%, ECE ` +
      `${o.ece.toFixed(3)}, p50 ${evaluation.latencyMs.p50.toFixed(3)} ms\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

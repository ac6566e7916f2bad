/**
 * `npm run ai:eval` — the review model's figures on code it never saw: leave-one-source-out.
 * For each source (Juliet Java, Juliet C, CASTLE, each peer-labelled source, our own
 * applications and handler twins), a model is trained by exactly the shipped procedure
 * (train.ts: configuration, regularization, calibration and threshold all chosen out of
 * source) on the other sources, and scored on this one — minus its examples whose
 * normalized code also occurs in the training sources. find-sec-bugs is never trained on;
 * it is only ever a test source. The figures go between the markers of docs/ai.md and, in
 * full, to docs/ai-review-eval.json.
 *
 *   node --import tsx training/review/eval.ts [--examples FILE] [--doc FILE] [--sources a,b]
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ReviewModel, atThreshold, evidenceOf, expectedCalibrationError, rocAuc, type Scored } from "@ax/ai/review";
import { snippetDataflowFacts } from "@ax/scanner";
import { QUERY_PAIRS } from "../../packages/api-server/src/test-fixtures/query-pairs";
import { replay, replaySummary } from "./replay";
import { DEFAULT_EXAMPLES } from "./derive";
import { dedupKey } from "./strip";
import { loadExamples, type LabeledExample } from "./examples";
import { renderLoso, type LosoEvaluation, type LosoSource, type SourceFigures } from "./report";
import { HELD_OUT_SOURCES, inputOf, trainArtifact } from "./train";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const TARGETS = { auc: 0.8, minLabels: 100, fpCaught: 0.5, tpDismissed: 0.05, ece: 0.05, p50Ms: 5 };
const START = "<!-- ai:eval:start -->";
const END = "<!-- ai:eval:end -->";

function log(message: string): void {
  process.stderr.write(`[ai:eval] ${message}\n`);
}

/** The share of false positives caught at the best threshold that loses at most `budget` of the true positives (an oracle's choice). */
export function fpCaughtAtBudget(rows: readonly Scored[], budget: number): number {
  const tps = rows
    .filter((r) => r.y === 1)
    .map((r) => r.p)
    .sort((a, b) => a - b);
  const fps = rows.filter((r) => r.y === 0);
  if (!fps.length || !tps.length) return Number.NaN;
  const allowed = Math.floor(budget * tps.length);
  const cut = tps[allowed] ?? Number.POSITIVE_INFINITY;
  return fps.filter((r) => r.p < cut).length / fps.length;
}

export function figures(rows: readonly Scored[], threshold: number): SourceFigures {
  const at = atThreshold(rows, threshold);
  return {
    examples: rows.length,
    truePositives: rows.filter((r) => r.y === 1).length,
    falsePositives: rows.filter((r) => r.y === 0).length,
    auc: rocAuc(rows),
    fpCaught: at.fpCaught,
    tpDismissed: at.tpDismissed,
    fpCaughtAt5: fpCaughtAtBudget(rows, 0.05),
    ece: expectedCalibrationError(rows, threshold).ece,
  };
}

/** Scores of one held-out source by a model trained on every other (trainable) source. */
export function holdOut(
  examples: readonly LabeledExample[],
  source: string,
): { model: ReviewModel; scored: { e: LabeledExample; p: number }[]; duplicates: number } {
  const train = examples.filter((e) => e.source !== source && !HELD_OUT_SOURCES.has(e.source));
  const model = new ReviewModel(trainArtifact(train));
  const seen = new Set(train.map(dedupKey));
  // Refuted matches are never shown to a user, so never tested on (they only train).
  const test = examples.filter((e) => e.source === source && !e.refuted);
  const kept = test.filter((e) => !seen.has(dedupKey(e)));
  return { model, scored: kept.map((e) => ({ e, p: model.probability(inputOf(e)) })), duplicates: test.length - kept.length };
}

function byLanguage(scored: readonly { e: LabeledExample; p: number }[], threshold: number): Record<string, SourceFigures> {
  const groups = new Map<string, Scored[]>();
  for (const { e, p } of scored) {
    const lang = inputOf(e).evidence?.language ?? (/\.java$/.test(e.file) ? "java" : /\.(c|cpp|h)$/.test(e.file) ? "c" : "other");
    groups.set(lang, [...(groups.get(lang) ?? []), { p, y: e.label }]);
  }
  return Object.fromEntries([...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, r]) => [k, figures(r, threshold)]));
}

/** Per-organization learning replayed on the held-out source: 10% triaged, figures on the rest. */
function replayed(scored: readonly { e: LabeledExample; p: number }[], threshold: number): LosoSource["replay"] {
  const r = replay(
    scored.map((x) => x.e),
    scored.map((x) => x.p),
    0.1,
    20261127,
    threshold,
  );
  const summary = replaySummary(r, 0.05);
  const at = (pick: (i: { before: number; after: number }) => number) => {
    const fps = r.rest.filter((i) => i.label === 0);
    const tps = r.rest.filter((i) => i.label === 1);
    return {
      fpCaught: fps.filter((i) => pick(i) < threshold).length / Math.max(1, fps.length),
      tpLost: tps.filter((i) => pick(i) < threshold).length / Math.max(1, tps.length),
    };
  };
  return {
    triaged: r.triaged,
    before: summary.before,
    after: summary.after,
    atThreshold: { before: at((i) => i.before), after: at((i) => i.after) },
  };
}

/** Our parameterized vs concatenated query pairs, reviewed as the API reviews a bare snippet. */
function pairs(model: ReviewModel): NonNullable<LosoEvaluation["pairs"]> {
  const rows = QUERY_PAIRS.map((q) => {
    const facts = snippetDataflowFacts({ code: q.code, file: q.file, cwe_id: q.cwe_id, line: String(q.line) });
    const evidence = facts ? evidenceOf(facts, q.code) : null;
    const v = model.review({ code: q.code, cwe_id: q.cwe_id, file: q.file, evidence });
    return { name: q.name, expected: q.vulnerable ? "TRUE_POSITIVE" : "FALSE_POSITIVE", got: v.class, pTrue: v.pTrue, reasons: v.reasons };
  });
  return { total: rows.length, right: rows.filter((r) => r.expected === r.got).length, rows };
}

function latency(model: ReviewModel, examples: readonly LabeledExample[]): { p50: number; p95: number; samples: number } {
  const timings: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const e of examples.slice(0, 1500)) {
      const t0 = performance.now();
      model.review(inputOf(e));
      timings.push(performance.now() - t0);
    }
  }
  timings.sort((a, b) => a - b);
  const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))] ?? Number.NaN;
  return { p50: at(0.5), p95: at(0.95), samples: timings.length };
}

export function evaluateLoso(examples: readonly LabeledExample[], only?: readonly string[]): LosoEvaluation {
  const sources = [...new Set(examples.filter((e) => !e.refuted).map((e) => e.source))]
    .filter((s) => s !== "feedback" && (!only || only.includes(s)))
    .sort();
  const out: LosoEvaluation["sources"] = [];
  for (const source of sources) {
    const started = performance.now();
    const { model, scored, duplicates } = holdOut(examples, source);
    const threshold = model.artifact.threshold;
    const rows = scored.map(({ e, p }) => ({ p, y: e.label }));
    const f = figures(rows, threshold);
    out.push({
      source,
      heldOutOfDevelopment: HELD_OUT_SOURCES.has(source),
      duplicatesDropped: duplicates,
      threshold,
      chosen: { tokens: model.artifact.tokens ?? true, l2: Number((model.artifact.training.hyperParameters as { l2?: number }).l2) },
      ...f,
      byLanguage: byLanguage(scored, threshold),
      replay: replayed(scored, threshold),
    });
    log(
      `${source}: ${f.examples} examples (${f.truePositives} TP / ${f.falsePositives} FP, ${duplicates} duplicates dropped), ` +
        `AUC ${f.auc.toFixed(3)}, FP caught ${(f.fpCaught * 100).toFixed(1)}% at TP lost ${(f.tpDismissed * 100).toFixed(1)}%, ` +
        `ECE ${f.ece.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  const shipped = new ReviewModel(trainArtifact(examples));
  return {
    model: shipped.version,
    training: shipped.artifact.training,
    threshold: shipped.artifact.threshold,
    sources: out,
    latencyMs: latency(shipped, examples),
    pairs: pairs(shipped),
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
  const examples = await loadExamples(resolve(arg("--examples") ?? DEFAULT_EXAMPLES));
  const evaluation = evaluateLoso(examples, arg("--sources")?.split(","));
  const docPath = resolve(arg("--doc") ?? join(repoRoot, "docs/ai.md"));
  const doc = await readFile(docPath, "utf8").catch(() => `# AI\n\n${START}\n${END}\n`);
  const s = doc.indexOf(START);
  const e = doc.indexOf(END);
  if (s < 0 || e < s) throw new Error(`${docPath} has no ${START} … ${END} block`);
  const block = `${START}\n<!-- Generated by npm run ai:eval. Do not edit by hand. -->\n\n${renderLoso(evaluation)}\n${END}`;
  await writeFile(docPath, doc.slice(0, s) + block + doc.slice(e + END.length));
  await writeFile(join(dirname(docPath), "ai-review-eval.json"), `${JSON.stringify(evaluation, null, 1)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

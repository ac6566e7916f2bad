/**
 * Learning from an organization's own triage, without retraining the global model.
 *
 * Every finding someone in the organization marked TRUE POSITIVE or FALSE POSITIVE, and
 * every vote on a review answer, is a label. Labels are counted under similarity keys at
 * four levels, finest first:
 *
 * - `shape`: the same rule, the same path pattern (the file's directory with its last segment
 *   generalised) and the same code shape (the sink line with identifiers and literals
 *   abstracted, call names kept);
 * - `dir`: the same rule and path pattern;
 * - `rule`: the same rule (`analyzer:rule_id`);
 * - `cwe-shape`: the same weakness and code shape, whatever the rule (this links votes on
 *   `POST /ai/review` answers, which have no rule, with triaged findings).
 *
 * A later verdict moves in logit space by Σ λ_level · log((tp + α) / (fp + α)) over the keys it
 * shares with labelled findings (bounded), so an organization without labels changes
 * nothing, and a rule's labels leave another rule's findings alone unless they share the
 * weakness and the exact code shape. When the labels moved a verdict, the strongest level is
 * named in a reason ("2 findings of the same rule and code shape in this project were marked
 * false positive"). Pure, deterministic, a few map look-ups per finding.
 *
 * Stats are built from one organization's labels only: the caller (packages/db
 * ai-learning.ts) never mixes organizations.
 */
import { createHash } from "node:crypto";
import type { OrgLabelRow } from "@ax/contracts";
import { stripComments } from "./comments";

export const LEVELS = ["shape", "dir", "rule", "cwe-shape"] as const;
export type Level = (typeof LEVELS)[number];

/** What a label's keys are read from: a stored finding, a training example's facts, or a review request. */
export interface LabelFacts {
  analyzer: string;
  rule_id: string;
  cwe_id: string | null;
  file: string;
  /** The finding's own line(s): the first non-blank line is taken as the sink line. */
  snippet?: string | null;
}

/** One organization's label: a triaged finding or a vote on a review answer. */
export interface OrgLabel {
  facts: LabelFacts;
  truePositive: boolean;
  /** The project the finding belongs to (null for a review vote). */
  projectId?: string | null;
  /** The finding's fingerprint, so a finding's own label is left out of its verdict. */
  fingerprint?: string | null;
  /** The AI's p(TRUE_POSITIVE) when the label was given, if it had one: fits how far the counts are trusted. */
  pTrue?: number | null;
}

export interface KeyCounts {
  tp: number;
  fp: number;
  /** Of those, the labels of the project the stats were built for. */
  tpHere: number;
  fpHere: number;
}

export interface OrgStats {
  counts: Map<string, KeyCounts>;
  /** The project's own labels by fingerprint: subtracted from that finding's counts. */
  own: Map<string, { keys: string[]; truePositive: boolean }[]>;
  /** Labels counted. */
  labels: number;
  /** Whether the stats were built for one project (reasons then say "in this project"). */
  forProject: boolean;
  /**
   * How far this organization's counts are trusted next to the model: the factor on every λ
   * that best predicts its own labels (each left out of its own counts) from the AI's
   * p(TRUE_POSITIVE) when they were given; 1 with fewer than MIN_FIT scored labels.
   */
  scale: number;
  /**
   * How far the model's own verdict is trusted on this organization's code: its logit is
   * multiplied by this (1, 0.5 or 0.25), fitted with `scale`. Below 1 when the model was
   * too sure of itself on the organization's labels.
   */
  temperature: number;
  /** The scored labels the fit read, and how many of them the AI's class had right. */
  record: { scored: number; correct: number };
}

export interface LearningParams {
  /** Weight of each level's smoothed log-odds. */
  lambda: Record<Level, number>;
  /** Pseudo-count on either side (shrinkage toward the model). */
  alpha: number;
  /** Bound on the total logit shift. */
  maxShift: number;
  /** Below this logit shift no reason is given and the model name is unchanged. */
  minShift: number;
}

export const DEFAULT_LEARNING: LearningParams = {
  lambda: { shape: 0.6, dir: 0.35, rule: 0.25, "cwe-shape": 0.35 },
  alpha: 2,
  maxShift: 5,
  minShift: 0.1,
};

/** Scored labels needed before the trust in the counts is fitted (SCALES), else 1. */
export const MIN_FIT = 30;
export const SCALES = [0.5, 1, 2, 4] as const;
export const TEMPERATURES = [1, 0.5, 0.25] as const;

/** At most this many labels are counted (the store reads up to 10,000 triaged findings and 10,000 votes, most recent first). */
export const MAX_LABELS = 20_000;

/** The file's directory with its last segment generalised: `src/web/user/A.java` → `src/web/*`. */
export function pathPattern(file: string): string {
  const parts = file.replace(/\\/g, "/").replace(/^\.\//, "").split("/").filter(Boolean);
  parts.pop();
  if (parts.length === 0) return ".";
  parts[parts.length - 1] = "*";
  return parts.join("/");
}

const STRING = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g;

/**
 * The sink line's shape: comments removed, literals and identifiers abstracted, the names of
 * calls kept (`stmt.executeQuery("SELECT " + id)` → `i.executeQuery(§+i)`: § a string, # a number); null for a blank line.
 */
export function codeShape(snippet: string | null | undefined, file = ""): string | null {
  if (!snippet) return null;
  const text = stripComments(snippet.slice(0, 4000), file);
  // Bounded before any pattern runs: a hostile snippet's line costs at most this much.
  const line = text
    .split("\n")
    .find((l) => l.trim() !== "")
    ?.slice(0, 400);
  if (!line) return null;
  const shape = line
    // What the sink's value is assigned to, or returned from, is not its shape.
    .replace(/^\s*(return|await|yield|throw)\b/, "")
    .replace(/^[^=(]*?[^=!<>+\-*/%&|^]=(?![=>])/, "")
    .replace(STRING, "\u00a7")
    .replace(/\b\d[\w.]*\b/g, "#")
    .replace(/[A-Za-z_$][\w$]*(\s*\()?/g, (m, call: string | undefined) => (call ? m.replace(/\s+/g, "") : "i"))
    .replace(/\bi(\s+i)+\b/g, "i")
    .replace(/\s+/g, "")
    .replace(/i(\.i)+/g, "i")
    .slice(0, 300);
  return shape === "" ? null : shape;
}

function digest(s: string): string {
  return createHash("sha256").update(s).digest("hex").slice(0, 16);
}

/** The rule a label is counted under: `analyzer:rule_id`. */
export function ruleOf(facts: LabelFacts): string {
  return `${facts.analyzer}:${facts.rule_id}`;
}

/** The similarity keys of a finding, finest level first (levels without a key are left out). */
export function labelKeyOf(facts: LabelFacts): { level: Level; key: string }[] {
  const rule = ruleOf(facts);
  const path = pathPattern(facts.file);
  const shape = codeShape(facts.snippet, facts.file);
  const shapeDigest = shape === null ? null : digest(shape);
  const out: { level: Level; key: string }[] = [];
  if (shapeDigest) out.push({ level: "shape", key: `s|${rule}|${path}|${shapeDigest}` });
  out.push({ level: "dir", key: `d|${rule}|${path}` }, { level: "rule", key: `r|${rule}` });
  if (shapeDigest && facts.cwe_id) out.push({ level: "cwe-shape", key: `c|${facts.cwe_id.toUpperCase()}|${shapeDigest}` });
  return out;
}

/** Counts one organization's labels (at most MAX_LABELS); `projectId` marks the project the stats serve. */
export function buildOrgStats(
  labels: Iterable<OrgLabel>,
  opts: { projectId?: string | null; maxLabels?: number; params?: LearningParams } = {},
): OrgStats {
  const max = opts.maxLabels ?? MAX_LABELS;
  const stats: OrgStats = { ...emptyOrgStats(), forProject: !!opts.projectId };
  const scored: { facts: LabelFacts; own: { keys: string[]; truePositive: boolean }; pTrue: number }[] = [];
  for (const label of labels) {
    if (stats.labels >= max) break;
    stats.labels++;
    const here = !!opts.projectId && label.projectId === opts.projectId;
    const keys = labelKeyOf(label.facts).map((k) => k.key);
    if (typeof label.pTrue === "number" && Number.isFinite(label.pTrue))
      scored.push({ facts: label.facts, own: { keys, truePositive: label.truePositive }, pTrue: label.pTrue });
    for (const key of keys) {
      const c = stats.counts.get(key) ?? { tp: 0, fp: 0, tpHere: 0, fpHere: 0 };
      if (label.truePositive) {
        c.tp++;
        if (here) c.tpHere++;
      } else {
        c.fp++;
        if (here) c.fpHere++;
      }
      stats.counts.set(key, c);
    }
    if (here && label.fingerprint) {
      const list = stats.own.get(label.fingerprint) ?? [];
      list.push({ keys, truePositive: label.truePositive });
      stats.own.set(label.fingerprint, list);
    }
  }
  Object.assign(stats, fitTrust(stats, scored, opts.params ?? DEFAULT_LEARNING));
  return stats;
}

/**
 * The λ factor (of SCALES) and the model's temperature (of TEMPERATURES) under which the
 * scored labels are most likely: each label's p(TRUE_POSITIVE), tempered, moved by the counts
 * without itself. Ties go to the model as it is (1, 1), evaluated first.
 */
function fitTrust(
  stats: OrgStats,
  scored: readonly { facts: LabelFacts; own: { keys: string[]; truePositive: boolean }; pTrue: number }[],
  params: LearningParams,
): Pick<OrgStats, "scale" | "temperature" | "record"> {
  const record = { scored: scored.length, correct: scored.filter((l) => l.pTrue >= 0.5 === l.own.truePositive).length };
  if (scored.length < MIN_FIT) return { scale: 1, temperature: 1, record };
  const raw = scored.map((l) => ({ z: logit(l.pTrue), y: l.own.truePositive, shift: shiftOf(l.facts, stats, [l.own], params).shift }));
  let best = { scale: 1, temperature: 1, ll: -Infinity };
  for (const temperature of TEMPERATURES) {
    for (const scale of [1, ...SCALES.filter((s) => s !== 1)]) {
      let ll = 0;
      for (const r of raw) {
        const z = temperature * r.z + Math.max(-params.maxShift, Math.min(params.maxShift, scale * r.shift));
        ll += r.y ? -Math.log1p(Math.exp(-z)) : -Math.log1p(Math.exp(z));
      }
      if (ll > best.ll + 1e-9) best = { scale, temperature, ll };
    }
  }
  return { scale: best.scale, temperature: best.temperature, record };
}

export function emptyOrgStats(): OrgStats {
  return { counts: new Map(), own: new Map(), labels: 0, forProject: false, scale: 1, temperature: 1, record: { scored: 0, correct: 0 } };
}

/** The counts of a key without the finding's own labels (leave-one-out). */
function countsWithout(stats: OrgStats, key: string, own: readonly { keys: string[]; truePositive: boolean }[]): KeyCounts {
  const c = stats.counts.get(key);
  if (!c) return { tp: 0, fp: 0, tpHere: 0, fpHere: 0 };
  const out = { ...c };
  for (const o of own) {
    if (!o.keys.includes(key)) continue;
    if (o.truePositive) {
      out.tp--;
      out.tpHere--;
    } else {
      out.fp--;
      out.fpHere--;
    }
  }
  return out;
}

export interface OrgEvidence {
  level: Level;
  counts: KeyCounts;
  /** This level's share of the logit shift. */
  shift: number;
}

/** The λ-weighted log-odds of each level's counts (without `own`), unscaled and unbounded. */
function shiftOf(
  facts: LabelFacts,
  stats: OrgStats,
  own: readonly { keys: string[]; truePositive: boolean }[],
  p: LearningParams,
): { shift: number; evidence: OrgEvidence[] } {
  const evidence: OrgEvidence[] = [];
  let shift = 0;
  for (const { level, key } of labelKeyOf(facts)) {
    const counts = countsWithout(stats, key, own);
    if (counts.tp + counts.fp <= 0) continue;
    const s = p.lambda[level] * Math.log((counts.tp + p.alpha) / (counts.fp + p.alpha));
    shift += s;
    evidence.push({ level, counts, shift: s });
  }
  return { shift, evidence };
}

/** How far the organization's labels move a finding's logit (scaled by the fitted trust, bounded), and the evidence per level. */
export function orgShift(
  facts: LabelFacts,
  stats: OrgStats,
  opts: { fingerprint?: string | null; params?: LearningParams } = {},
): { shift: number; evidence: OrgEvidence[] } {
  const p = opts.params ?? DEFAULT_LEARNING;
  if (stats.labels === 0) return { shift: 0, evidence: [] };
  const own = (opts.fingerprint && stats.own.get(opts.fingerprint)) || [];
  const raw = shiftOf(facts, stats, own, p);
  const evidence = raw.evidence.map((e) => ({ ...e, shift: e.shift * stats.scale }));
  return { shift: Math.max(-p.maxShift, Math.min(p.maxShift, raw.shift * stats.scale)), evidence };
}

const LEVEL_WORDS: Record<Level, (facts: LabelFacts) => string> = {
  shape: () => "of the same rule and code shape",
  dir: () => "of the same rule in this directory",
  rule: () => "of the same rule",
  "cwe-shape": (f) => `with the same weakness (${f.cwe_id ?? "CWE"}) and code shape`,
};

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The reason in words, from the level that moved the verdict most in its direction. */
export function orgReason(facts: LabelFacts, stats: OrgStats, evidence: readonly OrgEvidence[], shift: number): string | null {
  const toward = evidence.filter((e) => e.shift * shift > 0).sort((a, b) => Math.abs(b.shift) - Math.abs(a.shift));
  const top = toward[0];
  if (!top) return null;
  const { tp, fp, tpHere, fpHere } = top.counts;
  const n = tp + fp;
  const scope =
    !stats.forProject || tpHere + fpHere === 0
      ? "in this organization"
      : tpHere + fpHere === n
        ? "in this project"
        : "in this organization";
  const what = LEVEL_WORDS[top.level](facts);
  const verb = n === 1 ? "was" : "were";
  if (shift < 0) {
    return fp === n
      ? `${plural(n, "finding", "findings")} ${what} ${scope} ${verb} marked false positive`
      : `${fp} of ${n} findings ${what} ${scope} were marked false positive`;
  }
  return tp === n
    ? `${plural(n, "finding", "findings")} ${what} ${scope} ${verb} confirmed as true positive`
    : `${tp} of ${n} findings ${what} ${scope} were confirmed as true positive`;
}

/** What adjustVerdict reads and writes of a verdict (ReviewVerdict and the API's CombinedVerdict both have it). */
export interface VerdictLike {
  class: "TRUE_POSITIVE" | "FALSE_POSITIVE";
  confidence: number;
  pTrue: number;
  model: string;
  reasons?: string[];
}

/** The model name of a verdict the organization's labels moved. */
export const ORG_SUFFIX = "+org";

function logit(p: number): number {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
}

function round(p: number): number {
  return Math.round(p * 10_000) / 10_000;
}

/**
 * The verdict adapted to the organization's labels: pTrue moved in logit space, the class
 * re-decided at the model's threshold, `+org` added to the model name and the labels cited
 * first among the reasons. Unchanged (the same object) when the labels do not move it.
 */
export function adjustVerdict<V extends VerdictLike>(
  verdict: V,
  facts: LabelFacts,
  stats: OrgStats,
  opts: { fingerprint?: string | null; threshold?: number; params?: LearningParams } = {},
): V {
  const params = opts.params ?? DEFAULT_LEARNING;
  const { shift, evidence } = orgShift(facts, stats, { fingerprint: opts.fingerprint ?? null, params });
  const moved = Math.abs(shift) >= params.minShift;
  if (!moved && stats.temperature === 1) return verdict;
  const z = stats.temperature * logit(verdict.pTrue) + (moved ? shift : 0);
  const pTrue = round(z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
  const cls = pTrue >= (opts.threshold ?? 0.5) ? "TRUE_POSITIVE" : "FALSE_POSITIVE";
  const reason = moved ? orgReason(facts, stats, evidence, shift) : null;
  const tempered =
    stats.temperature < 1
      ? `the review model was right on ${stats.record.correct} of ${stats.record.scored} findings triaged in this organization, so its own confidence counts for less`
      : null;
  const base = verdict.reasons ?? [];
  const kept =
    cls === verdict.class
      ? base.slice(0, 2)
      : [`the review model alone said ${verdict.class} (p(TRUE_POSITIVE) = ${verdict.pTrue.toFixed(2)})`];
  return {
    ...verdict,
    class: cls,
    confidence: round(cls === "TRUE_POSITIVE" ? pTrue : 1 - pTrue),
    pTrue,
    model: verdict.model.endsWith(ORG_SUFFIX) ? verdict.model : `${verdict.model}${ORG_SUFFIX}`,
    reasons: [...(reason ? [reason] : []), ...(tempered ? [tempered] : []), ...kept].slice(0, 3),
  };
}

/** The facts of a vote on a review answer (no rule: counted under `review:<CWE>`). */
export function reviewFacts(input: { cwe_id?: string | null; file?: string | null; code: string; line?: string | null }): LabelFacts {
  return {
    analyzer: "review",
    rule_id: input.cwe_id ?? "unknown",
    cwe_id: input.cwe_id ?? null,
    file: input.file ?? "snippet",
    snippet: sinkLine(input.code, input.line),
  };
}

/** The line `line` names in the code when it is inside it, else the code's only line, else null. */
function sinkLine(code: string, line: string | null | undefined): string | null {
  const lines = code.split("\n");
  const nonBlank = lines.filter((l) => l.trim() !== "");
  const n = line ? parseInt(line, 10) : NaN;
  if (Number.isInteger(n) && n >= 1 && n <= lines.length && lines[n - 1]!.trim() !== "") return lines[n - 1]!;
  return nonBlank.length === 1 ? nonBlank[0]! : null;
}

/** A stored label (packages/db ai-learning.ts: a triaged finding or a vote on a review answer). */
export type StoredLabel = OrgLabelRow;

export function orgLabelOf(row: StoredLabel): OrgLabel {
  const pTrue = row.pTrue ?? null;
  if (row.kind === "vote") return { facts: reviewFacts(row), truePositive: row.truePositive, projectId: null, fingerprint: null, pTrue };
  const { analyzer, rule_id, cwe_id, file, snippet } = row;
  return {
    facts: { analyzer, rule_id, cwe_id, file, snippet },
    truePositive: row.truePositive,
    projectId: row.projectId,
    fingerprint: row.fingerprint,
    pTrue,
  };
}

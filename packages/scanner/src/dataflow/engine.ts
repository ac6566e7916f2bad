/**
 * The taint analysis over a whole repository: lowers every file, then analyses every
 * function in rounds, each round using the previous round's summaries and field stores,
 * until nothing changes (or a round limit). Findings come from the last round: a source
 * fact reaching a sink, with its trace.
 */
import type { Level, NormalizedFinding } from "@ax/contracts";
import { buildFinding } from "../analyzers/finding";
import type { Taxonomy } from "../analyzers/taxonomy";
import { FunctionInterpreter, type Hit, type Shared, type Summary } from "./interp";
import type { ModuleIR } from "./ir";
import { Program } from "./program";
import type { LanguageSpec } from "./spec";
import { originKey, type Fact } from "./values";

export const DATAFLOW = "dataflow";
const MAX_ROUNDS = 8;

export interface EngineOptions {
  specs: ReadonlyMap<string, LanguageSpec>;
  lines: (file: string) => readonly string[];
  taxonomy: Taxonomy;
  /** Checked between functions: stop when it fires (time limit, cancellation). */
  signal?: AbortSignal;
}

export function analyzeModules(modules: readonly ModuleIR[], opts: EngineOptions): NormalizedFinding[] {
  const program = new Program(modules);
  let summaries = new Map<string, Summary>();
  const fields = new Map<string, Fact[]>();
  let hits = new Map<string, Hit>();
  let called = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = new Map<string, Summary>();
    const roundHits = new Map<string, Hit>();
    const changed = { fields: false };
    const roundCalled = new Set<string>();
    const shared: Shared = {
      called: roundCalled,
      program,
      specs: opts.specs,
      summaries,
      fields,
      lines: opts.lines,
      changed,
      onHit: (hit) => {
        const key = `${hit.file}:${hit.loc.line}:${hit.loc.column}:${hit.rule.id}:${originKey(hit.fact.origin)}`;
        const old = roundHits.get(key);
        if (!old || hit.steps.length < old.steps.length) roundHits.set(key, hit);
      },
    };
    for (const ref of program.all) {
      if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error("dataflow analysis aborted");
      next.set(ref.key, new FunctionInterpreter(shared, ref).run());
    }
    const stable = !changed.fields && sameSummaries(summaries, next);
    summaries = next;
    hits = roundHits;
    called = roundCalled;
    if (stable) break;
  }
  // An entry point (nothing calls it) that reads a field into a sink: what any code stored in
  // that field reaches it.
  for (const ref of program.all) {
    if (called.has(ref.key)) continue;
    for (const sink of summaries.get(ref.key)?.sinks ?? []) {
      if (typeof sink.param !== "string") continue;
      for (const fact of fields.get(sink.param) ?? []) {
        if (fact.clean.has(sink.rule.cwe)) continue;
        const hit: Hit = { fact, rule: sink.rule, file: sink.file, loc: sink.loc, steps: [...fact.steps, ...sink.steps] };
        hits.set(`${hit.file}:${hit.loc.line}:${hit.loc.column}:${hit.rule.id}:${originKey(fact.origin)}`, hit);
      }
    }
  }
  return toFindings([...hits.values()], opts);
}

function sameSummaries(a: Map<string, Summary>, b: Map<string, Summary>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, s] of b) {
    const o = a.get(key);
    if (!o) return false;
    if (o.sinks.length !== s.sinks.length || o.ret.facts.length !== s.ret.facts.length || o.ret.konst?.v !== s.ret.konst?.v) return false;
    if (o.fieldWrites.length !== s.fieldWrites.length || o.fieldWrites.some((w, i) => w.facts.length !== s.fieldWrites[i]?.facts.length)) return false;
    const ra = o.ret.facts.map((f) => originKey(f.origin) + [...f.clean].join()).sort().join("|");
    const rb = s.ret.facts.map((f) => originKey(f.origin) + [...f.clean].join()).sort().join("|");
    if (ra !== rb) return false;
  }
  return true;
}

/** One finding per sink place and rule; the remote source wins over a local one, then the shortest trace. */
function toFindings(hits: Hit[], opts: EngineOptions): NormalizedFinding[] {
  const best = new Map<string, Hit>();
  const rank = (h: Hit) => (h.fact.origin.kind === "source" && h.fact.origin.sourceKind === "remote" ? 0 : 1);
  for (const h of hits) {
    const key = `${h.file}:${h.loc.line}:${h.loc.column}:${h.rule.id}`;
    const old = best.get(key);
    if (!old || rank(h) < rank(old) || (rank(h) === rank(old) && h.steps.length < old.steps.length)) best.set(key, h);
  }
  return [...best.values()].map((h) => {
    const origin = h.fact.origin.kind === "source" ? h.fact.origin : null;
    const sourceKind = origin?.sourceKind ?? "remote";
    const spec = opts.specs.get(languageOfRule(h.rule.id));
    const confidence: Level = spec?.confidence?.[sourceKind] ?? (sourceKind === "remote" ? "HIGH" : "MEDIUM");
    const line = opts.lines(h.file)[h.loc.line - 1] ?? "";
    const finding = buildFinding(
      {
        analyzer: DATAFLOW,
        rule_id: h.rule.id,
        title: h.rule.title,
        message: `${h.rule.message} Source: ${origin?.label ?? "untrusted input"} (line ${h.steps[0]?.line ?? h.loc.line}${h.steps[0] && h.steps[0].file !== h.file ? ` of ${h.steps[0].file}` : ""}).`,
        cwe_id: h.rule.cwe,
        file: h.file,
        start_line: h.loc.line,
        end_line: h.loc.endLine,
        start_column: h.loc.column,
        end_column: h.loc.endLine === h.loc.line ? h.loc.endColumn : undefined,
        snippet: line.trim(),
        severity: h.rule.severity,
        confidence,
        remediation: h.rule.remediation,
        raw: { source: origin ? { rule: origin.rule, label: origin.label, kind: origin.sourceKind } : null, sink: h.rule.id, steps: h.steps.length },
      },
      opts.taxonomy,
    );
    return { ...finding, dataflow: { status: "confirmed" as const, source_kind: sourceKind, trace: [...h.steps] } };
  });
}

function languageOfRule(id: string): string {
  if (id.startsWith("java-")) return "java";
  if (id.startsWith("py-")) return "python";
  return "javascript";
}

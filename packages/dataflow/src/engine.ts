/**
 * The taint analysis over a whole repository: lowers every file, then analyses every
 * function in rounds, each round using the previous round's summaries and field stores,
 * until nothing changes (or a round limit). Findings come from the last round: a source
 * fact reaching a sink, with its trace.
 *
 * After the first round only the functions whose inputs changed are interpreted again: a
 * function's summary, hits and calls depend on nothing but the summaries it looked up (the
 * field store is only written, and writing the same facts again changes nothing), so one
 * whose looked-up summaries are all as they were would give what it gave last time. With a
 * memo (memo.ts), a rescan replays the last analysis's interpretations whose inputs are the
 * same instead of running them.
 */
import type { FindingDataflow, Level, Severity } from "@ax/contracts";
import { FunctionInterpreter } from "./interp";
import type { Hit, Shared, Summary } from "./summary";
import type { ModuleIR } from "./ir";
import { Recall, type EngineMemo, type Interpretation } from "./memo";
import { SummaryTable } from "./summary-table";
import { Program, type FnRef } from "./program";
import type { LanguageSpec, SourceKind } from "./spec";
import { mergeFacts, originKey, type Fact } from "./values";
import { judgeSites, recordSite, siteKey, type SinkSite } from "./sites";
import { ConfigFiles } from "./config-files";
import type { AlgorithmUse } from "./weak-algorithms";

const MAX_ROUNDS = 8;

/**
 * A source reaching a sink, in the terms of a finding (the fields a scanner's finding is made
 * from, named as in @ax/contracts' NormalizedFinding), with its trace: source first, sink last.
 */
export interface TaintTrace {
  rule_id: string;
  title: string;
  message: string;
  cwe_id: string;
  file: string;
  start_line: number;
  end_line: number;
  start_column: number;
  /** Unset when the sink spans lines. */
  end_column: number | undefined;
  /** The sink's line, trimmed. */
  snippet: string;
  severity: Severity;
  confidence: Level;
  remediation: string;
  /** `entry`: the function the trace starts from (`file#Class.method`); one trace per sink place, rule and entry. */
  raw: { source: { rule: string; label: string; kind: SourceKind } | null; sink: string; steps: number; entry: string };
  dataflow: FindingDataflow & { status: "confirmed"; source_kind: SourceKind };
}

export interface EngineOptions {
  specs: ReadonlyMap<string, LanguageSpec>;
  lines: (file: string) => readonly string[];
  /** Checked between functions: stop when it fires (time limit, cancellation). */
  signal?: AbortSignal;
  /** Interpret every function in every round: the reference the worklist is tested against. */
  everyRound?: boolean;
  /** Kept by the caller between analyses: interpretations the next one may replay. */
  memo?: EngineMemo;
  /** The repository's configuration files (path → text: `.properties`, `.ini`, JSON), whose values loads resolve to (config-files.ts). */
  configs?: ReadonlyMap<string, string>;
}

export function analyzeModules(modules: readonly ModuleIR[], opts: EngineOptions): TaintTrace[] {
  return analyzeProgram(modules, opts).traces;
}

/** The traces, the sink places the analysis judged with no tainted path (sites.ts), and weak algorithms it resolved (weak-algorithms.ts). */
export interface ProgramAnalysis {
  traces: TaintTrace[];
  sites: SinkSite[];
  algorithms: AlgorithmUse[];
}

export function analyzeProgram(modules: readonly ModuleIR[], opts: EngineOptions): ProgramAnalysis {
  const program = new Program(modules);
  const fields = new Map<string, Fact[]>();
  const changed = { fields: false };
  const addToStore = (key: string, sources: Fact[]) => {
    const old = fields.get(key) ?? [];
    const merged = mergeFacts(old, sources);
    if (merged.length !== old.length) {
      fields.set(key, merged);
      changed.fields = true;
    }
  };
  const configs = new ConfigFiles(opts.configs ?? new Map());
  const base = { program, specs: opts.specs, lines: opts.lines, store: addToStore, configs };
  const recall = opts.memo && !opts.everyRound ? new Recall(opts.memo, program, opts.specs, opts.lines, configs.digest) : null;
  const latest: Interpretation[] = [];
  const readers = new Readers();
  // A key stands for the last function that has it (keys of a few lambdas coincide).
  const owner = new Map(program.all.map((ref, i) => [ref.key, i]));
  const table = new SummaryTable();
  const summaries = table.current;
  // Keys whose summary changed in the last round; null (the first round, or `everyRound`):
  // every function is interpreted.
  let changedKeys: Set<string> | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    changed.fields = false;
    // In the order of a full round: the field store and the hits depend on it.
    const due: number[] = changedKeys ? readers.of(changedKeys) : program.all.map((_, i) => i);
    for (const i of due) {
      if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error("dataflow analysis aborted");
      const ref = program.all[i]!;
      const kept = recall?.find(ref, summaries);
      if (kept) for (const [key, sources] of kept.stores) addToStore(key, sources);
      const run = kept ?? interpret(ref, base, summaries);
      recall?.record(ref, run);
      readers.replace(i, latest[i], run);
      latest[i] = run;
    }
    // The round read the last round's summaries: its own replace them only now.
    const updates = new Map<string, Summary>();
    for (const i of due) {
      const key = program.all[i]!.key;
      updates.set(key, latest[owner.get(key)!]!.summary);
    }
    // Anything in a summary may change what a caller computes (a trace step, a cleaned CWE, a
    // constant), so it has changed unless it is identical in all of it.
    const { same, changed: differ } = table.update(updates, !opts.everyRound);
    const stable = !changed.fields && same;
    if (!opts.everyRound) changedKeys = differ;
    // Nothing changed that anyone read: the next rounds would interpret nothing.
    if (stable || changedKeys?.size === 0) break;
  }
  recall?.finish();
  // The last round's hits: each function's from its latest interpretation, in the order a
  // full round would have reported them.
  // Each hit with the function that reported it: the entry point of its trace (toTraces).
  const hits = new Map<string, Hit>();
  const entries = new Map<Hit, FnRef>();
  const called = new Set<string>();
  latest.forEach((run, i) => {
    const ref = program.all[i]!;
    for (const [key, hit] of run.hits) if (keepShortest(hits, `${ref.key}\0${key}`, hit)) entries.set(hit, ref);
    for (const key of run.called) called.add(key);
  });
  // An entry point (nothing calls it) that reads a field into a sink: what any code stored in
  // that field reaches it.
  for (const ref of program.all) {
    if (called.has(ref.key)) continue;
    for (const sink of summaries.get(ref.key)?.sinks ?? []) {
      if (typeof sink.param !== "string") continue;
      for (const fact of fields.get(sink.param) ?? []) {
        if (fact.clean.has(sink.rule.cwe)) continue;
        const hit: Hit = { fact, rule: sink.rule, file: sink.file, loc: sink.loc, steps: [...fact.steps, ...sink.steps] };
        hits.set(`${ref.key}\0${hitKey(hit)}`, hit);
        entries.set(hit, ref);
      }
    }
  }
  const algorithms = new Map<string, AlgorithmUse>();
  for (const run of latest)
    for (const [key, use] of run.algorithms ?? [])
      if (!algorithms.has(key)) algorithms.set(key, { ...use, snippet: (opts.lines(use.file)[use.loc.line - 1] ?? "").trim() });
  return {
    traces: toTraces([...hits.values()], entries, opts),
    sites: sitesOf(program, latest, summaries, called, hits.values()),
    algorithms: [...algorithms.values()],
  };
}

/** Every sink place some interpretation evaluated and no hit reached, clean or open. */
function sitesOf(
  program: Program,
  latest: readonly Interpretation[],
  summaries: ReadonlyMap<string, Summary>,
  called: ReadonlySet<string>,
  hits: Iterable<Hit>,
): SinkSite[] {
  const tainted = new Set<string>();
  for (const h of hits) tainted.add(siteKey(h.file, h.loc, h.rule.id));
  // What an entry point's parameters or unfilled fields reach: callers outside the repository decide.
  const open = new Set<string>();
  for (const ref of program.all) {
    if (called.has(ref.key)) continue;
    for (const sink of summaries.get(ref.key)?.sinks ?? []) open.add(siteKey(sink.file, sink.loc, sink.rule.id));
  }
  return judgeSites(
    latest.flatMap((run) => [...run.sites.values()]),
    tainted,
    open,
  );
}

function interpret(
  ref: FnRef,
  base: Omit<Shared, "summaries" | "called" | "onHit">,
  summaries: ReadonlyMap<string, Summary>,
): Interpretation {
  const run: Omit<Interpretation, "summary"> & { algorithms: Map<string, AlgorithmUse> } = {
    hits: new Map(),
    called: new Set(),
    reads: new Map(),
    stores: [],
    sites: new Map(),
    algorithms: new Map(),
  };
  // Methods, not arrow properties: the loader (tsx) would define each arrow's name on every call.
  const shared: Shared = {
    ...base,
    summaries: {
      get(key) {
        const summary = summaries.get(key);
        if (!run.reads.has(key)) run.reads.set(key, summary);
        return summary;
      },
    },
    store(key, sources) {
      run.stores.push([key, sources]);
      base.store(key, sources);
    },
    called: run.called,
    onHit(hit) {
      return keepShortest(run.hits, hitKey(hit), hit);
    },
    onSite(at, values, exprs, clean) {
      recordSite(run.sites, at, values, exprs, clean);
    },
    onAlgorithm(use) {
      run.algorithms.set(`${use.file}:${use.loc.line}:${use.loc.column}:${use.rule_id}`, use);
    },
  };
  return { ...run, summary: new FunctionInterpreter(shared, ref).run() };
}

/** The functions (by index) whose latest interpretation looked up each summary key. */
class Readers {
  private readonly byKey = new Map<string, Set<number>>();

  replace(i: number, before: Interpretation | undefined, after: Interpretation): void {
    if (before === after) return;
    for (const key of before?.reads.keys() ?? []) if (!after.reads.has(key)) this.byKey.get(key)?.delete(i);
    for (const key of after.reads.keys()) {
      let set = this.byKey.get(key);
      if (!set) this.byKey.set(key, (set = new Set()));
      set.add(i);
    }
  }

  /** Readers of any of `keys`, in function order. */
  of(keys: Iterable<string>): number[] {
    const out = new Set<number>();
    for (const key of keys) for (const i of this.byKey.get(key) ?? []) out.add(i);
    return [...out].sort((a, b) => a - b);
  }
}

function hitKey(hit: Hit): string {
  return `${hit.file}:${hit.loc.line}:${hit.loc.column}:${hit.rule.id}:${originKey(hit.fact.origin)}`;
}

/** The first hit of a key wins over later ones unless they are strictly shorter. True when `hit` is kept. */
function keepShortest(hits: Map<string, Hit>, key: string, hit: Hit): boolean {
  const old = hits.get(key);
  if (old && hit.steps.length >= old.steps.length) return false;
  hits.set(key, hit);
  return true;
}

/**
 * One trace per sink place, rule and entry function (the function that reported the hit: where
 * the source's value meets the sink, directly or through the summaries of what it calls), so a
 * helper's sink reached from two routes gives two traces; of one entry's hits the remote source
 * wins over a local one, then the shortest trace.
 */
function toTraces(hits: Hit[], entries: ReadonlyMap<Hit, FnRef>, opts: EngineOptions): TaintTrace[] {
  const best = new Map<string, Hit>();
  const rank = (h: Hit) => (h.fact.origin.kind === "source" && h.fact.origin.sourceKind === "remote" ? 0 : 1);
  for (const h of hits) {
    const key = `${h.file}:${h.loc.line}:${h.loc.column}:${h.rule.id}:${entries.get(h)?.key ?? ""}`;
    const old = best.get(key);
    if (!old || rank(h) < rank(old) || (rank(h) === rank(old) && h.steps.length < old.steps.length)) best.set(key, h);
  }
  return [...best.values()].map((h) => toTrace(h, opts, entries.get(h)));
}

/** `file#Class.method`: the entry function of a trace, without its line (stable when code above it moves). */
function entryName(ref: FnRef | undefined): string {
  return ref ? `${ref.module.file}#${ref.fn.cls ? `${ref.fn.cls}.` : ""}${ref.fn.name}` : "";
}

function toTrace(h: Hit, opts: EngineOptions, entry?: FnRef): TaintTrace {
  const origin = h.fact.origin.kind === "source" ? h.fact.origin : null;
  const sourceKind = origin?.sourceKind ?? "remote";
  const spec = opts.specs.get(languageOfRule(h.rule.id));
  const bySource: Level = spec?.confidence?.[sourceKind] ?? (sourceKind === "remote" ? "HIGH" : "MEDIUM");
  const confidence = h.rule.confidence && LEVEL_RANK[h.rule.confidence] < LEVEL_RANK[bySource] ? h.rule.confidence : bySource;
  const line = opts.lines(h.file)[h.loc.line - 1] ?? "";
  const first = h.steps[0];
  const where = `line ${first?.line ?? h.loc.line}${first && first.file !== h.file ? ` of ${first.file}` : ""}`;
  return {
    rule_id: h.rule.id,
    title: h.rule.title,
    message: `${h.rule.message} Source: ${origin?.label ?? "untrusted input"} (${where}).`,
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
    raw: {
      source: origin ? { rule: origin.rule, label: origin.label, kind: origin.sourceKind } : null,
      sink: h.rule.id,
      steps: h.steps.length,
      entry: entryName(entry),
    },
    dataflow: { status: "confirmed", source_kind: sourceKind, trace: [...h.steps] },
  };
}

const LEVEL_RANK: Record<Level, number> = { LOW: 0, MEDIUM: 1, HIGH: 2 };

function languageOfRule(id: string): string {
  if (id.startsWith("java-")) return "java";
  if (id.startsWith("py-")) return "python";
  return "javascript";
}

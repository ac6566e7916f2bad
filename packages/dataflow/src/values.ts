/**
 * Abstract values of the taint analysis: what a variable may hold — the taint facts that
 * reach it (each with the trace that brought it) and, when it is known, its constant value.
 */
import type { TraceStep } from "@ax/contracts";
import type { ConstValue } from "./ir";
import type { SourceKind } from "./spec";

const MAX_FACTS = 6;
const MAX_STEPS = 14;

/**
 * Where a fact came from: a source; a parameter of the function being summarised; or a field
 * or module global it read without writing it first — an implicit parameter, filled in by
 * each caller with the value it holds there (so `a.data = input; b.sink()` and
 * `a.data = "foo"; b.goodSink()` are told apart).
 */
export type Origin =
  | { kind: "source"; rule: string; label: string; sourceKind: SourceKind; at: string }
  | { kind: "param"; index: number }
  | { kind: "field"; key: string };

export interface Fact {
  origin: Origin;
  /** Source (or the function entry, for a parameter) first. */
  steps: readonly TraceStep[];
  /** CWEs a sanitizer on the way made this value safe for. */
  clean: ReadonlySet<string>;
}

/** How a value was derived from another variable (guards.ts): parsed as a URL, or resolved as a path. */
export interface Derivation {
  kind: "url" | "path";
  /** The variable it was derived from, if one. */
  from?: string;
}

export interface Value {
  facts: readonly Fact[];
  /** Present when the value is a known constant; `from` names the configuration file and key it was read from (config-files.ts). */
  konst?: { v: ConstValue; from?: string };
  /** Class of the object, when it was made by `new Cls(…)`. */
  cls?: string;
  /** Text of the call or expression that produced it, for receiver matching (`response.getWriter()`). */
  via?: string;
  /** Variables this object wraps (`new ObjectOutputStream(bytes)` wraps `bytes`): writes to it reach them. */
  wraps?: readonly string[];
  /** Entries stored under constant keys (`map.put("k", v)`, `d["k"] = v`, `{k: v}`). */
  keys?: ReadonlyMap<string, Value>;
  /** A URL parsed from, or a path resolved from, another value (guards.ts). */
  derived?: Derivation;
  /** A list with exact positions (containers.ts): `keys` "0".."len-1" are its elements in order. */
  len?: number;
  /** Facts stored without a key (`list.add(v)`), returned by every keyed read too. */
  loose?: readonly Fact[];
  /**
   * How the object is configured (typestate.ts, source-policy.ts): `name:unsafe`, `name:safe`
   * (`xxe:unsafe` for a parser factory without the DOCTYPE feature) or `file:bundled`.
   */
  state?: string;
}

export const EMPTY: Value = { facts: [] };

export function constant(v: ConstValue, from?: string): Value {
  return { facts: [], konst: from === undefined ? { v } : { v, from } };
}

export function originKey(o: Origin): string {
  return o.kind === "source" ? `s:${o.rule}:${o.at}` : o.kind === "param" ? `p:${o.index}` : `f:${o.key}`;
}

/** Union of fact lists, bounded; when something must go, facts a sanitizer cleaned go first. */
export function mergeFacts(...lists: (readonly Fact[] | undefined)[]): Fact[] {
  const out: Fact[] = [];
  const seen = new Set<string>();
  for (const list of lists) {
    for (const f of list ?? []) {
      const key = `${originKey(f.origin)}|${[...f.clean].sort().join(",")}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
  }
  if (out.length <= MAX_FACTS) return out;
  // Sources first (what findings are made of), then what callers fill in, then what a sanitizer cleaned.
  const rank = (f: Fact) => (f.clean.size > 0 ? 2 : f.origin.kind === "source" ? 0 : 1);
  return out
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .slice(0, MAX_FACTS)
    .map((x) => x.f);
}

export function withStep(facts: readonly Fact[], step: TraceStep | null): Fact[] {
  if (!step) return [...facts];
  return facts.map((f) => (f.steps.length >= MAX_STEPS ? f : { ...f, steps: [...f.steps, step] }));
}

export function appendSteps(f: Fact, steps: readonly TraceStep[]): Fact {
  const room = MAX_STEPS - f.steps.length;
  if (room <= 0) return f;
  return { ...f, steps: [...f.steps, ...steps.slice(0, room)] };
}

export function sanitized(facts: readonly Fact[], cwes: readonly string[] | "*"): Fact[] {
  if (cwes === "*") return [];
  return facts.map((f) => ({ ...f, clean: new Set([...f.clean, ...cwes]) }));
}

export function join(a: Value | undefined, b: Value | undefined): Value {
  if (!a) return b ?? EMPTY;
  if (!b) return a;
  if (a === b) return a;
  const out: Value = { facts: mergeFacts(a.facts, b.facts) };
  if (a.konst && b.konst && a.konst.v === b.konst.v) out.konst = a.konst;
  if (a.cls && a.cls === b.cls) out.cls = a.cls;
  if (a.via && a.via === b.via) out.via = a.via;
  if (a.wraps || b.wraps) out.wraps = [...new Set([...(a.wraps ?? []), ...(b.wraps ?? [])])];
  if (a.keys || b.keys) {
    const keys = new Map<string, Value>();
    for (const k of new Set([...(a.keys?.keys() ?? []), ...(b.keys?.keys() ?? [])])) keys.set(k, join(a.keys?.get(k), b.keys?.get(k)));
    out.keys = keys;
  }
  if (a.derived && a.derived.kind === b.derived?.kind && a.derived.from === b.derived.from) out.derived = a.derived;
  if (a.loose || b.loose) out.loose = mergeFacts(a.loose, b.loose);
  // Lists of different lengths: positions no longer line up, every element may be any of them.
  if (a.len !== undefined && a.len === b.len) out.len = a.len;
  else if (a.len !== undefined || b.len !== undefined) out.loose = mergeFacts(out.loose, a.facts, b.facts);
  // An unsafe configuration on either path may reach the use; any other state must hold on both.
  let state = a.state === b.state ? a.state : [a.state, b.state].find((st) => st?.endsWith(":unsafe"));
  // Files bundled with the application, named differently on each path: still bundled.
  if (!state && a.state?.startsWith("file:bundled") && b.state?.startsWith("file:bundled")) state = "file:bundled";
  if (state) out.state = state;
  return out;
}

/** A value made from parts (concatenation, unknown expressions): their facts, no constant. */
export function combine(parts: readonly Value[]): Value {
  return { facts: mergeFacts(...parts.map((p) => p.facts)) };
}

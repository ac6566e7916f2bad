/**
 * The rules of a language table that a call could match by its callee name, in table order.
 * A call is checked against every source, sanitizer and sink rule (interp-calls.ts), and the
 * tables hold hundreds; a rule whose names do not include the callee matches only through an
 * imported alias (modules.ts aliasNameMatches), which the caller checks first. Built once per
 * table and callee name, read-only.
 */
import type { LanguageSpec, SanitizerRule, SinkRule, SourceRule } from "./spec";

export interface CallCandidates {
  sources: readonly SourceRule[];
  sanitizers: readonly SanitizerRule[];
  sinks: readonly SinkRule[];
}

const byTable = new WeakMap<LanguageSpec, Map<string, CallCandidates>>();

/** The rules of `spec` whose call pattern names `callee` (sources without a call pattern left out). */
export function callCandidates(spec: LanguageSpec, callee: string): CallCandidates {
  let table = byTable.get(spec);
  if (!table) byTable.set(spec, (table = new Map()));
  let hit = table.get(callee);
  if (!hit) {
    hit = {
      sources: spec.sources.filter((r) => r.call?.names.includes(callee)),
      sanitizers: spec.sanitizers.filter((r) => r.call.names.includes(callee)),
      sinks: spec.sinks.filter((r) => r.call.names.includes(callee)),
    };
    table.set(callee, hit);
  }
  return hit;
}

/**
 * One labelled finding → one stored example: the code the review reads (reviewCode(), what
 * the worker's auto-triage sends) and the finding's facts as the scanner reported them, both
 * with label-revealing text removed (strip.ts) through one name map, and the path's label
 * words masked.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { reviewCode, type FindingFacts, type RelatedIndex } from "@ax/ai/review";
import type { ExampleSource, LabeledExample } from "./examples";
import { maskNames, maskPath, newIdent, stripLabels, type Ident } from "./strip";

/** The FindingFacts fields of a finding (trace steps keep kind, label and file), label words removed. */
export function factsOf(f: NormalizedFinding, ident: Ident = newIdent()): FindingFacts {
  const flow = f.dataflow;
  return {
    analyzer: f.analyzer,
    rule_id: f.rule_id,
    cwe_id: f.cwe_id ?? null,
    file: maskPath(f.file),
    start_line: f.start_line,
    end_line: f.end_line,
    snippet: stripLabels(f.snippet ?? "", f.file, ident),
    confidence: f.confidence ?? null,
    dataflow: flow
      ? {
          status: flow.status,
          reason: flow.reason ? maskNames(flow.reason, ident) : null,
          source_kind: flow.source_kind ?? null,
          trace: (flow.trace ?? []).map((s) => ({ kind: s.kind, label: maskNames(s.label, ident), file: maskPath(s.file) })),
        }
      : null,
  };
}

export interface ExampleOptions {
  source: ExampleSource;
  group: string;
  label: 0 | 1;
  /** Reads the finding's file (its path as the finding names it) and its neighbours. */
  related: RelatedIndex;
}

export async function exampleOf(f: NormalizedFinding, opts: ExampleOptions): Promise<LabeledExample> {
  const ident = newIdent();
  const code = stripLabels(await reviewCode(opts.related, f.file, f.start_line, f.end_line), f.file, ident);
  return {
    source: opts.source,
    group: opts.group,
    label: opts.label,
    cwe_id: f.cwe_id as string,
    file: maskPath(f.file),
    line: f.start_line,
    analyzer: f.analyzer,
    rule_id: f.rule_id,
    code,
    facts: factsOf(f, ident),
  };
}

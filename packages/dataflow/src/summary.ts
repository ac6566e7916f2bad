/** What the interpretation of one function gives the engine: its summary for callers, and its hits. */
import type { TraceStep } from "@ax/contracts";
import type { Expr, Loc } from "./ir";
import type { Program } from "./program";
import type { LanguageSpec, SinkRule } from "./spec";
import type { Fact, Value } from "./values";
import type { CleanReason } from "./sites";
import type { ConfigFiles } from "./config-files";
import type { AlgorithmUse } from "./weak-algorithms";

export interface SinkSummary {
  /** A parameter index, or the key of a field read as an implicit parameter. */
  param: number | string;
  rule: SinkRule;
  file: string;
  loc: Loc;
  /** From the function's entry (parameter) to the sink, sink step included. */
  steps: readonly TraceStep[];
}

export interface Summary {
  ret: Value;
  sinks: SinkSummary[];
  /** Parameters (and implicit field parameters) this function stores into fields: a setter, a constructor. */
  fieldWrites: { key: string; facts: Fact[] }[];
}

export interface Hit {
  fact: Fact;
  rule: SinkRule;
  file: string;
  loc: Loc;
  steps: readonly TraceStep[];
}

export interface Shared {
  program: Program;
  specs: ReadonlyMap<string, LanguageSpec>;
  /** Looked up through `get` only: the engine records which summaries a function read. */
  summaries: Pick<ReadonlyMap<string, Summary>, "get">;
  /**
   * Adds source-origin facts to the repository-wide store of a field or module global
   * (flow-insensitive). Write-only: what a function gives never depends on the store.
   */
  store: (key: string, sources: Fact[]) => void;
  lines: (file: string) => readonly string[];
  onHit: (hit: Hit) => void;
  /** Each evaluation of a sink's dangerous values (sites.ts); absent where nobody asks. */
  onSite?: (
    at: { file: string; loc: Loc; rule: SinkRule },
    values: readonly Value[],
    exprs: readonly (Expr | undefined)[],
    clean?: CleanReason,
  ) => void;
  /** Keys of functions some call resolved to: the others are entry points. */
  called: Set<string>;
  /** The repository's configuration files, when the caller handed them in (config-files.ts). */
  configs?: ConfigFiles;
  /** A crypto factory given a weak algorithm that is not a literal (weak-algorithms.ts); absent where nobody asks. */
  onAlgorithm?: (use: AlgorithmUse) => void;
}

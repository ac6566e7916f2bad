/**
 * What the engine keeps from one analysis for the next in the same thread (a rescan): every
 * interpretation of every function, with the summaries it read. An interpretation depends on
 * nothing but its function's IR and file lines, the shape of the repository (classes,
 * function signatures, which fields and globals are written: what program.ts derives) and
 * the summaries it looked up — not on other functions' bodies, nor on the field store, which
 * it only adds to. Where all of these are as they were, its outcome is too: it is replayed
 * instead of run. The rounds of the fixed point are the same as without it, from the bottom;
 * nothing starts from the previous solution.
 */
import { createHash } from "node:crypto";
import type { Hit, Summary } from "./summary";
import type { FunctionIR, ModuleIR } from "./ir";
import type { FnRef, Program } from "./program";
import type { LanguageSpec } from "./spec";
import type { Fact } from "./values";
import type { SiteEvaluation } from "./sites";
import type { AlgorithmUse } from "./weak-algorithms";

/** What one interpretation of a function gave, and what it read to give it. */
export interface Interpretation {
  summary: Summary;
  /** Its hits, kept as a round's collection keeps them: per key, the first shortest. */
  hits: Map<string, Hit>;
  called: Set<string>;
  /** The summaries it looked up, by key, as they were (undefined: none yet). */
  reads: Map<string, Summary | undefined>;
  /** What it added to the field store, in order: replayed when it is. */
  stores: [string, Fact[]][];
  /** The sink places it evaluated (sites.ts). */
  sites: Map<string, SiteEvaluation>;
  /** Weak algorithms it resolved at crypto factories (weak-algorithms.ts). */
  algorithms?: Map<string, AlgorithmUse>;
}

interface KeptFunction {
  ref: FnRef;
  lines: readonly string[];
  runs: Interpretation[];
}

interface Kept {
  shape: string;
  specs: ReadonlyMap<string, LanguageSpec>;
  functions: Map<FunctionIR, KeptFunction>;
}

/** Held by the caller from one analysis to the next; only the last analysis is kept. */
export interface EngineMemo {
  last: Kept | null;
  /** How many interpretations the last analysis replayed rather than ran. */
  replayed: number;
}

export function engineMemo(): EngineMemo {
  return { last: null, replayed: 0 };
}

/** One analysis's use of the memo: looks up the last one's interpretations, records its own. */
export class Recall {
  private readonly previous: Map<FunctionIR, KeptFunction> | null;
  private readonly kept: Kept;
  private readonly cursor = new Map<FunctionIR, number>();

  constructor(
    private readonly memo: EngineMemo,
    program: Program,
    specs: ReadonlyMap<string, LanguageSpec>,
    private readonly lines: (file: string) => readonly string[],
    /** A digest of the configuration files handed in: their values are constants of the interpretations. */
    configs = "",
  ) {
    const shape = `${programShape(program)}\0${configs}`;
    const last = memo.last;
    this.previous = last && last.shape === shape && last.specs === specs ? last.functions : null;
    this.kept = { shape, specs, functions: new Map() };
    memo.replayed = 0;
  }

  /** An interpretation of the last analysis that had the same function, file and inputs. */
  find(ref: FnRef, summaries: ReadonlyMap<string, Summary>): Interpretation | undefined {
    const kept = this.previous?.get(ref.fn);
    if (!kept || kept.ref.module !== ref.module || kept.ref.key !== ref.key || kept.lines !== this.lines(ref.module.file)) return undefined;
    // Rounds go the same way as last time: the likely match is the one after the last found,
    // and trying the others first would compare summaries that differ deep inside.
    const from = this.cursor.get(ref.fn) ?? 0;
    for (let n = 0; n < kept.runs.length; n++) {
      const at = (from + n) % kept.runs.length;
      const run = kept.runs[at]!;
      if (![...run.reads].every(([key, summary]) => identical(summary, summaries.get(key)))) continue;
      this.cursor.set(ref.fn, at + 1);
      this.memo.replayed++;
      return run;
    }
    return undefined;
  }

  record(ref: FnRef, run: Interpretation): void {
    let kept = this.kept.functions.get(ref.fn);
    if (!kept) {
      kept = { ref, lines: this.lines(ref.module.file), runs: [] };
      this.kept.functions.set(ref.fn, kept);
    }
    if (!kept.runs.includes(run)) kept.runs.push(run);
  }

  /** The analysis completed: what it recorded replaces what the memo held. */
  finish(): void {
    this.memo.last = this.kept;
  }
}

/** A digest of each module's part of the shape: the text it is made from is as large as the classes' IR, and kept as long as it. */
const headers = new WeakMap<ModuleIR, string>();

const digest = (text: string) => createHash("sha256").update(text).digest("base64");

/**
 * Everything of the repository an interpreter may read besides its own function and the
 * summaries: classes with their fields and initialisers, function signatures, and what
 * program.ts derives from bodies (writes, names written through other references, module
 * globals' initial values). A module's part is kept with its IR, which a rescan reuses for
 * an unchanged file.
 */
function programShape(program: Program): string {
  const parts = program.modules.map((m) => {
    let header = headers.get(m);
    if (header === undefined) {
      // Of another function an interpreter reads its key (with the first line), never the rest
      // of its place: the top-level code's last line moves with a comment added at the end.
      header = digest(
        JSON.stringify([
          m.file,
          m.language,
          m.package,
          m.imports,
          m.exports,
          m.reexports,
          m.classes,
          m.functions.map((fn) => [fn.name, fn.cls, fn.params, fn.returns, fn.loc.line, fn.isStatic, fn.isConstructor]),
        ]),
      );
      headers.set(m, header);
    }
    return header;
  });
  parts.push(digest(JSON.stringify([[...program.writes], [...program.writtenNames], [...program.globalInit]])));
  return digest(parts.join("\n"));
}

/**
 * Deep equality of summaries and everything in them, down to the order of a set: what an
 * interpreter reads of two identical summaries is the same. Parts shared by both (facts
 * passed on from a callee's summary) are the same objects, and end the walk early.
 */
export function identical(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => identical(x, b[i]));
  if (a instanceof Set || a instanceof Map) {
    if (a.constructor !== b.constructor || a.size !== (b as typeof a).size) return false;
    const other = [...(b as Iterable<unknown>)];
    let i = 0;
    for (const x of a as Iterable<unknown>) if (!identical(x, other[i++])) return false;
    return true;
  }
  if (a instanceof RegExp) return b instanceof RegExp && String(a) === String(b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every(
    (k) => Object.prototype.hasOwnProperty.call(b, k) && identical((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/**
 * The taint analysis of a set of files: reads, lowers and analyses them all at once — flows
 * cross files, so results are not kept per file. What it keeps, per thread, is for the next
 * analysis: the lowered files (by path and content) and the engine's memo, which lets a
 * rescan replay the interpretations whose inputs did not change.
 */
import { createHash } from "node:crypto";
import { analyzeProgram, type ProgramAnalysis, type TaintTrace } from "./engine";
import type { ModuleIR } from "./ir";
import { LOWERERS, SPECS, type Lowerer } from "./languages";
import { engineMemo } from "./memo";
import type { LanguageSpec } from "./spec";

const ENGINE_REVISION = 2;

/** The files of one analysis. The analysis asks for each file's language, then its text. */
export interface AnalysisInput {
  /** Paths as they appear in traces (relative to the repository), in analysis order. */
  files: readonly string[];
  /** The language of a file (a key of the lowerers' table), or null to leave it out. */
  languageOf(file: string): string | null;
  /** The text of a file, or null to leave it out (unreadable, too large, not a regular file). */
  read(file: string): Promise<string | null>;
  /**
   * The repository's configuration files (`.properties`, `.ini`/`.cfg`/`.conf`, `.json`; path →
   * text, small ones only), whose values loads in the code resolve to (config-files.ts).
   */
  configs?(): Promise<ReadonlyMap<string, string>>;
}

/** The language tables: how each language is lowered, and its sources, sinks and sanitizers. */
export interface LanguageTables {
  lowerers: ReadonlyMap<string, Lowerer>;
  specs: ReadonlyMap<string, LanguageSpec>;
}

export const LANGUAGE_TABLES: LanguageTables = { lowerers: LOWERERS, specs: SPECS };

let version: string | undefined;
/** The engine revision and a digest of the language tables: a change to either is a new version. */
export function dataflowVersion(): string {
  version ??= `${ENGINE_REVISION} (tables ${createHash("sha256")
    .update(JSON.stringify([...SPECS.values()], (_k, v: unknown) => (v instanceof RegExp ? v.source : v)))
    .digest("hex")
    .slice(0, 12)})`;
  return version;
}

/**
 * Reads, lowers and analyses the files (in whichever thread calls it); what it lowered and
 * interpreted is kept for the next analysis in this thread.
 */
export async function analyzeFiles(
  input: AnalysisInput,
  tables: LanguageTables = LANGUAGE_TABLES,
  signal?: AbortSignal,
): Promise<TaintTrace[]> {
  return (await analyzeRepository(input, tables, signal)).traces;
}

/** As analyzeFiles, with the sink places the analysis judged and found no tainted path to (sites.ts). */
export async function analyzeRepository(
  input: AnalysisInput,
  tables: LanguageTables = LANGUAGE_TABLES,
  signal?: AbortSignal,
): Promise<ProgramAnalysis> {
  const started = generation;
  try {
    return await lowerAndAnalyze(input, tables, signal);
  } finally {
    // Forgotten while this ran: its files may be the deleted project's, and it has just
    // lowered them into the cache and left its interpretations in the memo.
    if (generation !== started) dropKept();
  }
}

async function lowerAndAnalyze(input: AnalysisInput, tables: LanguageTables, signal?: AbortSignal): Promise<ProgramAnalysis> {
  const modules: ModuleIR[] = [];
  const lines = new Map<string, string[]>();
  for (const file of input.files) {
    if (signal?.aborted) break;
    const language = input.languageOf(file);
    const lower = language ? tables.lowerers.get(language) : undefined;
    if (!lower) continue;
    const source = await input.read(file);
    if (source === null) continue;
    const lowered = lowerCached(lower, file, source);
    if (!lowered) continue;
    modules.push(lowered.module);
    lines.set(file, lowered.lines);
    // Lowering is synchronous: let timers and cancellation in between files.
    if (modules.length % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const configs = input.configs && !signal?.aborted ? await input.configs() : undefined;
  return analyzeProgram(modules, {
    specs: tables.specs,
    lines: (f) => lines.get(f) ?? [],
    memo,
    ...(signal ? { signal } : {}),
    ...(configs ? { configs } : {}),
  });
}

/**
 * The last analysis's interpretations, for the next one in this thread. It only helps with
 * the lowered files below: an unchanged file must come back as the same IR and lines.
 */
const memo = engineMemo();

interface Lowered {
  module: ModuleIR;
  lines: string[];
  bytes: number;
}

/**
 * Lowered files of the last analyses, by path and content (Map order is use order: least
 * recently used first). Lowering is half of the analysis and a rescan's files are mostly
 * unchanged; the interprocedural part, which crosses files, always runs. The IR is read-only
 * to the engine. Bounded by the source bytes it stands for.
 */
const LOWERED_CACHE_SOURCE_BYTES = 16 * 1024 * 1024;
const lowered = new Map<string, Lowered>();
let loweredBytes = 0;

/** Bumped by each forgetKeptAnalyses: an analysis that saw it change drops what it kept. */
let generation = 0;

function dropKept(): void {
  lowered.clear();
  loweredBytes = 0;
  memo.last = null;
}

/**
 * Drops the lowered files and the memo of this thread: both hold source lines of the last
 * analyses, keyed by content, not by project. The next analysis lowers and interprets every
 * file afresh, once; its traces are the same.
 */
export function forgetKeptAnalyses(): void {
  generation++;
  dropKept();
}

/** What this thread keeps from earlier analyses: lowered files, and whether a memo is held. */
export function keptAnalyses(): { files: number; memo: boolean } {
  return { files: lowered.size, memo: memo.last !== null };
}

function lowerCached(lower: Lowerer, file: string, source: string): Lowered | null {
  const key = createHash("sha256").update(file).update("\0").update(source).digest("hex");
  const hit = lowered.get(key);
  if (hit) {
    lowered.delete(key);
    lowered.set(key, hit);
    return hit;
  }
  let entry: Lowered;
  try {
    entry = { module: lower(file, source), lines: source.split("\n"), bytes: source.length };
  } catch {
    // A file the lowering cannot read contributes nothing; the others are still analysed.
    return null;
  }
  if (entry.bytes <= LOWERED_CACHE_SOURCE_BYTES / 4) {
    lowered.set(key, entry);
    loweredBytes += entry.bytes;
    for (const [k, v] of lowered) {
      if (loweredBytes <= LOWERED_CACHE_SOURCE_BYTES) break;
      lowered.delete(k);
      loweredBytes -= v.bytes;
    }
  }
  return entry;
}

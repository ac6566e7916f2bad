/**
 * The taint analysis as an analyzer of the scan: reads the Java, Python and JavaScript/
 * TypeScript files of the checkout (regular files only, bounded), lowers them and runs the
 * engine in process over all of them at once — flows cross files, so its results are not
 * cached per blob.
 */
import { createHash } from "node:crypto";
import { lstat, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { repoPath } from "../analyzers/normalize";
import { loadTaxonomy } from "../analyzers/taxonomy";
import type { Analyzer, AnalyzerContext } from "../analyzers/types";
import { languageOfExtension } from "../languages";
import { analyzeModules, DATAFLOW } from "./engine";
import type { ModuleIR } from "./ir";
import { LOWERERS, SPECS } from "./languages";

/** Larger files are generated or data more often than code, and cost the most to walk. */
const MAX_FILE_BYTES = 512 * 1024;
const ENGINE_REVISION = 1;

export const DATAFLOW_LANGUAGES = ["java", "python", "javascript", "typescript"] as const;

export function dataflowAnalyzer(): Analyzer {
  return {
    name: DATAFLOW,
    languages: [...DATAFLOW_LANGUAGES],
    cacheable: false,
    version: () => Promise.resolve(dataflowVersion()),
    run: (ctx) => runDataflow(ctx),
  };
}

let version: string | undefined;
/** The engine revision and a digest of the language tables: a change to either is a new version. */
export function dataflowVersion(): string {
  version ??= `${ENGINE_REVISION} (tables ${createHash("sha256")
    .update(JSON.stringify([...SPECS.values()], (_k, v: unknown) => (v instanceof RegExp ? v.source : v)))
    .digest("hex")
    .slice(0, 12)})`;
  return version;
}

async function runDataflow(ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const modules: ModuleIR[] = [];
  const lines = new Map<string, string[]>();
  for (const file of ctx.files) {
    if (ctx.signal.aborted) break;
    const language = languageOfExtension(extname(file).toLowerCase());
    const lower = language ? LOWERERS.get(language) : undefined;
    if (!lower) continue;
    const source = await readBounded(ctx.dir, file);
    if (source === null) continue;
    try {
      modules.push(lower(file, source));
      lines.set(file, source.split("\n"));
    } catch {
      // A file the lowering cannot read contributes nothing; the others are still analysed.
    }
    // Lowering is synchronous: let timers and cancellation in between files.
    if (modules.length % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const taxonomy = await loadTaxonomy();
  return analyzeModules(modules, { specs: SPECS, lines: (f) => lines.get(f) ?? [], taxonomy, signal: ctx.signal });
}

async function readBounded(dir: string, file: string): Promise<string | null> {
  if (repoPath(file) !== file) return null;
  const full = join(dir, file);
  try {
    const info = await lstat(full);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
    return (await readFile(full)).toString("utf8");
  } catch {
    return null;
  }
}

/**
 * cppcheck (C/C++): a semantic analyzer (value flow, leaks, bounds) with few false positives.
 * `cppcheck --xml --xml-version=2 -q --enable=warning,style,portability --file-list=<scratch>
 * -j N --cppcheck-build-dir=<scratch> --suppress=missingIncludeSystem …`; results are XML on
 * stderr. The build dir is what keeps whole-program (CTU) checks on under -j.
 *
 * Precision over volume, measured on CASTLE C250 (README.md): errors, warnings and
 * portability hits landed on flaw lines with no finding in the safe programs; `style` added
 * two hits and thirty false positives (variableScope, unreadVariable, constParameter), so only
 * the style checks in SECURITY_STYLE are kept; `performance` and `information` never are;
 * `--inconclusive` changed nothing there and is off. Not cacheable: a file's findings depend
 * on the headers it includes and on whole-program (CTU) analysis.
 */
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Level, NormalizedFinding, Severity } from "@ax/contracts";
import { correctionReason, cweTableDigest, normalizeCwe } from "./cwe-normalize";
import { finishRun, memoVersion, runTool, toolVersion } from "./exec";
import { withKeptDir } from "./kept-state";
import { buildFinding } from "./finding";
import { cap, cweId, int, repoPath } from "./normalize";
import { SourceFiles } from "./source";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import type { Analyzer, AnalyzerContext } from "./types";

export const CPPCHECK = "cppcheck";
const MAPPING_REVISION = 1;

export interface CppcheckOptions {
  binary?: string;
}

/** Style checks that find security bugs: a bounds or error check that can never fire. */
const SECURITY_STYLE = new Set(["unsignedLessThanZero", "pointerLessThanZero", "pointerPositive"]);
/** Reports about cppcheck itself or its configuration, not about the code. */
const NOT_FINDINGS = new Set([
  "syntaxError",
  "internalAstError",
  "unknownMacro",
  "cppcheckError",
  "internalError",
  "preprocessorErrorDirective",
  "noValidConfiguration",
  "toomanyconfigs",
  "missingInclude",
  "missingIncludeSystem",
  "unmatchedSuppression",
  "purgedConfiguration",
  "checkersReport",
  "normalCheckLevelMaxBranches",
  "checkLevelNormal",
  "ctuinfo",
  "instantiationError",
  "syntaxErrorTemplate",
  "bailoutUninitVar",
]);
/** Leaks exhaust resources; they do not corrupt memory: one step below other errors. */
const LEAKS = new Set([
  "memleak",
  "resourceLeak",
  "memleakOnRealloc",
  "leakReturnValNotUsed",
  "leakNoVarFunctionCall",
  "leakUnsafeArgAlloc",
  "publicAllocationError",
]);

const SEVERITY: Record<string, Severity> = { error: "HIGH", warning: "MEDIUM", portability: "LOW", style: "LOW" };
const CONFIDENCE: Record<string, Level> = { error: "HIGH", warning: "MEDIUM", portability: "MEDIUM", style: "MEDIUM" };

const BOUNDS = "Check the index or length against the buffer's size before the access; prefer size-aware APIs.";
const REMEDIATION: Record<string, string> = {
  arrayIndexOutOfBounds: BOUNDS,
  arrayIndexOutOfBoundsCond: BOUNDS,
  bufferAccessOutOfBounds: BOUNDS,
  ctuArrayIndex: BOUNDS,
  negativeIndex: "Make sure the index cannot be negative before indexing (check the computation and the signedness of its type).",
  nullPointer: "Check the pointer for NULL before dereferencing it, or make the earlier code guarantee it is set.",
  nullPointerRedundantCheck: "The code checks the pointer for NULL and dereferences it anyway: dereference only on the checked path.",
  uninitvar: "Initialize the variable before it is read.",
  doubleFree: "Free each allocation once; set the pointer to NULL after free().",
  deallocuse: "Do not use memory after it was freed; end the pointer's use before free() or set it to NULL.",
  memleak: "Free the allocation on every path (including error paths) or hand ownership to a caller that frees it.",
  resourceLeak: "Close the file or handle on every path, including error paths.",
  zerodiv: "Check the divisor for zero before dividing.",
  integerOverflow: "Check the operands' range before the arithmetic, or use a wider type or checked arithmetic builtins.",
  invalidscanf: "Give every %s a field width (e.g. %63s for a 64-byte buffer), or read with fgets().",
  mismatchAllocDealloc: "Release memory with the function that matches its allocation (malloc/free, new/delete, new[]/delete[]).",
  returnDanglingLifetime: "Do not return pointers or references to local variables; return by value or allocate.",
  autoVariables: "Do not keep the address of a local variable beyond its scope.",
};

/** What cppcheck checks and ignores (part of the kept build directory's name). */
const CHECK_OPTIONS = [
  "--enable=warning,style,portability",
  "--suppress=missingIncludeSystem",
  "--suppress=missingInclude",
  "--suppress=unmatchedSuppression",
  "--suppress=checkersReport",
];

export function cppcheckAnalyzer(opts: CppcheckOptions = {}): Analyzer {
  const binary = opts.binary ?? "cppcheck";
  const version = memoVersion(async () => {
    const v = await toolVersion(binary, ["--version"], /Cppcheck\s+(\S+)/i);
    return v ? `${v} (mapping ${MAPPING_REVISION}.${cweTableDigest(CPPCHECK)})` : null;
  });
  return {
    name: CPPCHECK,
    languages: ["c", "cpp"],
    cacheable: false,
    version,
    async run(ctx) {
      const taxonomy = await loadTaxonomy();
      // One path per line; a name containing a line break cannot be listed and goes on the command line.
      const listable = ctx.files.filter((f) => !/[\r\n]/.test(f));
      const odd = ctx.files.filter((f) => /[\r\n]/.test(f)).map((f) => `./${f}`);
      const fileList = join(ctx.scratchDir, "cppcheck-files.txt");
      await writeFile(fileList, listable.map((f) => `${f}\n`).join(""));
      const threads = ctx.threads && ctx.threads > 0 ? ctx.threads : availableParallelism();
      const threadsArg = `-j${Math.max(1, Math.min(threads, 64))}`;
      // With -j, whole-program (CTU) checks need a build dir; without one they silently don't
      // run. Kept between scans of the project (ctx.stateDir), it also makes cppcheck re-analyse
      // only the files whose content changed. Its name carries the version and the options.
      const stateName = `cppcheck-build-${createHash("sha256")
        .update(JSON.stringify([await version(), CHECK_OPTIONS]))
        .digest("hex")
        .slice(0, 16)}`;
      const out = await withKeptDir({ stateDir: ctx.stateDir, name: stateName, scratchDir: ctx.scratchDir }, (buildDir) =>
        runTool(ctx, { tool: CPPCHECK, binary, resultStream: "stderr" }, [
          "--xml",
          "--xml-version=2",
          "-q",
          `--file-list=${fileList}`,
          threadsArg,
          `--cppcheck-build-dir=${buildDir}`,
          ...CHECK_OPTIONS,
          ...odd,
        ]),
      );
      const errors = parseCppcheckXml(out.output);
      const findings = await toFindings(ctx, errors, taxonomy);
      return finishRun(ctx, CPPCHECK, findings, out.truncated);
    },
  };
}

export interface CppcheckLocation {
  file: string;
  line: number;
  column: number;
  info: string | null;
}

export interface CppcheckError {
  attrs: Record<string, string>;
  locations: CppcheckLocation[];
  symbols: string[];
}

const TAG = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
const ATTR = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/**
 * cppcheck's XML v2 → its <error> elements. A small tokenizer (tags, attributes, the text of
 * <symbol>) is enough for this fixed, flat format; output cut at the cap keeps every error
 * whose closing tag arrived.
 */
export function parseCppcheckXml(xml: string): CppcheckError[] {
  const errors: CppcheckError[] = [];
  let current: CppcheckError | null = null;
  let symbolStart = -1;
  for (const m of xml.matchAll(TAG)) {
    const [whole, closing, name, attrText, selfClosing] = m;
    const at = m.index ?? 0;
    if (name === "error") {
      if (closing) {
        if (current) errors.push(current);
        current = null;
      } else {
        current = { attrs: attributes(attrText ?? ""), locations: [], symbols: [] };
        if (selfClosing) {
          errors.push(current);
          current = null;
        }
      }
    } else if (name === "location" && current && !closing) {
      const a = attributes(attrText ?? "");
      const line = int(a.line);
      if (a.file && line !== null) current.locations.push({ file: a.file, line, column: int(a.column) ?? 1, info: a.info ?? null });
    } else if (name === "symbol" && current) {
      if (!closing) symbolStart = at + whole.length;
      else if (symbolStart >= 0) {
        current.symbols.push(decodeEntities(xml.slice(symbolStart, at)).trim());
        symbolStart = -1;
      }
    }
  }
  return errors;
}

function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(ATTR)) out[m[1] as string] = decodeEntities(m[2] ?? m[3] ?? "");
  return out;
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, e: string) => {
    const lower = e.toLowerCase();
    if (lower.startsWith("#x")) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith("#")) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" } as Record<string, string>)[lower] ?? "";
  });
}

async function toFindings(ctx: AnalyzerContext, errors: CppcheckError[], taxonomy: Taxonomy): Promise<NormalizedFinding[]> {
  const wanted = new Set(ctx.files);
  const sources = new SourceFiles(ctx.dir);
  const findings: NormalizedFinding[] = [];
  for (const e of errors) {
    const f = await cppcheckFinding(e, wanted, sources, taxonomy, ctx.dir);
    if (f) findings.push(f);
  }
  return findings;
}

/** One <error> → a finding, or null for noise, tool diagnostics and places outside the selection. */
export async function cppcheckFinding(
  e: CppcheckError,
  files: ReadonlySet<string>,
  sources: SourceFiles,
  taxonomy: Taxonomy,
  dir?: string,
): Promise<NormalizedFinding | null> {
  const id = e.attrs.id ?? "";
  const sev = e.attrs.severity ?? "";
  if (!/^[\w:.-]{1,100}$/.test(id) || NOT_FINDINGS.has(id) || !(sev in SEVERITY)) return null;
  if (sev === "style" && !SECURITY_STYLE.has(id)) return null;
  // The primary location is the first; for a cross-file finding (a header and its call
  // site), the first one inside the files this scan selected.
  const located = e.locations
    .map((l) => ({ ...l, file: repoPath(l.file, dir) }))
    .filter((l): l is CppcheckLocation => l.file !== null && files.has(l.file));
  const primary = located[0];
  if (!primary || primary.line < 1) return null;
  const source = await sources.get(primary.file);
  const lineText = source?.lines[primary.line - 1] ?? "";
  const token = /^(?:[A-Za-z_]\w*|\S)/.exec([...lineText].slice(primary.column - 1).join(""))?.[0] ?? "";
  const reported = cweId(e.attrs.cwe);
  const cwe = normalizeCwe(CPPCHECK, id, reported);
  const inconclusive = e.attrs.inconclusive === "true";
  const baseSeverity = SEVERITY[sev] as Severity;
  return buildFinding(
    {
      analyzer: CPPCHECK,
      rule_id: `${CPPCHECK}.${id}`,
      title: humanize(id),
      message: e.attrs.msg || humanize(id),
      cwe_id: cwe,
      file: primary.file,
      start_line: primary.line,
      start_column: primary.column,
      end_column: primary.column + [...token].length,
      snippet: source?.snippet(primary.line) ?? "",
      severity: LEAKS.has(id) && baseSeverity === "HIGH" ? "MEDIUM" : baseSeverity,
      confidence: inconclusive ? "LOW" : (CONFIDENCE[sev] as Level),
      remediation:
        REMEDIATION[id] ??
        (id.startsWith("invalidPrintfArgType") || id.startsWith("invalidScanfArgType")
          ? "Make the argument's type match its conversion specifier."
          : null),
      raw: {
        id,
        severity: sev,
        cwe: reported,
        ...(correctionReason(CPPCHECK, id) ? { cwe_normalized: { from: reported, to: cwe, why: correctionReason(CPPCHECK, id) } } : {}),
        ...(e.attrs.verbose && e.attrs.verbose !== e.attrs.msg ? { verbose: cap(e.attrs.verbose, 2000) } : {}),
        inconclusive,
        locations: e.locations.slice(0, 10).map((l) => ({ file: repoPath(l.file, dir), line: l.line, column: l.column, info: l.info })),
        symbols: e.symbols.slice(0, 10),
      },
    },
    taxonomy,
  );
}

/** bufferAccessOutOfBounds → "Buffer access out of bounds". */
function humanize(id: string): string {
  const words = id
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

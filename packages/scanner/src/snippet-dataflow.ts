/**
 * The taint analysis on a bare snippet (`POST /ai/review` without a finding): the snippet is
 * analysed in memory as a one-file program and the sink place it is about gets the verdict a
 * scan would give a finding there — confirmed with its trace, refuted (judged clean),
 * unconfirmed (open, or a covered weakness at a call the analysis did not judge) — or none
 * when the analysis does not model the weakness in that language.
 *
 * The snippet is untrusted input: it is never written to disk, its size is bounded by the
 * caller (MAX_CODE_BYTES), and the engine stops at a time limit. Nothing of it is kept: the
 * lowering and the engine's memo of scans (analysis.ts) are not used.
 */
import { extname } from "node:path";
import type { TraceStep } from "@ax/contracts";
import { LOWERERS, SPECS, analyzeProgram, parseSource, type ProgramAnalysis, type SinkSite, type TaintTrace } from "@ax/dataflow";
import { CLEAN_WORDS, OPEN_WORDS, covered, familyOf } from "./dataflow-verdicts";
import { languageOfExtension } from "./languages";

export type SnippetLanguage = "java" | "python" | "javascript" | "typescript";

export interface SnippetInput {
  code: string;
  /** The snippet's file as the caller names it (its extension gives the language). */
  file?: string | null | undefined;
  cwe_id?: string | null | undefined;
  /** The line (`"42"` or `"42-45"`) in the snippet the review is about. */
  line?: string | null | undefined;
}

/** What a scan would know of a finding at the snippet's sink (FindingFacts of @ax/ai's evidence). */
export interface SnippetFacts {
  analyzer: string;
  rule_id: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  end_line: number;
  snippet: string;
  confidence: null;
  dataflow: {
    status: "confirmed" | "unconfirmed" | "refuted";
    reason: string | null;
    source_kind: "remote" | "local" | null;
    trace: TraceStep[];
  } | null;
}

export interface SnippetOptions {
  /** Default 2 s: the engine stops between functions once it is over. */
  timeLimitMs?: number;
  /** Also stops the engine (the request went away). */
  signal?: AbortSignal;
}

export const SNIPPET_TIME_LIMIT_MS = 2000;

/** The file name the snippet is analysed under (and named by, when the caller gave none). */
const SNIPPET_FILES: Record<SnippetLanguage, string> = {
  java: "Snippet.java",
  python: "snippet.py",
  javascript: "snippet.js",
  typescript: "snippet.ts",
};

/**
 * The taint analysis's verdict on the snippet's sink; null when it could not run (the time
 * limit, an error): then the review goes without evidence rather than with a wrong one.
 */
export function snippetDataflowFacts(input: SnippetInput, opts: SnippetOptions = {}): SnippetFacts | null {
  try {
    return judgeSnippet(input, opts);
  } catch {
    return null;
  }
}

function judgeSnippet(input: SnippetInput, opts: SnippetOptions): SnippetFacts {
  const language = snippetLanguage(input.code, input.file ?? undefined);
  const lines = input.code.split("\n");
  const file = input.file || (language ? SNIPPET_FILES[language] : "");
  const cwe = input.cwe_id ?? null;
  const range = lineRange(input.line, lines.length);
  const base = { analyzer: "review", rule_id: "snippet", cwe_id: cwe, file, confidence: null } as const;
  const at = range?.[0] ?? 1;
  const plain: SnippetFacts = { ...base, start_line: at, end_line: range?.[1] ?? at, snippet: lines[at - 1]?.trim() ?? "", dataflow: null };
  if (!language) return plain;
  const analysis = analyzeSnippet(language, input.code, opts);
  const chosen = nearest(candidates(analysis, cwe ? familyOf(cwe) : null), range);
  if (!chosen) {
    if (!cwe || !covered(language === "typescript" ? "javascript" : language).has(cwe)) return plain;
    const reason = parses(language, input.code)
      ? "The taint analysis did not judge a sink call at this place."
      : "The taint analysis could not read this code: it does not parse.";
    return { ...plain, dataflow: { status: "unconfirmed", reason, source_kind: null, trace: [] } };
  }
  // Only a traced path is the taint analysis's own finding (as in a scan, where a refuted or
  // unconfirmed place is a pattern rule's finding): the review model reads the rule's record
  // by this name, and the taint rules' record is that of confirmed traces.
  const own = chosen.status === "confirmed" ? { analyzer: "dataflow", rule_id: chosen.rule_id } : {};
  return {
    ...base,
    ...own,
    start_line: chosen.start_line,
    end_line: chosen.end_line,
    snippet: lines[chosen.start_line - 1]?.trim() ?? "",
    dataflow: verdictOf(chosen, file),
  };
}

/** The language of the snippet: its file's extension, else a guess from the code; null for one the analysis does not read. */
export function snippetLanguage(code: string, file?: string): SnippetLanguage | null {
  const ext = file ? extname(file).toLowerCase() : "";
  const byExt = ext ? languageOfExtension(ext) : null;
  if (byExt) return isSnippetLanguage(byExt) ? byExt : null;
  return guessLanguage(code);
}

function isSnippetLanguage(l: string): l is SnippetLanguage {
  return l === "java" || l === "python" || l === "javascript" || l === "typescript";
}

/** Signs of each language, each worth a point; the language with most (at least 2) wins. */
const SIGNS: Record<SnippetLanguage, readonly RegExp[]> = {
  java: [
    /\b(public|private|protected) +(static +)?(final +)?[\w<>[\],]+ +\w+ *\(/,
    /\b(String|int|long|boolean|void) +\w+ *[=;(,)]/,
    /@(Get|Post|Put|Delete|Request)Mapping\b|@RequestParam\b|@Override\b|\bHttpServletRequest\b/,
    /\bnew +[A-Z]\w*(<[\w<>, ?]*>)? *\(/,
    /\bSystem\.\w+|\bthrows +\w+/,
    /;[ \t]*$/m,
  ],
  python: [
    /^[ \t]*def +\w+ *\([^)\n]*\) *(-> *[^:\n]+)?:[ \t]*$/m,
    /^[ \t]*(from +[\w.]+ +)?import +[\w.]+( +as +\w+)?[ \t]*$/m,
    /^[ \t]*@[\w.]+(\([^\n]*\))?[ \t]*$/m,
    /^[ \t]*(if|elif|for|while|with|try|except|else)\b[^;{\n]*:[ \t]*$/m,
    /\b(self|None|True|False)\b|\bf["']/,
  ],
  javascript: [
    /\b(const|let|var) +[\w{[]/,
    /=>/,
    /\bfunction\b *\w* *\(/,
    /\b(require *\(|module\.exports|export +(default|const|function)|import +[^\n]+ +from +["'])/,
    /\b(app|router)\.(get|post|put|delete|use) *\(|\b(req|res)\.\w+/,
    /\bawait\b|===|!==/,
  ],
  typescript: [/: *(string|number|boolean|any|unknown|Request|Response)\b/, /\binterface +\w+ *\{|\btype +\w+ *=/, /\bas +\w+/],
};

/** The guess reads the start of the snippet only: it is cheap whatever the snippet holds. */
const GUESS_CHARS = 8 * 1024;

function guessLanguage(code: string): SnippetLanguage | null {
  const head = code.slice(0, GUESS_CHARS);
  const score = (l: SnippetLanguage) => SIGNS[l].filter((re) => re.test(head)).length;
  const java = score("java");
  const python = score("python");
  const js = score("javascript");
  const ts = js + score("typescript");
  const best = Math.max(java, python, js);
  if (best < 2) return null;
  if (js === best && js > java && js > python) return score("typescript") >= 2 ? "typescript" : "javascript";
  if (java === best && java > python && java >= ts) return "java";
  if (python === best && python > java) return "python";
  return null;
}

/** `"42"` or `"42-45"`, when it falls in the snippet. */
function lineRange(line: string | null | undefined, count: number): [number, number] | null {
  const m = /^\s*(\d{1,7})\s*(?:-\s*(\d{1,7}))?\s*$/.exec(line ?? "");
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] ? Math.max(start, Number(m[2])) : start;
  return start >= 1 && start <= count ? [start, Math.min(end, count)] : null;
}

/**
 * Lowers and analyses the snippet as a one-file program. A Java method or a run of statements
 * is wrapped in a class (and a method), on the snippet's first line so the lines stay the same.
 */
function analyzeSnippet(language: SnippetLanguage, code: string, opts: SnippetOptions): ProgramAnalysis {
  const signal = deadline(opts.timeLimitMs ?? SNIPPET_TIME_LIMIT_MS, opts.signal);
  const source = language === "java" ? wrapJava(code) : language === "python" ? dedent(code) : code;
  const file = SNIPPET_FILES[language];
  const module = LOWERERS.get(language)!(file, source);
  const lines = source.split("\n");
  return analyzeProgram([module], { specs: SPECS, lines: () => lines, signal });
}

const JAVA_TYPES = new Set([
  "class_declaration",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "annotation_type_declaration",
]);
const JAVA_MEMBERS = new Set(["method_declaration", "constructor_declaration", "field_declaration"]);

const JAVA_WRAPPER = /^class Snippet \{ (void snippet\(\) throws Exception \{ )?/;

/** A compilation unit stays as it is; methods go in a class; statements in a method of a class. */
export function wrapJava(code: string): string {
  const kinds = parseSource("java", code)
    .root()
    .children()
    .filter((n) => n.isNamed())
    .map((n) => n.kind() as string);
  if (kinds.some((k) => JAVA_TYPES.has(k))) return code;
  if (kinds.some((k) => JAVA_MEMBERS.has(k))) return `class Snippet { ${code}\n}`;
  return `class Snippet { void snippet() throws Exception { ${code}\n} }`;
}

/** Tree-sitter reads anything; a snippet with a syntax error holds code the lowering skipped. */
function parses(language: SnippetLanguage, code: string): boolean {
  const source = language === "java" ? wrapJava(code) : language === "python" ? dedent(code) : code;
  return !parseSource(language, source)
    .root()
    .find({ rule: { kind: "ERROR" } });
}

/** Python code cut out of a class or a block keeps its indentation: remove what all lines share. */
function dedent(code: string): string {
  const indents = code
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return cut ? code.replace(new RegExp(`^[ \\t]{0,${cut}}`, "gm"), "") : code;
}

/**
 * The engine runs synchronously and reads `signal.aborted` between functions, so a timer
 * could not fire meanwhile: this signal reads the clock each time it is asked.
 */
function deadline(ms: number, outer?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const end = performance.now() + ms;
  return new Proxy(controller.signal, {
    get(target, prop) {
      if (prop === "aborted" && !target.aborted && (outer?.aborted || performance.now() > end))
        controller.abort(new Error(outer?.aborted ? "the request was cancelled" : `the snippet analysis took over ${ms} ms`));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type Status = "confirmed" | "unconfirmed" | "refuted";
interface Candidate {
  status: Status;
  rule_id: string;
  start_line: number;
  end_line: number;
  trace?: TaintTrace;
  site?: SinkSite;
}

/** The traces and judged sink places of the weakness's family (any weakness when none is named). */
function candidates(analysis: ProgramAnalysis, family: Set<string> | null): Candidate[] {
  const inFamily = (cwe: string) => !family || family.has(cwe);
  return [
    ...analysis.traces
      .filter((t) => inFamily(t.cwe_id))
      .map((t): Candidate => ({ status: "confirmed", rule_id: t.rule_id, start_line: t.start_line, end_line: t.end_line, trace: t })),
    ...analysis.sites
      .filter((s) => inFamily(s.cwe_id))
      .map((s): Candidate => ({
        status: s.status === "open" ? "unconfirmed" : "refuted",
        rule_id: s.rule_id,
        start_line: s.start_line,
        end_line: s.end_line,
        site: s,
      })),
  ];
}

const RANK: Record<Status, number> = { confirmed: 0, unconfirmed: 1, refuted: 2 };

/** The candidate nearest the line (any when none is given); at equal distance a trace first, then an open place. */
function nearest(list: readonly Candidate[], range: [number, number] | null): Candidate | null {
  const distance = (c: Candidate) =>
    !range ? 0 : c.end_line < range[0] ? range[0] - c.end_line : c.start_line > range[1] ? c.start_line - range[1] : 0;
  const sorted = [...list].sort((a, b) => distance(a) - distance(b) || RANK[a.status] - RANK[b.status] || a.start_line - b.start_line);
  return sorted[0] ?? null;
}

/** The verdict in the words a scan gives a finding (dataflow-verdicts.ts), the trace named by the caller's file. */
function verdictOf(c: Candidate, file: string): NonNullable<SnippetFacts["dataflow"]> {
  if (c.trace) {
    const { dataflow } = c.trace;
    return {
      status: "confirmed",
      reason: null,
      source_kind: dataflow.source_kind,
      trace: dataflow.trace.map((s) => ({ ...s, file, code: s.code.replace(JAVA_WRAPPER, "") })),
    };
  }
  const reasons = c.site?.reasons ?? [];
  if (c.status === "unconfirmed") {
    const why = reasons.map((r) => OPEN_WORDS[r] ?? r).join("; ");
    return { status: "unconfirmed", reason: `No untrusted source was traced here, but ${why}.`, source_kind: null, trace: [] };
  }
  const why = reasons.map((r) => CLEAN_WORDS[r] ?? r).join("; ");
  return { status: "refuted", reason: `The taint analysis judged this sink (${c.rule_id}): ${why}.`, source_kind: null, trace: [] };
}

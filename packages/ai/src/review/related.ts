/**
 * The code a review needs beyond the enclosing function: whether the data reaching a sink
 * is attacker-controlled is often decided by a caller (`sink(String data)` is called with
 * `data = "foo"` in one place and `data = request.getParameter(…)` in another) or by a helper
 * the function calls (`data = source()`). So the review input is the enclosing function plus
 * its callers, a few levels up, and the functions it calls — looked up by name among the
 * source files of the same directory, the cheap approximation of a call graph that works
 * without building the project.
 *
 * A call site in another file counts only when that file names the callee's file stem
 * (`new Foo_54b()` for Foo_54b.java) or the language has no classes to disambiguate (C):
 * a method name alone (`run`, `sink`) says too little about which definition is meant.
 */
import { posix } from "node:path";
import { codeContext, type CodeContext } from "./context";

export interface SourceReader {
  /** Lines of a repository-relative file, or null when it cannot be read. */
  lines(file: string): Promise<readonly string[] | null>;
  /** Repository-relative source files in the directory of `file` (itself included). */
  siblings(file: string): Promise<readonly string[]>;
}

export interface RelatedOptions {
  /** Levels of callers followed upwards. */
  callerDepth?: number;
  /** Callers kept per function. */
  callersPerFunction?: number;
  /** Called functions included. */
  callees?: number;
  /** Lines of the whole review input. */
  maxLines?: number;
}

const CALL = /(?:^|[^\w$.])([A-Za-z_$][\w$]*)\s*\(|\.([A-Za-z_$][\w$]*)\s*\(/g;
const KEYWORDS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "sizeof",
  "new",
  "synchronized",
  "super",
  "this",
  "typeof",
  "throw",
  "assert",
  "print",
  "printf",
  "println",
  "malloc",
  "free",
  "strlen",
  "memset",
  "memcpy",
  "strcpy",
  "exit",
]);
const CLASS_LANGUAGES = /\.(java|kt|cs|scala|groovy|php|rb|py|js|jsx|ts|tsx|cpp|cc|cxx|hpp)$/i;

interface Block {
  file: string;
  ctx: CodeContext;
}

interface Occurrence {
  file: string;
  /** 0-based line index. */
  line: number;
}

interface DirectoryIndex {
  /** name → lines that call it (not its definitions). */
  calls: Map<string, Occurrence[]>;
  /** name → lines that look like its definition's header. */
  definitions: Map<string, Occurrence[]>;
  /** file stem → files of the directory that mention it as an identifier. */
  mentions: Map<string, Set<string>>;
}

const key = (b: Block) => `${b.file}:${b.ctx.startLine}`;
const stem = (file: string) => posix.basename(file).replace(/\.[^.]+$/, "");
/** Per name and directory: bounds the work of one lookup whatever the repository holds. */
const MAX_OCCURRENCES = 400;
/** Candidates examined per lookup. */
const MAX_EXAMINED = 200;
const IDENT = /[A-Za-z_$][\w$]*/g;
/** A line that may be a definition header: a parameter list closing the line (no `;`). */
const HEADER_SHAPE = /\)\s*(?:const\s*)?(?:throws\s+[\w.,\s]+)?(?:->\s*[^:{]+)?[{:]?\s*$/;
const NOT_HEADER = /^\s*(return|if|while|for|else|switch|catch)\b|^\s*[\w$.[\]]+\s*=[^=]|;\s*$/;

/**
 * Every `name(` of the source files of one directory, read once and split into calls and
 * definition headers, plus which files mention which file stems: a finding's lookups are
 * then map hits, and each is bounded, however many files the directory has.
 */
export class RelatedIndex {
  private readonly dirs = new Map<string, Promise<DirectoryIndex>>();
  private readonly contexts = new Map<string, CodeContext>();

  constructor(readonly reader: SourceReader) {}

  /** codeContext of one line, remembered: callers are shared by many findings. */
  async context(file: string, line: number): Promise<CodeContext | null> {
    const k = `${file}:${line}`;
    const hit = this.contexts.get(k);
    if (hit) return hit;
    const lines = await this.reader.lines(file);
    if (!lines) return null;
    const ctx = codeContext(lines, line, line, file);
    this.contexts.set(k, ctx);
    return ctx;
  }

  directory(file: string): Promise<DirectoryIndex> {
    const dir = posix.dirname(file);
    let hit = this.dirs.get(dir);
    if (!hit) {
      hit = this.build(file);
      this.dirs.set(dir, hit);
    }
    return hit;
  }

  private async build(file: string): Promise<DirectoryIndex> {
    const index: DirectoryIndex = { calls: new Map(), definitions: new Map(), mentions: new Map() };
    const files = await this.reader.siblings(file);
    const stems = new Set(files.map(stem));
    const add = (map: Map<string, Occurrence[]>, name: string, o: Occurrence) => {
      let list = map.get(name);
      if (!list) map.set(name, (list = []));
      if (list.length < MAX_OCCURRENCES) list.push(o);
    };
    for (const f of files) {
      const lines = await this.reader.lines(f);
      if (!lines) continue;
      const own = stem(f);
      lines.forEach((text, line) => {
        for (const m of text.matchAll(CALL)) {
          const name = m[1] ?? m[2];
          if (!name || KEYWORDS.has(name)) continue;
          const isHeader =
            m[1] !== undefined &&
            HEADER_SHAPE.test(text) &&
            !NOT_HEADER.test(text) &&
            !/\bnew\s+$/.test(text.slice(0, m.index + m[0].indexOf(name)));
          add(isHeader ? index.definitions : index.calls, name, { file: f, line });
        }
        for (const m of text.matchAll(IDENT)) {
          if (m[0] !== own && stems.has(m[0])) {
            let set = index.mentions.get(m[0]);
            if (!set) index.mentions.set(m[0], (set = new Set()));
            set.add(f);
          }
        }
      });
    }
    return index;
  }
}

/** Same file first: the likeliest place for a helper or a caller. */
function nearFirst(list: readonly Occurrence[], file: string): Occurrence[] {
  return [...list.filter((o) => o.file === file), ...list.filter((o) => o.file !== file)].slice(0, MAX_EXAMINED);
}

/** Blocks whose code calls `name`: same file first, then siblings that name the callee's file. */
async function callersOf(index: RelatedIndex, name: string, calleeFile: string, limit: number): Promise<Block[]> {
  const dir = await index.directory(calleeFile);
  const mentioning = dir.mentions.get(stem(calleeFile));
  const candidates = (dir.calls.get(name) ?? []).filter(
    (o) => o.file === calleeFile || !CLASS_LANGUAGES.test(calleeFile) || mentioning?.has(o.file),
  );
  const found: Block[] = [];
  for (const o of nearFirst(candidates, calleeFile)) {
    if (found.length >= limit) break;
    const ctx = await index.context(o.file, o.line + 1);
    if (!ctx) continue;
    // The definition's own header is not a call, nor is recursion; a same-named method of
    // another class is a caller (Juliet chains `goodG2BSink` through five classes).
    if (ctx.how !== "function" || ctx.startLine === o.line + 1 || (ctx.name === name && o.file === calleeFile)) continue;
    if (found.some((b) => key(b) === `${o.file}:${ctx.startLine}`)) continue;
    found.push({ file: o.file, ctx });
  }
  return found;
}

/** The definition of `name` near `fromFile`, as a block. */
async function definitionOf(index: RelatedIndex, name: string, fromFile: string): Promise<Block | null> {
  const dir = await index.directory(fromFile);
  for (const o of nearFirst(dir.definitions.get(name) ?? [], fromFile)) {
    const lines = await index.reader.lines(o.file);
    if (!lines) continue;
    const ctx = await index.context(o.file, Math.min(lines.length, o.line + 2));
    if (ctx && ctx.how === "function" && ctx.name === name && ctx.startLine <= o.line + 1) return { file: o.file, ctx };
  }
  return null;
}

/**
 * The review input for a finding: callers (outermost first), the enclosing function, then the
 * functions it calls; separated by blank lines and capped.
 */
export async function reviewCode(
  index: RelatedIndex,
  file: string,
  startLine: number,
  endLine: number,
  opts: RelatedOptions = {},
): Promise<string> {
  const lines = await index.reader.lines(file);
  if (!lines) return "";
  const main: Block = { file, ctx: codeContext(lines, startLine, endLine, file) };
  const seen = new Set([key(main)]);
  const callers: Block[] = [];
  let frontier: Block[] = [main];
  for (let depth = 0; depth < (opts.callerDepth ?? 4) && frontier.length > 0; depth++) {
    const next: Block[] = [];
    for (const b of frontier) {
      if (!b.ctx.name) continue;
      for (const c of await callersOf(index, b.ctx.name, b.file, opts.callersPerFunction ?? 2)) {
        if (seen.has(key(c))) continue;
        seen.add(key(c));
        next.push(c);
      }
    }
    callers.unshift(...next);
    frontier = next;
  }
  const callees: Block[] = [];
  const called = new Set<string>();
  for (const m of main.ctx.code.matchAll(CALL)) {
    const name = m[1] ?? m[2];
    if (name && !KEYWORDS.has(name) && name !== main.ctx.name) called.add(name);
  }
  for (const name of called) {
    if (callees.length >= (opts.callees ?? 3)) break;
    const d = await definitionOf(index, name, file);
    if (d && !seen.has(key(d))) {
      seen.add(key(d));
      callees.push(d);
    }
  }
  const maxLines = opts.maxLines ?? 300;
  const parts = [...callers, ...callees].map((b) => b.ctx.code.split("\n").slice(0, 60).join("\n"));
  const out: string[] = [];
  let budget = maxLines - main.ctx.code.split("\n").length;
  for (const p of parts) {
    const n = p.split("\n").length + 1;
    if (n > budget) break;
    out.push(p);
    budget -= n;
  }
  // The enclosing function last: its lines are the ones the finding is about.
  return [...out, main.ctx.code].join("\n\n");
}

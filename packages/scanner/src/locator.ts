/**
 * What identifies a finding when git's line mapping cannot place it in the next commit (its
 * line was reformatted, its function moved to another file, the earlier commit is gone): the
 * matched code, the declarations that enclose it and the lines around it. The store matches
 * on these after the line mapping (packages/db/src/identity.ts); docs/scanning.md says how.
 *
 * Everything is read from the file's text, for every language alike: an enclosing
 * declaration is a less-indented line above the finding that declares a function, method or
 * type. Formatting is ignored (whitespace is removed before hashing), so a reformatted file
 * keeps its locators.
 */
import { createHash } from "node:crypto";
import type { FindingLocator, NormalizedFinding } from "@ax/contracts";
import { matchedCode, normalizeCode } from "./fingerprint";

/** Lines of context on each side: enough to tell identical calls apart, few enough to survive nearby edits. */
const CONTEXT_LINES = 2;
/** Enclosing declarations kept (a method and its class). */
const SCOPE_DEPTH = 2;
/** How far up a declaration is looked for: beyond this the finding's scope is the file. */
const MAX_SCAN_UP = 400;

const CONTROL_WORDS = [
  ...["if", "else", "for", "foreach", "while", "do", "switch", "case", "default", "try", "catch", "finally", "with", "return", "elif"],
  ...["except", "unless", "until", "when", "match", "select", "synchronized", "using", "lock", "begin", "rescue", "ensure"],
];
const CONTROL = new RegExp(`^(?:${CONTROL_WORDS.join("|")})\\b`);
const KEYWORD_DECL =
  /\b(?:function|def|func|fn|class|interface|struct|enum|trait|impl|module|namespace|object|record|sub|procedure)\s*\*?\s*([A-Za-z_$][\w$]*)/;
/** `name(...) {`, `Type name(...) throws X {`, `name = (...) =>`, `name: function(`: a method or a function bound to a name. */
const CALLABLE_DECL = /([A-Za-z_$][\w$]*)\s*(?:=|:)?\s*(?:async\s+)?(?:function\b\s*)?\([^()]*\)\s*(?:=>|\{|:|throws\b|->|$)/;

export function locate(
  lines: readonly string[],
  finding: Pick<NormalizedFinding, "start_line" | "end_line" | "raw" | "snippet">,
): FindingLocator {
  const start = Math.max(1, finding.start_line);
  const end = Math.max(start, finding.end_line);
  const before = nearby(lines, start - 1, -1);
  const after = nearby(lines, end + 1, 1);
  return {
    code: digest(normalizeCode(matchedCode(finding))),
    scope: scopeOf(lines, start).join(" > "),
    context: digest([...before, "\0", ...after].join("\n")),
    before: digest(before.join("\n")),
    after: digest(after.join("\n")),
  };
}

/** The enclosing declarations of line `line` (1-based), outermost first, each normalized. */
export function scopeOf(lines: readonly string[], line: number): string[] {
  const found: string[] = [];
  let limit = indentOf(lines[line - 1] ?? "");
  for (let i = line - 2; i >= 0 && i >= line - 1 - MAX_SCAN_UP && found.length < SCOPE_DEPTH; i--) {
    const text = lines[i] ?? "";
    if (!isCode(text)) continue;
    const indent = indentOf(text);
    if (indent >= limit) continue;
    limit = indent;
    const decl = declarationName(text.trim());
    if (decl) found.unshift(decl);
    if (indent === 0) break;
  }
  return found;
}

/** Modifiers and annotations before a declaration: `export`, `public static`, `@Override`. */
const MODIFIER_WORDS = [
  ...["export", "public", "private", "protected", "internal", "static", "final", "abstract", "async", "override", "virtual", "default"],
  ...["declare", "readonly", "sealed", "open", "suspend", "inline", "extern", "const", "let", "var"],
];
const MODIFIERS = new RegExp(`^(?:${MODIFIER_WORDS.join("|")}|${String.raw`@\w+(?:\([^)]*\))?`})\\s+`, "g");

function declarationName(text: string): string | null {
  const head = text.replace(MODIFIERS, "");
  if (CONTROL.test(head)) return null;
  const keyword = KEYWORD_DECL.exec(head);
  if (keyword?.[1]) return `${keyword[0].split(/\s/)[0]} ${keyword[1]}`;
  const callable = CALLABLE_DECL.exec(head);
  if (callable?.[1] && !CONTROL.test(callable[1])) return callable[1];
  return null;
}

/** The nearest non-blank lines from `from` (1-based) going `step`, normalized. */
function nearby(lines: readonly string[], from: number, step: 1 | -1): string[] {
  const out: string[] = [];
  for (let i = from; i >= 1 && i <= lines.length && out.length < CONTEXT_LINES; i += step) {
    const text = normalizeCode(lines[i - 1] ?? "");
    if (text) out.push(text);
  }
  return out;
}

function isCode(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && !/^(?:\/\/|#|\*|\/\*|--|;|<!--)/.test(t) && !/^[}\])]+[;,]?$/.test(t);
}

function indentOf(text: string): number {
  let n = 0;
  for (const c of text) {
    if (c === " ") n++;
    else if (c === "\t") n += 4;
    else break;
  }
  return n;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 24);
}

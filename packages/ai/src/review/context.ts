/**
 * The code a review looks at: the function around a finding, found the same cheap way for
 * every language, so that the training data (Juliet, CASTLE) and the worker's auto-triage
 * give the model the same kind of input. Brace languages: the innermost enclosing `{…}`
 * block whose header looks like a function; Python and shell-like files: the enclosing
 * `def`/function by indentation. When neither is found, a window of lines around it.
 */

const MAX_LINES = 120;
const WINDOW = 20;
const CONTROL =
  /^\s*(?:}\s*)?(?:if|else|for|foreach|while|do|switch|case|try|catch|finally|synchronized|using|lock|unsafe|checked|with|static\s*\{)\b/;

export interface CodeContext {
  code: string;
  /** 1-based first line of `code` in the file. */
  startLine: number;
  endLine: number;
  how: "function" | "window";
  /** The enclosing function's name, when its header shows one. */
  name?: string;
}

export function codeContext(source: string | readonly string[], startLine: number, endLine = startLine, file = ""): CodeContext {
  const lines = typeof source === "string" ? source.split(/\r?\n/) : source;
  const start = clamp(startLine, 1, Math.max(1, lines.length));
  const end = clamp(Math.max(endLine, start), start, Math.max(1, lines.length));
  const block = /\.(py|pyw|rb)$/i.test(file) ? indentBlock(lines, start) : braceBlock(lines, start, end);
  if (block) {
    const name = functionName(lines, block.start);
    // A long function: keep its header and the lines around the finding.
    const from = block.end - block.start < MAX_LINES ? block.start : Math.max(block.start, start - WINDOW);
    const to = block.end - block.start < MAX_LINES ? block.end : Math.min(block.end, Math.max(end + WINDOW, from + MAX_LINES - 1));
    return { ...slice(lines, from, to, "function"), ...(name ? { name } : {}) };
  }
  return slice(lines, Math.max(1, start - WINDOW), Math.min(lines.length, end + WINDOW), "window");
}

const NOT_NAMES = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "sizeof",
  "new",
  "synchronized",
  "using",
  "lock",
  "foreach",
  "with",
]);

/** The identifier right before the header's first parameter list: `void X::run(` → run. */
function functionName(lines: readonly string[], headerLine: number): string | undefined {
  const header = lines.slice(headerLine - 1, headerLine + 3).join(" ");
  const m = /(?:^|[^\w$])([A-Za-z_$][\w$]*)\s*\(/.exec(header.replace(/^\s*def\s+/, " "));
  const name = m?.[1];
  return name && !NOT_NAMES.has(name) ? name : undefined;
}

function slice(lines: readonly string[], from: number, to: number, how: CodeContext["how"]): CodeContext {
  return { code: lines.slice(from - 1, to).join("\n"), startLine: from, endLine: to, how };
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, Math.trunc(Number.isFinite(n) ? n : lo)));
}

/** Braces of a line outside string and char literals and comments (good enough for C-like code). */
function braces(line: string): { open: number[]; close: number[] } {
  const open: number[] = [];
  const close: number[] = [];
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"' || c === "'" || c === "`") {
      const q = c;
      for (i++; i < line.length && line[i] !== q; i++) if (line[i] === "\\") i++;
    } else if (c === "/" && line[i + 1] === "/") break;
    else if (c === "{") open.push(i);
    else if (c === "}") close.push(i);
  }
  return { open, close };
}

/** The innermost function-like block around `line`: 1-based inclusive line range. */
function braceBlock(lines: readonly string[], line: number, endLine: number): { start: number; end: number } | null {
  // Walk upwards keeping a balance; every `{` that is not closed below it encloses the finding.
  let balance = 0;
  for (let n = line; n >= 1 && line - n < 2000; n--) {
    const { open, close } = braces(lines[n - 1] ?? "");
    const events = [...open.map((i) => ({ i, d: 1 })), ...close.map((i) => ({ i, d: -1 }))].sort((a, b) => b.i - a.i);
    for (const e of events) {
      if (e.d < 0) balance++;
      else if (balance > 0) balance--;
      else {
        const headerAt = headerLine(lines, n, e.i);
        if (headerAt !== null) {
          const end = closingLine(lines, n, e.i);
          if (end !== null && end >= endLine) return { start: headerAt, end };
        }
      }
    }
  }
  return null;
}

/** The line where the header of the block opened at (n, col) starts, when it looks like a function. */
function headerLine(lines: readonly string[], n: number, col: number): number | null {
  let text = (lines[n - 1] ?? "").slice(0, col);
  let start = n;
  // The signature may span lines (or the brace may sit alone on its line).
  while (start > 1 && !text.includes(")") && n - start < 4) {
    start--;
    text = `${lines[start - 1] ?? ""} ${text}`;
  }
  while (start > 1 && n - start < 6 && (text.match(/\(/g)?.length ?? 0) < (text.match(/\)/g)?.length ?? 0)) {
    start--;
    text = `${lines[start - 1] ?? ""} ${text}`;
  }
  const trimmed = text.trim();
  if (!/\)\s*(?:const\s*)?(?:throws\s+[\w.,\s]+)?(?:noexcept\s*)?(?:->\s*[\w:<>*&\s]+)?$/.test(trimmed)) return null;
  if (CONTROL.test(trimmed) || /^\s*(?:}\s*)?else\b/.test(trimmed)) return null;
  return start;
}

function closingLine(lines: readonly string[], n: number, col: number): number | null {
  let depth = 0;
  for (let k = n; k <= lines.length && k - n < 5000; k++) {
    const { open, close } = braces(lines[k - 1] ?? "");
    const events = [...open.map((i) => ({ i, d: 1 })), ...close.map((i) => ({ i, d: -1 }))]
      .filter((e) => k > n || e.i >= col)
      .sort((a, b) => a.i - b.i);
    for (const e of events) {
      depth += e.d;
      if (depth === 0) return k;
    }
  }
  return null;
}

function indentBlock(lines: readonly string[], line: number): { start: number; end: number } | null {
  const indent = (s: string): number => s.length - s.trimStart().length;
  const at = lines[line - 1] ?? "";
  let level = at.trim() === "" ? Number.POSITIVE_INFINITY : indent(at);
  for (let n = line; n >= 1; n--) {
    const l = lines[n - 1] ?? "";
    if (l.trim() === "" || l.trimStart().startsWith("#")) continue;
    const ind = indent(l);
    if (ind < level || n === line) {
      if (/^\s*(?:async\s+)?def\s+\w+|^\s*def\s+[\w.?!]+/.test(l) && (ind < level || n === line)) {
        let end = n;
        for (let k = n + 1; k <= lines.length; k++) {
          const m = lines[k - 1] ?? "";
          if (m.trim() === "") continue;
          if (indent(m) <= ind && !/^\s*end\b/.test(m)) break;
          end = k;
          if (/^\s*end\b/.test(m) && indent(m) === ind) break;
        }
        return end >= line ? { start: n, end } : null;
      }
      level = Math.min(level, ind);
    }
  }
  return null;
}

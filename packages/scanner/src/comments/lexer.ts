/**
 * A comment lexer for the languages the scanner has no parser for (syntaxes.ts says which).
 * It walks the text once and returns where each comment is, skipping what only looks like
 * one: string and character literals (escapes, doubled quotes, interpolated code, raw strings)
 * and heredoc bodies. It is a lexer, not a parser: it does not know the grammar, only the
 * tokens that can hide a comment opener; syntaxes.ts lists, per family, what it approximates.
 */

/** Where a comment is: offsets [start, end) into the text, delimiters included. */
export interface Span {
  start: number;
  end: number;
}

export interface LineComment {
  open: string;
  /** The character before the opener must match (a word start, e.g. shell's `#`); the start of a line always does. */
  after?: RegExp;
  /** Only as the first non-blank of its line (Dockerfile). */
  lineStart?: boolean;
  /** Not a comment when followed by this (PHP's `#[` attributes). */
  notFollowedBy?: string;
}

export interface BlockComment {
  open: string;
  close: string;
  /** Only as the first non-blank of its line (Ruby's `=begin`). */
  lineStart?: boolean;
  /** Block comments nest (Rust, Kotlin, Swift, Scala): an opener inside one needs its own closer. */
  nested?: boolean;
}

export interface Literal {
  open: string;
  close: string;
  /** The escape character: a backslash in most languages, a backtick in PowerShell. */
  escape?: string;
  /** The closer written twice stands for itself ('' in SQL and YAML, "" in C# verbatim strings). */
  doubled?: boolean;
  /** May span lines; otherwise an unterminated literal ends at the end of its line. */
  multiline?: boolean;
  /** Opens embedded code, closed by the matching bracket: "${", "#{", "$(", "{". */
  interpolation?: string;
  /** A character literal: one (escaped) character then the closer, else the opener is a plain character (Rust lifetimes, C++ digit separators). */
  char?: boolean;
  /** Like LineComment.after (YAML's quoted scalars start a value, an apostrophe inside a word does not). */
  after?: RegExp;
}

export interface Syntax {
  line: LineComment[];
  block: BlockComment[];
  /** Longest opener first (`'''` before `'`, `@"` before `"`). */
  literals: Literal[];
  heredoc?: "shell" | "ruby" | "php" | "hcl";
  /** JavaScript's regular-expression literals. */
  regex?: boolean;
  /** Raw strings with a chosen delimiter: C++ `R"x(…)x"`, Rust `r#"…"#`. */
  raw?: "cpp" | "rust";
  /** Where the code ends, even inside a line comment (PHP's `?>`). */
  stop?: string;
}

type Frame = { kind: "code"; opener: string | null; closer: string | null; depth: number } | { kind: "literal"; literal: Literal };

interface Heredoc {
  delimiter: string;
  /** How the closing line may be indented: "tabs" (shell `<<-`), "any" (Ruby `<<~`, PHP, HCL `<<-`), "none". */
  indent: "tabs" | "any" | "none";
}

const HEREDOC: Record<NonNullable<Syntax["heredoc"]>, RegExp> = {
  // `<<<` is a here-string, not a heredoc; a delimiter that starts with a digit is a shift (`1 << 2`).
  shell: /<<(?!<)(-?)[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|\\?([A-Za-z_][\w.-]*))/y,
  ruby: /<<([~-]?)(?:'([^'\n]+)'|"([^"\n]+)"|([A-Z_][A-Za-z0-9_]*))/y,
  php: /<<<()[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([A-Za-z_]\w*))/y,
  hcl: /<<(-?)()()([A-Za-z_]\w*)/y,
};

const WORD = /[A-Za-z0-9_$]+/y;
/** After these a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set(["", "(", ",", "=", ":", "[", "!", "&", "|", "?", "{", "}", ";", "+", "-", "*", "%", "<", ">", "~", "^"]);
const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "yield",
  "await",
  "instanceof",
]);

/** The comments of text[from, to) (`end`: where the lexing stopped: `to`, or the syntax's `stop`). */
export function lexComments(text: string, syntax: Syntax, from = 0, to = text.length): { comments: Span[]; end: number } {
  const comments: Span[] = [];
  const stack: Frame[] = [{ kind: "code", opener: null, closer: null, depth: 0 }];
  let heredocs: Heredoc[] = [];
  const prev: Previous = { char: "", word: "" };
  let i = from;
  while (i < to) {
    const top = stack[stack.length - 1] as Frame;
    const c = text[i] as string;
    if (top.kind === "literal") {
      i = literalStep(text, i, top.literal, stack);
      if (stack[stack.length - 1] !== top) prev.char = "a";
      continue;
    }
    if (c === "\n") {
      i = heredocs.length > 0 ? skipHeredocBodies(text, i + 1, to, heredocs) : i + 1;
      heredocs = [];
      continue;
    }
    if (syntax.stop && stack.length === 1 && text.startsWith(syntax.stop, i)) return { comments, end: i };
    if (top.closer !== null) {
      if (c === top.opener) top.depth++;
      else if (c === top.closer && top.depth-- === 0) {
        stack.pop();
        i++;
        continue;
      }
    }
    const comment = commentAt(text, i, to, syntax);
    if (comment) {
      comments.push(comment);
      i = comment.end;
      continue;
    }
    const opener = syntax.heredoc && c === "<" ? heredocAt(text, i, syntax.heredoc) : null;
    if (opener) {
      heredocs.push(opener.heredoc);
      i = opener.end;
      continue;
    }
    const tokenEnd = opaqueTokenEnd(text, i, to, syntax, prev);
    if (tokenEnd !== null) {
      i = tokenEnd;
      continue;
    }
    const literal = syntax.literals.find((l) => text.startsWith(l.open, i) && (!l.after || i === 0 || l.after.test(text[i - 1] as string)));
    if (literal) {
      if (literal.char) {
        const end = charEnd(text, i, to, literal);
        i = end ?? i + literal.open.length;
        prev.char = end === null ? literal.open : "a";
        prev.word = "";
        continue;
      }
      stack.push({ kind: "literal", literal });
      i += literal.open.length;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(text);
    if (word) {
      prev.word = word[0];
      prev.char = "a";
      i += word[0].length;
      continue;
    }
    if (!/\s/.test(c)) {
      prev.char = c;
      prev.word = "";
    }
    i++;
  }
  return { comments, end: to };
}

/** What came before in code: a `/` after these starts a regular expression, not a division. */
interface Previous {
  /** The last non-space character ("a" for a word, a string or a regular expression). */
  char: string;
  word: string;
}

/** Where a raw string or a regular expression starting at i ends (updating `prev`), or null. */
function opaqueTokenEnd(text: string, i: number, to: number, syntax: Syntax, prev: Previous): number | null {
  if (syntax.raw) {
    const end = rawStringEnd(text, i, to, syntax.raw);
    if (end !== null) {
      prev.char = "a";
      return end;
    }
  }
  if (syntax.regex && text[i] === "/" && (REGEX_AFTER.has(prev.char) || REGEX_AFTER_WORD.has(prev.word))) {
    const end = regexEnd(text, i, to);
    if (end !== null) {
      prev.char = "a";
      prev.word = "";
      return end;
    }
  }
  return null;
}

/** A block or line comment starting at i (a line comment ends at the syntax's `stop` too), or null. */
function commentAt(text: string, i: number, to: number, syntax: Syntax): Span | null {
  const block = syntax.block.find((b) => text.startsWith(b.open, i) && (!b.lineStart || atLineStart(text, i)));
  if (block) return { start: i, end: blockEnd(text, i, to, block) };
  const line = syntax.line.find(
    (l) =>
      text.startsWith(l.open, i) &&
      (!l.after || i === 0 || text[i - 1] === "\n" || l.after.test(text[i - 1] as string)) &&
      (!l.lineStart || atLineStart(text, i)) &&
      (!l.notFollowedBy || !text.startsWith(l.notFollowedBy, i + l.open.length)),
  );
  if (!line) return null;
  let end = lineEnd(text, i, to);
  if (syntax.stop) {
    const stop = text.indexOf(syntax.stop, i);
    if (stop !== -1 && stop < end) end = stop;
  }
  return { start: i, end };
}

/** A heredoc opener at i: the heredoc (its body starts on the next line) and where the opener ends; or null. */
function heredocAt(text: string, i: number, kind: NonNullable<Syntax["heredoc"]>): { heredoc: Heredoc; end: number } | null {
  const re = HEREDOC[kind];
  re.lastIndex = i;
  const m = re.exec(text);
  if (!m) return null;
  const indent = kind === "shell" ? (m[1] ? "tabs" : "none") : kind === "ruby" ? (m[1] ? "any" : "none") : "any";
  return { heredoc: { delimiter: m[2] || m[3] || m[4] || "", indent }, end: re.lastIndex };
}

/** One step inside a literal; pops it at its closer and pushes a code frame at an interpolation. */
function literalStep(text: string, i: number, l: Literal, stack: Frame[]): number {
  if (l.escape && text.startsWith(l.escape, i)) return i + l.escape.length + 1;
  if (text.startsWith(l.close, i)) {
    if (l.doubled && text.startsWith(l.close, i + l.close.length)) return i + 2 * l.close.length;
    stack.pop();
    return i + l.close.length;
  }
  if (l.interpolation && text.startsWith(l.interpolation, i)) {
    const opener = l.interpolation.slice(-1);
    stack.push({ kind: "code", opener, closer: opener === "(" ? ")" : "}", depth: 0 });
    return i + l.interpolation.length;
  }
  if (text[i] === "\n" && !l.multiline) {
    stack.pop();
    return i;
  }
  return i + 1;
}

function atLineStart(text: string, i: number): boolean {
  for (let j = i - 1; j >= 0 && text[j] !== "\n"; j--) if (text[j] !== " " && text[j] !== "\t") return false;
  return true;
}

function lineEnd(text: string, i: number, to: number): number {
  const nl = text.indexOf("\n", i);
  const end = nl === -1 || nl > to ? to : nl;
  return text[end - 1] === "\r" ? end - 1 : end;
}

function blockEnd(text: string, i: number, to: number, b: BlockComment): number {
  let depth = 0;
  let j = i + b.open.length;
  while (j < to) {
    if (b.nested && text.startsWith(b.open, j)) {
      depth++;
      j += b.open.length;
    } else if (text.startsWith(b.close, j)) {
      j += b.close.length;
      if (depth-- === 0) return j;
    } else j++;
  }
  return to;
}

/** A character literal's end, or null when the quote opens none (`'a` in `fn f<'a>`, `1'000`). */
function charEnd(text: string, i: number, to: number, l: Literal): number | null {
  let j = i + l.open.length;
  if (l.escape && text.startsWith(l.escape, j)) {
    // `'\n'`, `'\x41'`, `'\u{1F600}'`: an escape of up to ten characters.
    const close = text.indexOf(l.close, j + l.escape.length + 1);
    return close !== -1 && close < to && close - j <= 11 && !text.slice(j, close).includes("\n") ? close + l.close.length : null;
  }
  const cp = text.codePointAt(j);
  if (cp === undefined || text[j] === "\n" || text.startsWith(l.close, j)) return null;
  j += cp > 0xffff ? 2 : 1;
  return text.startsWith(l.close, j) && j < to ? j + l.close.length : null;
}

function regexEnd(text: string, i: number, to: number): number | null {
  let inClass = false;
  for (let j = i + 1; j < to; j++) {
    const c = text[j];
    if (c === "\n") return null;
    if (c === "\\") j++;
    else if (c === "[") inClass = true;
    else if (c === "]") inClass = false;
    else if (c === "/" && !inClass) {
      if (j === i + 1) return null;
      j++;
      while (j < to && /[a-z]/i.test(text[j] as string)) j++;
      return j;
    }
  }
  return null;
}

const RAW = { cpp: /(?<![A-Za-z0-9_])(?:u8|[uUL])?R"([^()\\\s"]{0,16})\(/y, rust: /(?<![A-Za-z0-9_])b?r(#*)"/y };

function rawStringEnd(text: string, i: number, to: number, kind: "cpp" | "rust"): number | null {
  const re = RAW[kind];
  re.lastIndex = i;
  const m = re.exec(text);
  if (!m) return null;
  const close = kind === "cpp" ? `)${m[1]}"` : `"${m[1]}`;
  const at = text.indexOf(close, re.lastIndex);
  return at === -1 || at + close.length > to ? to : at + close.length;
}

/** Past the bodies of the heredocs opened on the line that just ended (each up to its closing line). */
function skipHeredocBodies(text: string, i: number, to: number, heredocs: Heredoc[]): number {
  for (const h of heredocs) {
    while (i < to) {
      const nl = text.indexOf("\n", i);
      const end = nl === -1 || nl > to ? to : nl;
      const line = text.slice(i, end).replace(/\r$/, "");
      i = end + 1;
      const bare = h.indent === "tabs" ? line.replace(/^\t+/, "") : h.indent === "any" ? line.trimStart() : line;
      // PHP and HCL allow code after the closing delimiter (`EOT;`, `EOT)`): a word boundary ends it.
      if (bare === h.delimiter || (h.indent === "any" && bare.startsWith(h.delimiter) && !/[\w]/.test(bare[h.delimiter.length] ?? "")))
        break;
    }
  }
  return Math.min(i, to);
}

/**
 * A small lexical look at one C call, for the refinements flawfinder cannot make itself:
 * flawfinder knows that `printf("x")` has a constant format, but not that
 * `printf(ok ? "yes\n" : "no\n")` or `const char *fmt = "…"; printf(fmt)` do, and it reports
 * `system("ls -l")` exactly like `system(buf)`. A constant format cannot be a format-string
 * attack (CWE-134) and a constant command cannot be an injection (CWE-78), so such hits are
 * dropped. Everything here errs towards "not constant": an expression we do not fully
 * understand keeps the finding.
 */

/** Which argument (0-based) is the format string or command, per call flawfinder reports. */
const CONSTANT_SAFE_ARGUMENT: Readonly<Record<string, number>> = {
  printf: 0,
  vprintf: 0,
  wprintf: 0,
  fprintf: 1,
  vfprintf: 1,
  fwprintf: 1,
  dprintf: 1,
  syslog: 1,
  vsyslog: 1,
  snprintf: 2,
  vsnprintf: 2,
  _snprintf: 2,
  swprintf: 2,
  system: 0,
  popen: 0,
  _popen: 0,
  // sprintf/vsprintf: a constant format still overflows through `%s`; see constantFormatWithoutStrings.
  sprintf: 1,
  vsprintf: 1,
};

const MAX_CALL_CHARS = 4000;

/**
 * True when the call to `name` starting at (line, column) — 1-based, as flawfinder reports
 * it — passes a compile-time constant string where it matters (see CONSTANT_SAFE_ARGUMENT),
 * so the hit is a false positive. For sprintf/vsprintf the constant must also have no `%s`
 * (or `%[`), which can still overflow the destination.
 */
export function hasConstantSafeArgument(lines: readonly string[], line: number, column: number, name: string): boolean {
  const index = CONSTANT_SAFE_ARGUMENT[name];
  if (index === undefined) return false;
  const args = callArguments(lines, line, column, name);
  const arg = args?.[index];
  if (arg === undefined) return false;
  const value = constantString(arg, lines);
  if (value === null) return false;
  if (name === "sprintf" || name === "vsprintf") return value.every((v) => !/%[-+ #0-9.*lhjztLq]*(s|\[)/.test(v));
  return true;
}

/** The top-level arguments of the call, comments removed; null when the call cannot be read. */
export function callArguments(lines: readonly string[], line: number, column: number, name: string): string[] | null {
  const first = lines[line - 1];
  if (first === undefined) return null;
  const text = [first.slice(Math.max(0, column - 1)), ...lines.slice(line, line + 40)].join("\n").slice(0, MAX_CALL_CHARS);
  const open = new RegExp(`^${escapeRegExp(name)}\\s*\\(`).exec(text);
  if (!open) return null;
  const args: string[] = [];
  let depth = 0;
  let current = "";
  for (let i = open[0].length; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"' || c === "'") {
      const end = literalEnd(text, i);
      if (end < 0) return null;
      current += text.slice(i, end + 1);
      i = end;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return null;
      current += " ";
      i = end + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      if (end < 0) return null;
      i = end - 1;
    } else if (c === "(" || c === "[" || c === "{") {
      depth++;
      current += c;
    } else if (c === ")" || c === "]" || c === "}") {
      if (depth === 0) {
        if (c !== ")") return null;
        if (current.trim() !== "" || args.length > 0) args.push(current.trim());
        return args;
      }
      depth--;
      current += c;
    } else if (c === "," && depth === 0) {
      args.push(current.trim());
      current = "";
    } else current += c;
  }
  return null;
}

/** Index of the quote closing the literal that opens at `start`, or -1. */
function literalEnd(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === quote) return i;
    else if (c === "\n") return -1;
  }
  return -1;
}

/**
 * The possible values of a constant string expression (raw literal contents, escapes kept),
 * or null when it is not one: adjacent literals (with an optional L/u8/u/U prefix), in
 * parentheses, `cond ? A : B` where A and B are constant, or an identifier bound once in the
 * file to a constant (`#define NAME "…"`, `const char *NAME = "…"`, `char *NAME = "…"` never
 * reassigned, `const char NAME[] = "…"`).
 */
export function constantString(expr: string, lines: readonly string[], depth = 0): string[] | null {
  if (depth > 4) return null;
  let e = expr.trim();
  while (e.startsWith("(") && matchingParen(e, 0) === e.length - 1) e = e.slice(1, -1).trim();
  if (e === "") return null;
  const conditional = splitConditional(e);
  if (conditional) {
    const a = constantString(conditional[0], lines, depth + 1);
    const b = a && constantString(conditional[1], lines, depth + 1);
    return a && b ? [...a, ...b] : null;
  }
  const literals = adjacentLiterals(e);
  if (literals !== null) return [literals];
  if (/^[A-Za-z_]\w*$/.test(e)) return boundConstant(e, lines, depth);
  return null;
}

/** `cond ? a : b` at the top level → [a, b]; null when `e` is not a conditional. */
function splitConditional(e: string): [string, string] | null {
  let depth = 0;
  let question = -1;
  let nested = 0;
  for (let i = 0; i < e.length; i++) {
    const c = e[i] as string;
    if (c === '"' || c === "'") {
      const end = literalEnd(e, i);
      if (end < 0) return null;
      i = end;
    } else if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (depth === 0 && c === "?") {
      if (question < 0) question = i;
      else nested++;
    } else if (depth === 0 && c === ":" && question >= 0) {
      if (nested > 0) nested--;
      else return [e.slice(question + 1, i), e.slice(i + 1)];
    }
  }
  return null;
}

function matchingParen(e: string, open: number): number {
  let depth = 0;
  for (let i = open; i < e.length; i++) {
    const c = e[i];
    if (c === '"' || c === "'") {
      const end = literalEnd(e, i);
      if (end < 0) return -1;
      i = end;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/** `"a" "b"` (adjacent string literals only) → `ab`; anything else → null. */
function adjacentLiterals(e: string): string | null {
  let rest = e;
  let value = "";
  let any = false;
  for (;;) {
    rest = rest.trimStart();
    if (rest === "") return any ? value : null;
    const prefix = /^(?:u8|[LuU])?"/.exec(rest);
    if (!prefix) return null;
    const start = prefix[0].length - 1;
    const end = literalEnd(rest, start);
    if (end < 0) return null;
    value += rest.slice(start + 1, end);
    rest = rest.slice(end + 1);
    any = true;
  }
}

/** The value bound to `name` when the file binds it exactly once to a constant and never rebinds it. */
function boundConstant(name: string, lines: readonly string[], depth: number): string[] | null {
  const id = escapeRegExp(name);
  const define = new RegExp(`^\\s*#\\s*define\\s+${id}\\s+(.+)$`);
  const declaration = new RegExp(
    `^\\s*(?:(?:static|const|volatile|unsigned|signed|register)\\s+)*(?:const\\s+)?(char|wchar_t)\\s*(\\*\\s*(?:const\\s*)?)?${id}` +
      `\\s*(\\[\\s*\\d*\\s*\\])?\\s*=\\s*(.+?);\\s*(?://.*)?$`,
  );
  const uses = new RegExp(`(^|[^\\w.>])${id}(?!\\w)`);
  let binding: string | null = null;
  let bindings = 0;
  for (const line of lines) {
    if (!uses.test(line)) continue;
    const d = define.exec(line);
    const v = d ?? declaration.exec(line);
    if (v) {
      bindings++;
      const isArray = !d && v[3] !== undefined;
      const isConstArray = isArray && /\bconst\b/.test(line.slice(0, line.indexOf(name)));
      // A non-const array's contents can be rewritten later (strcpy(name, …)): not a constant.
      if (isArray && !isConstArray) return null;
      if (!d && v[2] === undefined && !isArray) return null;
      binding = d ? (d[1] as string) : (v[4] as string);
      continue;
    }
    // Another declaration of the name (a parameter, a local without initializer) may shadow the binding.
    if (new RegExp(`\\b(?:char|wchar_t|void)\\b[\\s*]*(?:const\\s*)?${id}\\s*[,)[;]`).test(line)) return null;
    // Any write to the name (assignment, compound assignment, increment, address taken) rebinds it.
    if (new RegExp(`(^|[^\\w.>])${id}\\s*(=(?!=)|\\+=|-=|\\+\\+|--)|(\\+\\+|--|&)\\s*${id}(?!\\w)`).test(line)) return null;
  }
  if (bindings !== 1 || binding === null) return null;
  return constantString(binding.replace(/\/\/.*$/, "").replace(/\/\*.*?\*\//g, ""), lines, depth + 1);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

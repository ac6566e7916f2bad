/**
 * Constant evaluation of pure string methods (Java, Python, JavaScript): with a constant
 * receiver and constant arguments, `"ABC".charAt(1)`, `s.substring(1, 2)`, `s.upper()`,
 * `len(s)`, `"b" in s` give constants, so that `if`, `?:`, `switch` and `match` on them prune
 * branches as arithmetic does (fold.ts).
 */
import type { ConstValue, Expr } from "./ir";

type Method = (s: string, args: ConstValue[]) => ConstValue | undefined;

const str = (v: ConstValue | undefined): v is string => typeof v === "string";
const int = (v: ConstValue | undefined): v is number => typeof v === "number" && Number.isInteger(v);

/** `substring`/`slice` bounds, JavaScript and Java style (negative counts from the end for `slice`). */
function bound(s: string, v: ConstValue | undefined, fallback: number, negative: boolean): number | undefined {
  if (v === undefined) return fallback;
  if (!int(v)) return undefined;
  if (v < 0) return negative ? Math.max(0, s.length + v) : 0;
  return Math.min(v, s.length);
}

const METHODS: Record<string, Method> = {
  charAt: (s, [i]) => (int(i) && i >= 0 && i < s.length ? s.charAt(i) : int(i) ? "" : undefined),
  substring: (s, [a, b]) => {
    const from = bound(s, a, 0, false);
    const to = bound(s, b, s.length, false);
    return from === undefined || to === undefined ? undefined : s.substring(from, to);
  },
  substr: (s, [a, b]) => (int(a) && (b === undefined || int(b)) ? s.substr(a, b) : undefined),
  slice: (s, [a, b]) => {
    const from = bound(s, a, 0, true);
    const to = bound(s, b, s.length, true);
    return from === undefined || to === undefined ? undefined : s.slice(from, to);
  },
  indexOf: (s, [x]) => (str(x) ? s.indexOf(x) : undefined),
  lastIndexOf: (s, [x]) => (str(x) ? s.lastIndexOf(x) : undefined),
  find: (s, [x]) => (str(x) ? s.indexOf(x) : undefined),
  equals: (s, [x]) => (x === undefined ? undefined : s === x),
  equalsIgnoreCase: (s, [x]) => (str(x) ? s.toLowerCase() === x.toLowerCase() : x === null ? false : undefined),
  startsWith: (s, [x]) => (str(x) ? s.startsWith(x) : undefined),
  startswith: (s, [x]) => (str(x) ? s.startsWith(x) : undefined),
  endsWith: (s, [x]) => (str(x) ? s.endsWith(x) : undefined),
  endswith: (s, [x]) => (str(x) ? s.endsWith(x) : undefined),
  contains: (s, [x]) => (str(x) ? s.includes(x) : undefined),
  includes: (s, [x]) => (str(x) ? s.includes(x) : undefined),
  toUpperCase: (s) => s.toUpperCase(),
  toLowerCase: (s) => s.toLowerCase(),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  trim: (s) => s.trim(),
  strip: (s, [x]) => (x === undefined ? s.trim() : undefined),
  concat: (s, args) => (args.every(str) ? s + args.join("") : undefined),
  length: (s) => s.length,
  isEmpty: (s) => s.length === 0,
  isdigit: (s) => s.length > 0 && /^[0-9]+$/.test(s),
  isalpha: (s) => s.length > 0 && /^[A-Za-z]+$/.test(s),
  isalnum: (s) => s.length > 0 && /^[A-Za-z0-9]+$/.test(s),
};

/** Names of the methods folded here: a call with another name is never attempted. */
export const STRING_METHODS: ReadonlySet<string> = new Set([...Object.keys(METHODS), "len", "str"]);

/** A call on a constant string receiver (or `len(s)`), or undefined when it does not fold. */
export function foldStringCall(callee: string, receiver: ConstValue | undefined, args: ConstValue[]): ConstValue | undefined {
  if (receiver === undefined) {
    if (callee === "len" && args.length === 1 && str(args[0])) return args[0].length;
    if (callee === "str" && args.length === 1 && args[0] !== undefined) return typeof args[0] === "string" ? args[0] : undefined;
    return undefined;
  }
  if (!str(receiver) || !Object.hasOwn(METHODS, callee)) return undefined;
  return METHODS[callee]!(receiver, args);
}

/** `"b" in "abc"` (Python) and `s[i]` on constant strings. */
export function foldStringOp(op: string, a: ConstValue, b: ConstValue): ConstValue | undefined {
  if (op === "in" && str(a) && str(b)) return b.includes(a);
  if (op === "not in" && str(a) && str(b)) return !b.includes(a);
  return undefined;
}

export function foldStringIndex(s: ConstValue, i: ConstValue): ConstValue | undefined {
  if (!str(s) || !int(i)) return undefined;
  const at = i < 0 ? s.length + i : i;
  return at >= 0 && at < s.length ? s.charAt(at) : undefined;
}

/** Expressions cheap and free of effects to evaluate twice: names, literals and folded calls on them. */
export function pureShape(e: Expr, depth = 0): boolean {
  if (depth > 6) return false;
  switch (e.k) {
    case "const":
    case "var":
    case "this":
      return true;
    case "field":
      return pureShape(e.object, depth + 1);
    case "cast":
    case "unary":
      return pureShape(e.arg, depth + 1);
    case "index":
      return pureShape(e.object, depth + 1) && pureShape(e.index, depth + 1);
    case "binary":
      return pureShape(e.left, depth + 1) && pureShape(e.right, depth + 1);
    case "call":
      return (
        STRING_METHODS.has(e.callee) && (!e.receiver || pureShape(e.receiver, depth + 1)) && e.args.every((a) => pureShape(a, depth + 1))
      );
    default:
      return false;
  }
}

/** Python `s[a:b]` on a constant string (step 1 only); null bounds are omitted ones. */
export function foldStringSlice(s: ConstValue, bounds: readonly (ConstValue | undefined)[]): ConstValue | undefined {
  if (!str(s) || bounds.length > 3 || bounds.some((x) => x === undefined)) return undefined;
  const [a = null, b = null, step = null] = bounds;
  if (step !== null && step !== 1) return undefined;
  if ((a !== null && !int(a)) || (b !== null && !int(b))) return undefined;
  const from = a === null ? 0 : a < 0 ? Math.max(0, s.length + a) : Math.min(a, s.length);
  const to = b === null ? s.length : b < 0 ? Math.max(0, s.length + b) : Math.min(b, s.length);
  return to > from ? s.slice(from, to) : "";
}

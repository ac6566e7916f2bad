/**
 * Constant folding and environment joins for the interpreter (interp.ts): what a condition
 * or an initialiser made of literals evaluates to, and the meeting of two branches.
 */
import type { ConstValue, Expr } from "./ir";
import { join, type Value } from "./values";

export type Env = Map<string, Value>;

export const FOLDABLE = new Set(["+", "-", "*", "/", "%", "==", "!=", "===", "!==", "<", "<=", ">", ">=", "&&", "||"]);

export function joinEnv(a: Env | null, b: Env | null): Env | null {
  if (!a) return b ? new Map(b) : null;
  if (!b) return a;
  // a's names, then b's others: the order of a set of both, without building one.
  const out: Env = new Map();
  for (const [k, v] of a) out.set(k, join(v, b.get(k)));
  for (const [k, v] of b) if (!a.has(k)) out.set(k, join(undefined, v));
  return out;
}

export function truthy(v: Value): boolean | undefined {
  return v.konst ? truthyConst(v.konst.v) : undefined;
}

export function truthyConst(v: ConstValue): boolean {
  return v !== null && v !== false && v !== 0 && v !== "";
}

export function fold(op: string, a: ConstValue, b: ConstValue): ConstValue | undefined {
  switch (op) {
    case "+":
      if (typeof a === "number" && typeof b === "number") return a + b;
      if (typeof a === "string" || typeof b === "string") return `${a ?? "null"}${b ?? "null"}`;
      return undefined;
    case "-":
    case "*":
    case "/":
    case "%":
      if (typeof a !== "number" || typeof b !== "number") return undefined;
      if ((op === "/" || op === "%") && b === 0) return undefined;
      return op === "-" ? a - b : op === "*" ? a * b : op === "/" ? a / b : a % b;
    case "==":
    case "===":
      return a === b;
    case "!=":
    case "!==":
      return a !== b;
    case "<":
      return a !== null && b !== null ? a < b : undefined;
    case "<=":
      return a !== null && b !== null ? a <= b : undefined;
    case ">":
      return a !== null && b !== null ? a > b : undefined;
    case ">=":
      return a !== null && b !== null ? a >= b : undefined;
    case "&&":
      return truthyConst(a) ? b : a;
    case "||":
      return truthyConst(a) ? a : b;
  }
  return undefined;
}

/** The constant value of an initialiser made only of literals (`true`, `5 == 5`, `"a" + "b"`). */
export function constOf(e: Expr, depth = 0): ConstValue | undefined {
  if (depth > 8) return undefined;
  if (e.k === "const") return e.value;
  if (e.k === "cast") return constOf(e.arg, depth + 1);
  if (e.k === "unary") {
    const v = constOf(e.arg, depth + 1);
    if (v === undefined) return undefined;
    if (e.op === "!" || e.op === "not") return !truthyConst(v);
    if (e.op === "-" && typeof v === "number") return -v;
    return undefined;
  }
  if (e.k === "binary" && FOLDABLE.has(e.op)) {
    const a = constOf(e.left, depth + 1);
    const b = constOf(e.right, depth + 1);
    return a === undefined || b === undefined ? undefined : fold(e.op, a, b);
  }
  return undefined;
}

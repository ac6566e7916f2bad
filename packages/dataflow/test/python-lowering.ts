/** Lowering helpers of the Python tests (python*.test.ts): one-file programs and their IR. */
import type { Expr, FunctionIR, ModuleIR, Stmt } from "../src/ir";
import { lowerPython } from "../src/python";

export function lower(source: string): ModuleIR {
  return lowerPython("app.py", source);
}

/** The IR without locations, for whole-shape comparisons. */
export function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === "loc" ? undefined : v))) as T;
}

export function moduleBody(source: string): Stmt[] {
  return strip(fn(lower(source), "<module>").body);
}

export function fn(m: ModuleIR, name: string): FunctionIR {
  const found = m.functions.find((f) => f.name === name);
  if (!found) throw new Error(`no function ${name} in ${m.functions.map((f) => f.name).join(", ")}`);
  return found;
}

/** The value of the single `x = …` statement of a one-line program. */
export function valueOf(source: string): Expr {
  const [first] = moduleBody(source);
  if (!first || first.k !== "assign") throw new Error(`not an assignment: ${JSON.stringify(first)}`);
  return first.value;
}

export function callOf(source: string): Extract<Expr, { k: "call" }> {
  const body = moduleBody(source);
  const last = body[body.length - 1];
  const e = last?.k === "expr" ? last.expr : last?.k === "assign" ? last.value : undefined;
  if (!e || e.k !== "call") throw new Error(`not a call: ${JSON.stringify(last)}`);
  return e;
}

/** Small helpers shared by the language lowerings. */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, Loc } from "./ir";

export function locOf(node: SgNode): Loc {
  const r = node.range();
  return { line: r.start.line + 1, column: r.start.column + 1, endLine: r.end.line + 1, endColumn: r.end.column + 1 };
}

export function namedChildren(node: SgNode): SgNode[] {
  const out: SgNode[] = [];
  for (const c of node.namedChildren()) {
    const kind = c.kind() as string;
    if (kind !== "comment" && kind !== "line_comment" && kind !== "block_comment") out.push(c);
  }
  return out;
}

/** The dotted text of a pure name chain (`a.b.c`), or undefined. */
export function chainPath(expr: Expr): string | undefined {
  if (expr.k === "var") return expr.name;
  if (expr.k === "this") return "this";
  if (expr.k === "field") return expr.path;
  return undefined;
}

export function unknown(node: SgNode, parts: Expr[]): Expr {
  return { k: "unknown", parts, loc: locOf(node) };
}

/** The node's grammar kind as a plain string (napi types it as a union per grammar). */
export function kindOf(node: SgNode): string {
  return node.kind() as string;
}

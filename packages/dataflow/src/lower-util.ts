/** Small helpers shared by the language lowerings. */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, Loc } from "./ir";

/*
 * What the lowerings ask of a node — its kind, place and named children — is kept on the node
 * object once asked: each napi call costs a microsecond or more (a list of children several),
 * and the lowerings ask most nodes their kind twice (to drop comments, then to dispatch), a
 * method's or parameter's children up to four times (modifiers, annotations, routes). On the
 * object, not in a WeakMap: the map's lookups cost more than the calls. Read-only: the same
 * Loc and array are handed to every caller.
 */
const KIND = Symbol("kind");
const LOC = Symbol("loc");
const CHILDREN = Symbol("children");
type Kept = SgNode & { [KIND]?: string; [LOC]?: Loc; [CHILDREN]?: readonly SgNode[] };

export function locOf(node: SgNode): Loc {
  const kept = node as Kept;
  if (kept[LOC]) return kept[LOC];
  const r = node.range();
  return (kept[LOC] = { line: r.start.line + 1, column: r.start.column + 1, endLine: r.end.line + 1, endColumn: r.end.column + 1 });
}

export function namedChildren(node: SgNode): readonly SgNode[] {
  const kept = node as Kept;
  if (kept[CHILDREN]) return kept[CHILDREN];
  const out: SgNode[] = [];
  for (const c of node.namedChildren() as Kept[]) {
    const kind = c.kind() as string;
    if (kind !== "comment" && kind !== "line_comment" && kind !== "block_comment") {
      c[KIND] = kind;
      out.push(c);
    }
  }
  return (kept[CHILDREN] = out);
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
  return ((node as Kept)[KIND] ??= node.kind() as string);
}

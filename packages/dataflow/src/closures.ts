/**
 * Closures (Python inner `def` and `lambda`, JavaScript function expressions, arrows and inner
 * function declarations): each is its own FunctionIR, and `captures` lists the enclosing
 * functions' locals it reads. Inside the closure such a name reads as an implicit parameter
 * (an origin `field` with key `closure::name`); where the closure is created (its `lambda`
 * expression, or a reference to an inner function by name) or called directly, the enclosing
 * function fills it in with the value the name holds there — so a tainted local of the outer
 * function that reaches a sink inside a callback (`fs.readFile(p, () => exec(cmd))`,
 * `items.forEach(…)`, `.then(…)`, an event handler, a `def` handed to a thread) is found, a
 * clean one is not. Captures are bound when the closure is created, not when it runs.
 */
import type { Expr, FunctionIR, LValue, Loc, ModuleIR, Stmt } from "./ir";
import type { FnRef, Program } from "./program";

export const CAPTURE = "closure::";

/** Sets `captures` on the functions of one module that are nested in another (by source position). */
export function markCaptures(functions: readonly FunctionIR[]): void {
  const nested = functions.filter((f) => f.name !== "<module>");
  if (nested.length < 2) return;
  // By start, the outer first where two start together; a stack holds the functions still open.
  const ordered = [...nested].sort((a, b) => a.loc.line - b.loc.line || a.loc.column - b.loc.column || outerFirst(a.loc, b.loc));
  const parent = new Map<FunctionIR, FunctionIR>();
  const open: FunctionIR[] = [];
  for (const fn of ordered) {
    while (open.length && !contains(open[open.length - 1]!.loc, fn.loc)) open.pop();
    const up = open[open.length - 1];
    if (up) parent.set(fn, up);
    open.push(fn);
  }
  if (!parent.size) return;
  const depth = (fn: FunctionIR) => {
    let d = 0;
    for (let p = parent.get(fn); p && d < 64; p = parent.get(p)) d++;
    return d;
  };
  const bound = new Map(nested.map((fn) => [fn, boundNames(fn)] as const));
  const carried = new Map<FunctionIR, Set<string>>();
  // Innermost first, so a name an inner closure captures passes through the functions between.
  for (const fn of [...parent.keys()].sort((a, b) => depth(b) - depth(a))) {
    const own = bound.get(fn) ?? new Set<string>();
    const free = new Set([...mentioned(fn)].filter((n) => !own.has(n)));
    for (const n of carried.get(fn) ?? []) free.add(n);
    const outer = new Set<string>();
    for (let p = parent.get(fn), d = 0; p && d < 64; p = parent.get(p), d++) for (const n of bound.get(p) ?? []) outer.add(n);
    const captures = [...free].filter((n) => outer.has(n)).sort();
    if (!captures.length) continue;
    fn.captures = captures;
    const up = parent.get(fn);
    if (!up) continue;
    const upBound = bound.get(up) ?? new Set<string>();
    const carry = carried.get(up) ?? new Set<string>();
    for (const n of captures) if (!upBound.has(n)) carry.add(n);
    carried.set(up, carry);
  }
}

const withCaptures = new WeakMap<Program, Map<string, FnRef[]>>();

/** The function a `lambda` expression or a name read in `fn` stands for, when it is nested in `fn` and captures something. */
export function closureOf(p: Program, module: ModuleIR, fn: FunctionIR, name: string, loc: Loc | null): FnRef | undefined {
  let index = withCaptures.get(p);
  if (!index) {
    index = new Map();
    for (const ref of p.all) if (ref.fn.captures?.length) index.set(ref.fn.name, [...(index.get(ref.fn.name) ?? []), ref]);
    withCaptures.set(p, index);
  }
  for (const ref of index.get(name) ?? []) {
    if (ref.module !== module) continue;
    if (loc ? ref.fn.loc.line === loc.line && ref.fn.loc.column === loc.column : contains(fn.loc, ref.fn.loc)) return ref;
  }
  return undefined;
}

function outerFirst(a: Loc, b: Loc): number {
  return b.endLine - a.endLine || b.endColumn - a.endColumn;
}

function contains(outer: Loc, inner: Loc): boolean {
  if (outer === inner) return false;
  const startsBefore = outer.line < inner.line || (outer.line === inner.line && outer.column <= inner.column);
  const endsAfter = outer.endLine > inner.endLine || (outer.endLine === inner.endLine && outer.endColumn >= inner.endColumn);
  const same =
    outer.line === inner.line && outer.column === inner.column && outer.endLine === inner.endLine && outer.endColumn === inner.endColumn;
  return startsBefore && endsAfter && !same;
}

/** Names a function binds: parameters, assigned and declared variables, loop and handler variables. */
function boundNames(fn: FunctionIR): Set<string> {
  const out = new Set(fn.params.map((p) => p.name));
  const target = (t: LValue): void => {
    if (t.k === "var") out.add(t.name);
    else if (t.k === "destructure") t.targets.forEach(target);
  };
  const visit = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.k === "assign") target(s.target);
      else if (s.k === "declare") out.add(s.name);
      else if (s.k === "if") {
        visit(s.then);
        visit(s.else);
      } else if (s.k === "loop") {
        if (s.each) target(s.each.target);
        visit(s.init);
        visit(s.body);
        visit(s.update);
      } else if (s.k === "switch") s.cases.forEach((c) => visit(c.body));
      else if (s.k === "try") {
        visit(s.body);
        for (const h of s.handlers) {
          if (h.param) out.add(h.param);
          visit(h.body);
        }
        visit(s.finally);
      } else if (s.k === "block") visit(s.body);
    }
  };
  visit(fn.body);
  return out;
}

/** Every variable name a function's body mentions. */
function mentioned(fn: FunctionIR): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > 400 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth + 1);
      return;
    }
    const o = node as Partial<Expr> & Record<string, unknown>;
    if (o.k === "var" && typeof o.name === "string") out.add(o.name);
    for (const [key, value] of Object.entries(o)) if (key !== "loc" && typeof value === "object") walk(value, depth + 1);
  };
  walk(fn.body, 0);
  return out;
}

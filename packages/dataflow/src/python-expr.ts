/**
 * Python expressions, assignment targets and parameter lists → dataflow IR (ir.ts). The
 * statement side (python.ts) owns one `PyExprs` per module: it holds the resolved imports (so
 * call paths name the real module), collects lambdas as FunctionIRs, and gathers walrus
 * assignments to be placed before the statement that contains them.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, FunctionIR, LValue, Loc, Param, Stmt } from "./ir";
import { chainPath, kindOf, locOf, namedChildren, unknown } from "./lower-util";

const COMPREHENSIONS = new Set(["list_comprehension", "set_comprehension", "generator_expression", "dictionary_comprehension"]);
const SEQUENCES = new Set(["list", "tuple", "set", "expression_list", "pattern_list", "tuple_pattern", "list_pattern"]);
const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "\n": "",
  "\r": "",
};

export interface ParamInfo {
  param: Param;
  /** The default value, e.g. to spot FastAPI's `Depends(...)`. */
  defaultValue: SgNode | null;
  typeNode: SgNode | null;
  /** `*args` / `**kwargs`. */
  splat: boolean;
}

/** Sets an own property even for names like `__proto__`, which Python allows as keywords. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Children that carry meaning: no comments and no parse-error fragments. */
export function parts(node: SgNode): SgNode[] {
  return namedChildren(node).filter((c) => kindOf(c) !== "ERROR");
}

export class PyExprs {
  /** Walrus (`:=`) assignments met while lowering the current statement. */
  hoisted: Stmt[] = [];
  private lambdas = 0;

  constructor(
    private readonly imports: ReadonlyMap<string, string>,
    private readonly functions: FunctionIR[],
  ) {}

  /** `sp.run` with `import subprocess as sp` → `subprocess.run`: rules see the real module. */
  resolve(chain: string): string {
    const dot = chain.indexOf(".");
    const head = dot < 0 ? chain : chain.slice(0, dot);
    const target = this.imports.get(head);
    return target === undefined ? chain : target + chain.slice(head.length);
  }

  expr(node: SgNode): Expr {
    const loc = locOf(node);
    const kind = kindOf(node);
    switch (kind) {
      case "identifier":
        return { k: "var", name: node.text(), loc };
      case "string":
        return this.string(node);
      case "concatenated_string":
        return this.concatenated(node);
      case "integer":
      case "float": {
        const n = Number(node.text().replace(/_/g, "").replace(/[lL]$/, ""));
        return Number.isFinite(n) ? { k: "const", value: n, loc } : unknown(node, []);
      }
      case "true":
        return { k: "const", value: true, loc };
      case "false":
        return { k: "const", value: false, loc };
      case "none":
        return { k: "const", value: null, loc };
      case "attribute":
        return this.attribute(node);
      case "call":
        return this.call(node);
      case "subscript":
        return this.subscript(node, loc);
      case "binary_operator": {
        const left = node.field("left");
        const right = node.field("right");
        if (!left || !right) return this.opaque(node);
        return { k: "binary", op: node.field("operator")?.text() ?? "?", left: this.expr(left), right: this.expr(right), loc };
      }
      case "boolean_operator":
        return this.booleanOp(node, loc);
      case "not_operator": {
        const arg = node.field("argument");
        return arg ? { k: "unary", op: "!", arg: this.expr(arg), loc } : unknown(node, []);
      }
      case "unary_operator": {
        const arg = node.field("argument");
        return arg ? { k: "unary", op: node.field("operator")?.text() ?? "?", arg: this.expr(arg), loc } : unknown(node, []);
      }
      case "comparison_operator":
        return this.comparison(node);
      case "conditional_expression":
        return this.conditional(node, loc);
      case "parenthesized_expression":
      case "await":
      case "as_pattern":
      case "type": {
        const inner = parts(node)[0];
        return inner ? this.expr(inner) : unknown(node, []);
      }
      case "dictionary":
        return this.dictionary(node);
      case "lambda":
        return this.lambda(node);
      case "named_expression":
        return this.namedExpr(node, loc);
      default:
        if (SEQUENCES.has(kind)) return { k: "array", items: parts(node).map((c) => this.expr(c)), loc };
        if (COMPREHENSIONS.has(kind)) return this.comprehension(node);
        // Splats, slices, yield, ellipsis, ERROR and anything new: opaque, but taint flows through.
        return unknown(
          node,
          namedChildren(node).map((c) => this.expr(c)),
        );
    }
  }
  /** A node the lowering does not model: opaque, but taint flows through its parts. */
  private opaque(node: SgNode): Expr {
    return unknown(
      node,
      parts(node).map((c) => this.expr(c)),
    );
  }

  private subscript(node: SgNode, loc: Loc): Expr {
    const value = node.field("value");
    if (!value) return this.opaque(node);
    const subs = node.fieldChildren("subscript").filter((s) => kindOf(s) !== "comment");
    const only = subs.length === 1 ? subs[0] : undefined;
    const index: Expr = only
      ? kindOf(only) === "slice"
        ? this.slice(only)
        : this.expr(only)
      : { k: "array", items: subs.map((s) => this.expr(s)), loc };
    return { k: "index", object: this.expr(value), index, loc };
  }

  /** `a:b:c` as an index: opaque, with its bounds kept for constant folding. */
  private slice(node: SgNode): Expr {
    const bounds: (Expr | null)[] = [null];
    for (const c of node.children()) {
      if (c.text() === ":") bounds.push(null);
      else if (c.isNamed() && kindOf(c) !== "comment") bounds[bounds.length - 1] = this.expr(c);
    }
    const parts = bounds.filter((b): b is Expr => b !== null);
    return { k: "unknown", parts, loc: locOf(node), slice: bounds };
  }

  /** `a and b`, `a or b`: as `&&` and `||`. */
  private booleanOp(node: SgNode, loc: Loc): Expr {
    const left = node.field("left");
    const right = node.field("right");
    if (!left || !right) return this.opaque(node);
    const op = node.field("operator")?.text() === "and" ? "&&" : "||";
    return { k: "binary", op, left: this.expr(left), right: this.expr(right), loc };
  }

  /** `then if test else otherwise`. */
  private conditional(node: SgNode, loc: Loc): Expr {
    const [then, test, otherwise] = parts(node);
    if (!then || !test || !otherwise) return this.opaque(node);
    return { k: "cond", test: this.expr(test), then: this.expr(then), else: this.expr(otherwise), loc };
  }

  /**
   * `name := value`: the binding is an assignment; the expression then reads the variable, so
   * a call in the value is not seen twice.
   */
  private namedExpr(node: SgNode, loc: Loc): Expr {
    const name = node.field("name");
    const value = node.field("value");
    if (!name || !value) return this.opaque(node);
    this.hoisted.push({
      k: "assign",
      target: { k: "var", name: name.text(), loc: locOf(name) },
      value: this.expr(value),
      op: "=",
      loc,
    });
    return { k: "var", name: name.text(), loc: locOf(name) };
  }

  lvalue(node: SgNode): LValue {
    const loc = locOf(node);
    switch (kindOf(node)) {
      case "identifier":
        return { k: "var", name: node.text(), loc };
      case "attribute":
      case "subscript": {
        const e = this.expr(node);
        if (e.k === "field" || e.k === "index") return e;
        break;
      }
      case "pattern_list":
      case "tuple_pattern":
      case "list_pattern":
      case "tuple":
      case "list":
      case "expression_list":
        return { k: "destructure", targets: parts(node).map((c) => this.lvalue(c)), loc };
      case "list_splat_pattern":
      case "list_splat":
      case "parenthesized_expression":
      case "as_pattern_target": {
        const inner = parts(node)[0];
        if (inner) return this.lvalue(inner);
        break;
      }
    }
    return { k: "var", name: `<lvalue@${loc.line}:${loc.column}>`, loc };
  }

  params(node: SgNode | null): ParamInfo[] {
    const out: ParamInfo[] = [];
    for (const p of node ? parts(node) : []) {
      const kind = kindOf(p);
      if (kind === "keyword_separator" || kind === "positional_separator") continue;
      const typeNode = kind === "typed_parameter" || kind === "typed_default_parameter" ? p.field("type") : null;
      const defaultValue = kind === "default_parameter" || kind === "typed_default_parameter" ? p.field("value") : null;
      let nameNode: SgNode | null | undefined = kind === "identifier" ? p : p.field("name");
      let splat = kind === "list_splat_pattern" || kind === "dictionary_splat_pattern";
      if (kind === "typed_parameter") {
        const inner = parts(p).find((c) => kindOf(c) !== "type");
        splat = !!inner && kindOf(inner) !== "identifier";
        nameNode = inner && splat ? parts(inner)[0] : inner;
      } else if (splat) {
        nameNode = parts(p)[0];
      }
      const param: Param = { name: nameNode?.text() ?? p.text() };
      const type = typeNode ? simpleType(typeNode.text()) : "";
      if (type) param.type = type;
      out.push({ param, defaultValue: defaultValue ?? null, typeNode: typeNode ?? null, splat });
    }
    return out;
  }

  private attribute(node: SgNode): Expr {
    const loc = locOf(node);
    const object = node.field("object");
    const name = node.field("attribute")?.text() ?? "";
    if (!object) return unknown(node, []);
    const obj = this.expr(object);
    const base = chainPath(obj);
    return { k: "field", object: obj, name, ...(base ? { path: `${base}.${name}` } : {}), loc };
  }

  private call(node: SgNode): Expr {
    const loc = locOf(node);
    const fn = node.field("function");
    const argsNode = node.field("arguments");
    const args: Expr[] = [];
    const kwargs: Record<string, Expr> = {};
    let hasKwargs = false;
    const splats: Expr[] = [];
    if (argsNode && kindOf(argsNode) !== "argument_list") args.push(this.expr(argsNode));
    for (const a of argsNode && kindOf(argsNode) === "argument_list" ? parts(argsNode) : []) {
      const kind = kindOf(a);
      if (kind === "keyword_argument") {
        const name = a.field("name")?.text();
        const value = a.field("value");
        if (name && value) {
          setOwn(kwargs, name, this.expr(value));
          hasKwargs = true;
        }
      } else if (kind === "dictionary_splat") {
        splats.push(this.expr(a));
      } else {
        args.push(this.expr(a));
      }
    }
    args.push(...splats);
    const text = node.text().slice(0, 200);
    const extra = hasKwargs ? { kwargs } : {};
    if (fn && kindOf(fn) === "identifier") {
      return { k: "call", callee: fn.text(), receiver: null, args, ...extra, path: this.resolve(fn.text()), loc, text };
    }
    if (fn && kindOf(fn) === "attribute") {
      const object = fn.field("object");
      const callee = fn.field("attribute")?.text() ?? "";
      const receiver = object ? this.expr(object) : null;
      const base = receiver ? chainPath(receiver) : undefined;
      return { k: "call", callee, receiver, args, ...extra, ...(base ? { path: `${this.resolve(base)}.${callee}` } : {}), loc, text };
    }
    // `f()(x)`, `handlers[k](x)`: no name to match rules on, but the value still depends on all of it.
    return unknown(node, [...(fn ? [this.expr(fn)] : []), ...args, ...Object.values(kwargs)]);
  }

  private comparison(node: SgNode): Expr {
    const operands = parts(node);
    const ops = node
      .children()
      .filter((c) => !c.isNamed())
      .map((c) => c.text().replace(/\s+/g, " "));
    const first = operands[0];
    if (!first || operands.length < 2 || ops.length !== operands.length - 1)
      return unknown(
        node,
        operands.map((c) => this.expr(c)),
      );
    const loc = locOf(node);
    // `a < b <= c` is `a < b and b <= c`.
    let result: Expr | null = null;
    let left = this.expr(first);
    for (let i = 1; i < operands.length; i++) {
      const right = this.expr(operands[i] as SgNode);
      const op = ops[i - 1] === "<>" ? "!=" : (ops[i - 1] ?? "?");
      const cmp: Expr = { k: "binary", op, left, right, loc };
      result = result ? { k: "binary", op: "&&", left: result, right: cmp, loc } : cmp;
      left = right;
    }
    return result ?? unknown(node, []);
  }

  private string(node: SgNode): Expr {
    const loc = locOf(node);
    const prefix = (node.children()[0]?.text() ?? "").replace(/['"]+$/, "").toLowerCase();
    const raw = prefix.includes("r");
    const fstring = prefix.includes("f") || prefix.includes("t");
    const pieces: Expr[] = [];
    let text = "";
    for (const c of node.children()) {
      const kind = kindOf(c);
      if (kind === "string_content") {
        let value = raw ? c.text() : decodeEscapes(c.text());
        if (fstring) value = value.replace(/\{\{/g, "{").replace(/\}\}/g, "}");
        text += value;
      } else if (kind === "interpolation") {
        if (text) pieces.push({ k: "const", value: text, loc });
        text = "";
        pieces.push(...this.interpolation(c));
      }
    }
    if (pieces.length === 0) return { k: "const", value: text, loc };
    if (text) pieces.push({ k: "const", value: text, loc });
    return { k: "template", parts: pieces, loc };
  }

  /** The interpolated expression, plus any expressions nested in its format spec (`{x:{width}}`). */
  private interpolation(node: SgNode): Expr[] {
    const out: Expr[] = [];
    for (const c of parts(node)) {
      const kind = kindOf(c);
      if (kind === "type_conversion") continue;
      if (kind === "format_specifier") {
        for (const f of parts(c)) {
          const inner = f.field("expression") ?? parts(f)[0];
          if (inner) out.push(this.expr(inner));
        }
      } else {
        out.push(this.expr(c));
      }
    }
    return out;
  }

  private concatenated(node: SgNode): Expr {
    const loc = locOf(node);
    const pieces = parts(node).map((s) => this.expr(s));
    if (pieces.every((p) => p.k === "const")) {
      return { k: "const", value: pieces.map((p) => (p.k === "const" ? String(p.value) : "")).join(""), loc };
    }
    return { k: "template", parts: pieces.flatMap((p) => (p.k === "template" ? p.parts : [p])), loc };
  }

  private dictionary(node: SgNode): Expr {
    const entries: { key: string | null; value: Expr }[] = [];
    for (const c of parts(node)) {
      if (kindOf(c) === "pair") {
        const keyNode = c.field("key");
        const valueNode = c.field("value");
        if (!valueNode) continue;
        const key = keyNode ? this.expr(keyNode) : null;
        entries.push({ key: key && key.k === "const" && key.value !== null ? String(key.value) : null, value: this.expr(valueNode) });
      } else {
        // `**other`: its values become ours, under keys we cannot know.
        entries.push({ key: null, value: this.expr(c) });
      }
    }
    return { k: "object", entries, loc: locOf(node) };
  }

  /**
   * `[f(x) for x in xs if p(x)]`: the `for` clauses become (hoisted) for-each loops binding
   * their targets, the `if` clauses expression statements inside them, and the value depends
   * on the element only, so `[int(i) for i in tainted]` is clean. The loop variables keep
   * their names (traces stay readable): unlike Python 3, they leak into the enclosing scope.
   */
  private comprehension(node: SgNode): Expr {
    let into = this.hoisted;
    for (const clause of parts(node)) {
      const kind = kindOf(clause);
      if (kind === "for_in_clause") {
        const left = clause.field("left");
        const right = clause.fieldChildren("right").filter((r) => r.isNamed() && kindOf(r) !== "comment");
        const loc = locOf(clause);
        const iterable: Expr =
          right.length === 1 && right[0] ? this.expr(right[0]) : { k: "array", items: right.map((r) => this.expr(r)), loc };
        const target: LValue = left ? this.lvalue(left) : { k: "var", name: "<each>", loc };
        const loop: Extract<Stmt, { k: "loop" }> = {
          k: "loop",
          kind: "foreach",
          test: null,
          init: [],
          update: [],
          body: [],
          each: { target, iterable },
          loc,
        };
        // Declared first, so a loop that never runs does not hand on an older value of the name.
        into.push(...boundNames(target).map((name): Stmt => ({ k: "declare", name, loc })), loop);
        into = loop.body;
      } else if (kind === "if_clause") {
        const test = parts(clause)[0];
        if (test) into.push({ k: "expr", expr: this.expr(test), loc: locOf(clause) });
      }
    }
    const body = node.field("body");
    const sides = body && kindOf(body) === "pair" ? [body.field("key"), body.field("value")] : [body];
    return unknown(
      node,
      sides.filter((b): b is SgNode => !!b).map((b) => this.expr(b)),
    );
  }

  private lambda(node: SgNode): Expr {
    const loc = locOf(node);
    const name = `<lambda@${loc.line}:${loc.column}#${this.lambdas++}>`;
    const fn: FunctionIR = { name, cls: null, params: this.params(node.field("parameters")).map((p) => p.param), body: [], loc };
    this.functions.push(fn);
    const body = node.field("body");
    // A walrus inside the lambda binds in the lambda, not in the statement around it.
    const outer = this.hoisted;
    this.hoisted = [];
    try {
      const value = body ? this.expr(body) : null;
      fn.body = [...this.hoisted, { k: "return", value, loc: body ? locOf(body) : loc }];
    } finally {
      this.hoisted = outer;
    }
    return { k: "lambda", name, loc };
  }
}

function boundNames(target: LValue): string[] {
  if (target.k === "var") return [target.name];
  return target.k === "destructure" ? target.targets.flatMap(boundNames) : [];
}

/** `fastapi.Request` → `Request`, `Optional[str]` → `Optional`, `"Request"` (a forward reference) → `Request`. */
export function simpleType(text: string): string {
  const head = text
    .trim()
    .replace(/^(['"])(.*)\1$/s, "$2")
    .replace(/\[.*$/s, "")
    .trim();
  return head.split(".").pop()?.trim() ?? head;
}

function decodeEscapes(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|[\s\S])/g, (whole, esc: string) => {
    const simple = SIMPLE_ESCAPES[esc];
    if (simple !== undefined && !/^[0-7]{2,3}$/.test(esc)) return simple;
    const code = /^[xuU]/.test(esc) ? parseInt(esc.slice(1), 16) : /^[0-7]+$/.test(esc) ? parseInt(esc, 8) : NaN;
    // Python keeps unknown escapes (`\d`) as written.
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

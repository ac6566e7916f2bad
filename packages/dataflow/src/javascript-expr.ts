/**
 * Expressions and assignment targets of the JavaScript/TypeScript lowering. Function and
 * class literals are left to the subclass (javascript-lower.ts), which owns the function list.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, LValue, Stmt } from "./ir";
import type { Imports } from "./javascript-imports";
import { fieldOf, kids, kindOf, locOf, moduleName, stringValue, truncate, unescapeJs, valueKids } from "./javascript-util";

/** Past this nesting (minified bundles, huge concatenations) expressions are flattened, not recursed. */
const MAX_DEPTH = 300;

const FUNCTION_KINDS = new Set(["function_expression", "arrow_function", "generator_function", "function", "method_definition"]);
const TRANSPARENT = new Set(["parenthesized_expression", "await_expression", "template_substitution", "instantiation_expression"]);
const CASTS = new Set(["as_expression", "satisfies_expression", "non_null_expression", "type_assertion"]);

export abstract class ExprLowering {
  /** Statements an expression needs run first: assignments nested in expressions (`a = b = c`). */
  protected pending: Stmt[] = [];
  private depth = 0;

  constructor(protected readonly imports: Imports) {}

  /** A function literal (or object-literal method): its FunctionIR is recorded, a lambda expr returned. */
  protected abstract lambda(node: SgNode, hint: string | undefined): Expr;
  /** A class expression: its ClassIR is recorded. */
  protected abstract classExpr(node: SgNode, hint: string | undefined): Expr;

  /** `hint` names a function literal after the variable or property it is assigned to. */
  expr(node: SgNode, hint?: string): Expr {
    if (this.depth > MAX_DEPTH) return flattened(node);
    this.depth++;
    try {
      return this.exprInner(node, hint);
    } finally {
      this.depth--;
    }
  }

  private exprInner(node: SgNode, hint: string | undefined): Expr {
    const kind = kindOf(node);
    const loc = locOf(node);
    if (TRANSPARENT.has(kind)) {
      const inner = valueKids(node);
      if (inner.length === 1 && inner[0]) return this.expr(inner[0], hint);
      return { k: "unknown", parts: inner.map((c) => this.expr(c)), loc };
    }
    if (CASTS.has(kind)) {
      const inner = valueKids(node)[0];
      return inner ? { k: "cast", arg: this.expr(inner, hint), loc } : { k: "unknown", parts: [], loc };
    }
    if (FUNCTION_KINDS.has(kind)) return this.lambda(node, hint);
    switch (kind) {
      case "identifier":
        return node.text() === "undefined" ? { k: "const", value: null, loc } : { k: "var", name: node.text(), loc };
      case "shorthand_property_identifier":
        return { k: "var", name: node.text(), loc };
      case "this":
      case "super":
        return { k: "this", loc };
      case "true":
      case "false":
        return { k: "const", value: kind === "true", loc };
      case "null":
      case "undefined":
        return { k: "const", value: null, loc };
      case "number": {
        const value = Number(node.text().replace(/_/g, "").replace(/n$/, ""));
        return Number.isFinite(value) ? { k: "const", value, loc } : { k: "unknown", parts: [], loc };
      }
      case "string":
        return { k: "const", value: stringValue(node), loc };
      case "regex":
        return { k: "const", value: node.text(), loc };
      case "template_string":
        return this.template(node);
      case "member_expression":
      case "subscript_expression":
        return this.access(node);
      case "call_expression":
        return this.call(node);
      case "new_expression":
        return this.newExpr(node);
      case "binary_expression": {
        const op = fieldOf(node, "operator")?.text() ?? "?";
        return { k: "binary", op: op === "??" ? "||" : op, left: this.operand(node, "left"), right: this.operand(node, "right"), loc };
      }
      case "unary_expression":
      case "update_expression": {
        const op = fieldOf(node, "operator")?.text() ?? "?";
        return { k: "unary", op, arg: this.operand(node, "argument"), loc };
      }
      case "ternary_expression":
        return {
          k: "cond",
          test: this.operand(node, "condition"),
          then: this.operand(node, "consequence"),
          else: this.operand(node, "alternative"),
          loc,
        };
      case "array":
        return { k: "array", items: kids(node).map((c) => this.item(c)), loc };
      case "object":
        return this.object(node);
      case "class":
        return this.classExpr(node, hint);
      case "assignment_expression":
      case "augmented_assignment_expression":
        return this.nestedAssign(node);
    }
    return { k: "unknown", parts: this.parts(node), loc };
  }

  /** Sub-expressions of a node we do not model: taint still flows through them. */
  protected parts(node: SgNode): Expr[] {
    return valueKids(node)
      .map((c) => this.expr(c))
      .filter((e) => !(e.k === "unknown" && e.parts.length === 0));
  }

  private operand(node: SgNode, field: string): Expr {
    const child = fieldOf(node, field);
    return child ? this.expr(child) : { k: "unknown", parts: [], loc: locOf(node) };
  }

  private item(node: SgNode): Expr {
    if (kindOf(node) !== "spread_element") return this.expr(node);
    return { k: "unknown", parts: this.parts(node), loc: locOf(node) };
  }

  private template(node: SgNode): Expr {
    const loc = locOf(node);
    const parts: Expr[] = [];
    let text = "";
    let hasSubstitution = false;
    for (const c of kids(node)) {
      const kind = kindOf(c);
      if (kind === "string_fragment") text += c.text();
      else if (kind === "escape_sequence") text += unescapeJs(c.text());
      else if (kind === "template_substitution") {
        hasSubstitution = true;
        if (text) parts.push({ k: "const", value: text, loc });
        text = "";
        parts.push(this.expr(c));
      }
    }
    if (!hasSubstitution) return { k: "const", value: text, loc };
    if (text) parts.push({ k: "const", value: text, loc });
    return { k: "template", parts, loc };
  }

  /** `a.b`, `a?.b`, `a[i]`; `a["b"]` with a constant key reads like `a.b`. */
  private access(node: SgNode): Expr {
    const loc = locOf(node);
    const objectNode = fieldOf(node, "object");
    const object: Expr = objectNode ? this.expr(objectNode) : { k: "unknown", parts: [], loc };
    const name = memberName(node);
    if (name !== undefined) {
      const base = this.pathOf(object);
      return { k: "field", object, name, ...(base !== undefined ? { path: `${base}.${name}` } : {}), loc };
    }
    const index = fieldOf(node, "index");
    return { k: "index", object, index: index ? this.expr(index) : { k: "unknown", parts: [], loc }, loc };
  }

  /** Dotted text of a pure name chain, its head resolved through the imports. */
  protected pathOf(e: Expr): string | undefined {
    switch (e.k) {
      case "var":
        return this.imports.paths[e.name] ?? e.name;
      case "this":
        return "this";
      case "field":
        return e.path;
      case "cast":
        return this.pathOf(e.arg);
      case "call": {
        const first = e.args[0];
        const isRequire = e.receiver === null && (e.callee === "require" || e.callee === "import");
        return isRequire && first?.k === "const" && typeof first.value === "string" ? moduleName(first.value) : undefined;
      }
      default:
        return undefined;
    }
  }

  private call(node: SgNode): Expr {
    const loc = locOf(node);
    const text = truncate(node.text());
    const argsNode = fieldOf(node, "arguments");
    const args = argsNode ? this.args(argsNode) : [];
    const fnNode = calleeNode(fieldOf(node, "function"));
    if (!fnNode) return { k: "unknown", parts: args, loc };
    const fnKind = kindOf(fnNode);
    if (fnKind === "identifier") {
      const local = fnNode.text();
      const path = this.imports.paths[local] ?? local;
      return { k: "call", callee: this.imports.members[local] ?? local, receiver: null, args, path, loc, text };
    }
    if (fnKind === "super" || fnKind === "import") return { k: "call", callee: fnKind, receiver: null, args, loc, text };
    const fn = this.expr(fnNode);
    if (fn.k === "field") {
      const sent = fn.name === "send" ? jsonBody(fn.object, args) : args;
      return {
        k: "call",
        callee: fn.name,
        receiver: fn.object,
        args: sent,
        ...(fn.path !== undefined ? { path: fn.path } : {}),
        loc,
        text,
      };
    }
    if (fn.k === "lambda") return { k: "call", callee: fn.name, receiver: null, args, loc, text };
    // Calling a computed function value (`handlers[k](x)`, `f()(x)`): no name to match, but
    // the function value rides as the receiver so its taint still reaches the result.
    return { k: "call", callee: "", receiver: fn, args, loc, text };
  }

  /** Call arguments; a tagged template passes its strings array, then each substitution. */
  private args(node: SgNode): Expr[] {
    if (kindOf(node) !== "template_string") return kids(node).map((c) => this.item(c));
    const loc = locOf(node);
    const strings: Expr[] = [];
    const values: Expr[] = [];
    let text = "";
    for (const c of kids(node)) {
      const kind = kindOf(c);
      if (kind === "string_fragment") text += c.text();
      else if (kind === "escape_sequence") text += unescapeJs(c.text());
      else if (kind === "template_substitution") {
        strings.push({ k: "const", value: text, loc });
        text = "";
        values.push(this.expr(c));
      }
    }
    strings.push({ k: "const", value: text, loc });
    return [{ k: "array", items: strings, loc }, ...values];
  }

  private newExpr(node: SgNode): Expr {
    const loc = locOf(node);
    const argsNode = fieldOf(node, "arguments");
    const args = argsNode ? this.args(argsNode) : [];
    const ctor = fieldOf(node, "constructor");
    const cls = ctor ? lastName(ctor) : undefined;
    // `new URL("/login", request.url)`: a path from the root keeps only the base's own origin, so
    // the result is the server's own site whatever the request's URL said.
    if (cls === "URL" && args.length === 2 && args[0]?.k === "const" && /^\/(?![/\\])/.test(String(args[0].value)))
      return { k: "new", cls, args: [args[0]], loc, text: truncate(node.text()) };
    if (cls !== undefined) return { k: "new", cls, args, loc, text: truncate(node.text()) };
    return { k: "unknown", parts: [...(ctor ? [this.expr(ctor)] : []), ...args], loc };
  }

  private object(node: SgNode): Expr {
    const entries: { key: string | null; value: Expr }[] = [];
    for (const c of kids(node)) {
      const kind = kindOf(c);
      if (kind === "pair") {
        const keyNode = fieldOf(c, "key");
        const key = keyNode ? propertyKey(keyNode) : null;
        const valueNode = fieldOf(c, "value");
        entries.push({ key, value: valueNode ? this.expr(valueNode, key ?? undefined) : { k: "unknown", parts: [], loc: locOf(c) } });
      } else if (kind === "shorthand_property_identifier") {
        entries.push({ key: c.text(), value: { k: "var", name: c.text(), loc: locOf(c) } });
      } else if (kind === "method_definition") {
        const keyNode = fieldOf(c, "name");
        const key = keyNode ? propertyKey(keyNode) : null;
        entries.push({ key, value: this.lambda(c, key ?? undefined) });
      } else if (kind === "spread_element") {
        entries.push({ key: null, value: { k: "unknown", parts: this.parts(c), loc: locOf(c) } });
      }
    }
    return { k: "object", entries, loc: locOf(node) };
  }

  /** `a = b` inside an expression: the assignment runs first, the expression reads the target. */
  private nestedAssign(node: SgNode): Expr {
    const loc = locOf(node);
    const assign = this.assignment(node);
    if (!assign) return { k: "unknown", parts: this.parts(node), loc };
    this.pending.push(assign);
    return readBack(assign.target, loc);
  }

  /** An assignment expression as a statement: `=`, compound and logical (`||=`, `??=`). */
  protected assignment(node: SgNode): Extract<Stmt, { k: "assign" }> | null {
    const left = fieldOf(node, "left");
    const right = fieldOf(node, "right");
    if (!left || !right) return null;
    const op = kindOf(node) === "assignment_expression" ? "=" : (fieldOf(node, "operator")?.text() ?? "=");
    const target = this.lvalue(left);
    const value = this.expr(right, targetName(target));
    return { k: "assign", target, value, op, loc: locOf(node) };
  }

  /** Assignment and declaration targets, destructuring patterns included. */
  lvalue(node: SgNode): LValue {
    const loc = locOf(node);
    const kind = kindOf(node);
    switch (kind) {
      case "identifier":
      case "shorthand_property_identifier_pattern":
        return { k: "var", name: node.text(), loc };
      case "member_expression":
      case "subscript_expression": {
        const access = this.access(node);
        if (access.k === "field" || access.k === "index") return access;
        break;
      }
      case "array_pattern":
      case "object_pattern":
        return { k: "destructure", targets: kids(node).map((c) => this.lvalue(c)), loc };
      case "assignment_pattern":
      case "object_assignment_pattern": {
        const left = fieldOf(node, "left");
        if (left) return this.lvalue(left);
        break;
      }
      case "pair_pattern": {
        const value = fieldOf(node, "value");
        if (value) return this.lvalue(value);
        break;
      }
    }
    const inner = valueKids(node);
    if (inner.length === 1 && inner[0]) return this.lvalue(inner[0]);
    return { k: "destructure", targets: inner.map((c) => this.lvalue(c)), loc };
  }
}

function readBack(target: LValue, loc: Expr["loc"]): Expr {
  if (target.k === "destructure") return { k: "unknown", parts: target.targets.map((t) => readBack(t, loc)), loc };
  return target;
}

function targetName(target: LValue): string | undefined {
  if (target.k === "var" || target.k === "field") return target.name;
  return undefined;
}

/** Callee position: `(0, cp.exec)(x)` (compiled TypeScript), `(fn)(x)` and `fn!(x)` call the inner function. */
function calleeNode(node: SgNode | null): SgNode | null {
  let current = node;
  while (current) {
    const kind = kindOf(current);
    if (kind !== "parenthesized_expression" && kind !== "sequence_expression" && kind !== "non_null_expression") return current;
    const inner = valueKids(current);
    current = inner[inner.length - 1] ?? null;
  }
  return current;
}

/** The property name of `a.b` or of `a["b"]`; undefined for a computed index. */
function memberName(node: SgNode): string | undefined {
  const prop = fieldOf(node, "property");
  if (prop) return prop.text();
  const index = fieldOf(node, "index");
  return index && kindOf(index) === "string" ? stringValue(index) : undefined;
}

function propertyKey(node: SgNode): string | null {
  const kind = kindOf(node);
  if (kind === "string") return stringValue(node);
  if (kind === "computed_property_name") {
    const inner = valueKids(node)[0];
    return inner && kindOf(inner) === "string" ? stringValue(inner) : null;
  }
  return node.text();
}

/** The simple name of a constructor reference: `X`, `ns.X`, `(X)`. */
function lastName(node: SgNode): string | undefined {
  const kind = kindOf(node);
  if (kind === "identifier") return node.text();
  if (kind === "member_expression") return fieldOf(node, "property")?.text();
  if (kind === "parenthesized_expression" || kind === "non_null_expression") {
    const inner = valueKids(node)[0];
    return inner ? lastName(inner) : undefined;
  }
  return undefined;
}

/** Every name under a too-deep node, as one unknown: keeps taint flowing without recursion. */
function flattened(node: SgNode): Expr {
  const loc = locOf(node);
  const names = node.findAll({ rule: { kind: "identifier" } }).map((n): Expr => ({ k: "var", name: n.text(), loc: locOf(n) }));
  return { k: "unknown", parts: names, loc };
}

/** The response a chain starts from: `res` in `res.status(400).send(…)`. */
function responseRoot(e: Expr): string | undefined {
  if (e.k === "var") return e.name;
  if (e.k === "call" && e.receiver) return responseRoot(e.receiver);
  return undefined;
}

/**
 * Express's and Fastify's `send` serialise an object or array literal as JSON (`res.send({ error })`
 * is `res.json(…)`): the argument is lowered as the `JSON.stringify` the framework applies.
 */
function jsonBody(receiver: Expr, args: Expr[]): Expr[] {
  const [first, ...rest] = args;
  if (!first || (first.k !== "object" && first.k !== "array") || !/^(res|response|reply)$/.test(responseRoot(receiver) ?? "")) return args;
  const json: Expr = { k: "var", name: "JSON", loc: first.loc };
  return [
    { k: "call", callee: "stringify", receiver: json, args: [first], path: "JSON.stringify", loc: first.loc, text: "JSON.stringify(…)" },
    ...rest,
  ];
}

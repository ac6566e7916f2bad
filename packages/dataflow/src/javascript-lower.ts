/**
 * Functions, classes and statements of the JavaScript/TypeScript lowering. Every function
 * literal becomes its own FunctionIR; where it appears the expression is a `lambda` naming it.
 */
import type { SgNode } from "@ast-grep/napi";
import type { ClassIR, Expr, FunctionIR, Param, Stmt } from "./ir";
import { ExprLowering } from "./javascript-expr";
import { decoratorName, NEST_REQUEST_DECORATORS, type ExportedFn } from "./javascript-frameworks";
import type { Imports } from "./javascript-imports";
import { fieldKids, fieldOf, hasToken, isTypeNode, kids, kindOf, locOf, simpleTypeName, stringValue, valueKids } from "./javascript-util";

const NOTHING = new Set([
  "import_statement",
  "empty_statement",
  "debugger_statement",
  "hash_bang_line",
  "comment",
  "type_alias_declaration",
  "interface_declaration",
  "ambient_declaration",
  "function_signature",
  "enum_declaration",
  "import_alias",
]);
const LOOPS = new Set(["while_statement", "do_statement", "for_statement", "for_in_statement"]);
/** Assignment targets that say nothing about the function (`module.exports = function …`). */
const ANONYMOUS_HINTS = new Set(["exports", "default", "module", "prototype"]);

export class JsLowering extends ExprLowering {
  readonly functions: FunctionIR[] = [];
  readonly classes: ClassIR[] = [];
  readonly exported: ExportedFn[] = [];
  private cls: ClassIR | null = null;
  private readonly generated = new Set<string>();

  constructor(imports: Imports) {
    super(imports);
  }

  module(root: SgNode): void {
    const fn: FunctionIR = { name: "<module>", cls: null, params: [], body: [], loc: locOf(root) };
    this.functions.push(fn);
    fn.body = this.stmts(kids(root));
  }

  protected override lambda(node: SgNode, hint: string | undefined): Expr {
    const own = fieldOf(node, "name");
    const ownName = own && (kindOf(own) === "identifier" || kindOf(own) === "property_identifier") ? own.text() : undefined;
    const name = this.lambdaName(node, [hint, ownName]);
    this.function(node, name, {});
    return { k: "lambda", name, loc: locOf(node) };
  }

  protected override classExpr(node: SgNode, hint: string | undefined): Expr {
    const cls = this.classDecl(node, hint);
    return { k: "var", name: cls.name, loc: locOf(node) };
  }

  /**
   * The variable or property a function literal is assigned to names it, so calls by that
   * name resolve to it; two literals may share such a name (calls then reach both). Otherwise
   * a generated name, unique in the module.
   */
  private lambdaName(node: SgNode, candidates: (string | undefined)[]): string {
    const named = candidates.find((c) => c && !ANONYMOUS_HINTS.has(c));
    if (named) return named;
    const loc = locOf(node);
    let name = `<lambda@${loc.line}:${loc.column}>`;
    for (let n = 2; this.generated.has(name); n++) name = `<lambda@${loc.line}:${loc.column}#${n}>`;
    this.generated.add(name);
    return name;
  }

  /** Any function-like node: declaration, expression, arrow, method. */
  private function(node: SgNode, name: string, flags: { isStatic?: boolean; isConstructor?: boolean }): FunctionIR {
    const fn: FunctionIR = { name, cls: this.cls?.name ?? null, params: [], body: [], loc: locOf(node), ...flags };
    this.functions.push(fn);
    const saved = this.pending;
    this.pending = [];
    try {
      const prologue: Stmt[] = [];
      const sources: NonNullable<FunctionIR["sourceParams"]> = [];
      fn.params = this.params(node, prologue, sources, flags.isConstructor === true);
      if (sources.length) fn.sourceParams = sources;
      const body = fieldOf(node, "body");
      let stmts: Stmt[] = [];
      if (body && kindOf(body) === "statement_block") stmts = this.stmts(kids(body));
      else if (body) stmts = this.flush(() => [{ k: "return", value: this.expr(body), loc: locOf(body) }]);
      fn.body = [...this.pending, ...prologue, ...stmts];
    } finally {
      this.pending = saved;
    }
    return fn;
  }

  /** Parameters; destructured ones get a generated name and a destructuring prologue. */
  private params(node: SgNode, prologue: Stmt[], sources: NonNullable<FunctionIR["sourceParams"]>, isConstructor: boolean): Param[] {
    const single = fieldOf(node, "parameter");
    if (single) return [{ name: single.text() }];
    const list = fieldOf(node, "parameters");
    const params: Param[] = [];
    for (const p of list ? kids(list).filter((c) => !isTypeNode(c)) : []) {
      const kind = kindOf(p);
      const typed = kind === "required_parameter" || kind === "optional_parameter";
      let target: SgNode | null = typed ? fieldOf(p, "pattern") : p;
      let fallback: SgNode | null = null;
      if (target && (kindOf(target) === "assignment_pattern" || kindOf(target) === "object_assignment_pattern")) {
        fallback = fieldOf(target, "right");
        target = fieldOf(target, "left");
      }
      if (typed && !fallback) fallback = fieldOf(p, "value");
      if (target && kindOf(target) === "rest_pattern") target = kids(target)[0] ?? null;
      if (!target || kindOf(target) === "this") continue;
      const isName = kindOf(target) === "identifier";
      const name = isName ? target.text() : `<param${params.length}>`;
      const typeText = typed ? fieldOf(p, "type")?.text() : undefined;
      const type = typeText ? simpleTypeName(typeText) : undefined;
      const decorator = typed ? decoratorName(p) : undefined;
      if (decorator && NEST_REQUEST_DECORATORS.has(decorator))
        sources.push({ index: params.length, label: `NestJS @${decorator} parameter \`${name}\`` });
      params.push(type ? { name, type } : { name });
      const loc = locOf(p);
      // A default joins the argument's value: taint may come from either.
      const value = fallback ? this.expr(fallback) : null;
      if (value && value.k !== "const") prologue.push({ k: "assign", target: { k: "var", name, loc }, value, op: "||=", loc });
      if (!isName) prologue.push({ k: "assign", target: this.lvalue(target), value: { k: "var", name, loc }, op: "=", loc, decl: true });
      // TypeScript parameter properties (`constructor(private db: Db)`) declare and set a field.
      if (isConstructor && typed && isName && p.children().some((c) => kindOf(c) === "accessibility_modifier" || c.text() === "readonly")) {
        this.cls?.fields.push({ name, value: null, isStatic: false, isFinal: hasToken(p, "readonly"), loc });
        prologue.push({
          k: "assign",
          target: { k: "field", object: { k: "this", loc }, name, path: `this.${name}`, loc },
          value: { k: "var", name, loc },
          op: "=",
          loc,
        });
      }
    }
    return params;
  }

  classDecl(node: SgNode, hint?: string): ClassIR {
    const loc = locOf(node);
    const cls: ClassIR = {
      name: fieldOf(node, "name")?.text() ?? hint ?? `<class@${loc.line}:${loc.column}>`,
      superclass: null,
      fields: [],
    };
    this.classes.push(cls);
    const heritage = kids(node).find((c) => kindOf(c) === "class_heritage");
    for (const clause of heritage ? kids(heritage) : []) {
      const kind = kindOf(clause);
      if (kind === "implements_clause") cls.interfaces = kids(clause).map((t) => simpleTypeName(t.text()) ?? t.text());
      else {
        const base = kind === "extends_clause" ? fieldOf(clause, "value") : clause;
        if (base) cls.superclass = simpleTypeName(base.text()) ?? base.text();
      }
    }
    const outer = this.cls;
    this.cls = cls;
    try {
      const body = fieldOf(node, "body");
      for (const member of body ? kids(body) : []) this.member(member, cls);
    } finally {
      this.cls = outer;
    }
    return cls;
  }

  private member(member: SgNode, cls: ClassIR): void {
    const kind = kindOf(member);
    const isStatic = hasToken(member, "static");
    if (kind === "method_definition") {
      const nameNode = fieldOf(member, "name");
      const name = nameNode ? (kindOf(nameNode) === "string" ? stringValue(nameNode) : nameNode.text()) : "<method>";
      const isConstructor = name === "constructor" && !isStatic;
      // "<init>" is the name the engine resolves `new Cls(…)` to, whatever the language.
      this.function(member, isConstructor ? "<init>" : name, {
        ...(isStatic ? { isStatic } : {}),
        ...(isConstructor ? { isConstructor } : {}),
      });
    } else if (kind === "field_definition" || kind === "public_field_definition") {
      const nameNode = fieldOf(member, kind === "field_definition" ? "property" : "name");
      const name = nameNode ? (kindOf(nameNode) === "string" ? stringValue(nameNode) : nameNode.text()) : "<field>";
      const valueNode = fieldOf(member, "value");
      const saved = this.pending;
      this.pending = [];
      // Hoisted assignments of an initializer have no statement list to go to; they are rare.
      const value = valueNode ? this.expr(valueNode, name) : null;
      this.pending = saved;
      cls.fields.push({ name, value, isStatic, isFinal: hasToken(member, "readonly"), loc: locOf(member) });
    } else if (kind === "class_static_block") {
      this.function(member, "<static>", { isStatic: true });
    }
  }

  /** A statement list; one statement that fails to lower becomes an unknown, not a failed module. */
  stmts(nodes: SgNode[]): Stmt[] {
    const out: Stmt[] = [];
    for (const node of nodes) {
      try {
        out.push(...this.stmt(node));
      } catch {
        out.push({ k: "expr", expr: { k: "unknown", parts: [], loc: locOf(node) }, loc: locOf(node) });
      }
    }
    return out;
  }

  /** Lowers with nested assignments hoisted in front. */
  private flush(build: () => Stmt[]): Stmt[] {
    const saved = this.pending;
    this.pending = [];
    try {
      const out = build();
      return [...this.pending, ...out];
    } finally {
      this.pending = saved;
    }
  }

  /** A condition: its value, and the assignments nested in it (re-run where it is re-evaluated). */
  private test(node: SgNode | null): { test: Expr | null; pre: Stmt[] } {
    const saved = this.pending;
    this.pending = [];
    try {
      const test = node && kindOf(node) !== "empty_statement" ? this.expr(node) : null;
      return { test, pre: this.pending };
    } finally {
      this.pending = saved;
    }
  }

  /** A branch or loop body: a block is spliced in rather than nested. */
  private body(node: SgNode | null | undefined): Stmt[] {
    if (!node) return [];
    return kindOf(node) === "statement_block" ? this.stmts(kids(node)) : this.stmts([node]);
  }

  private stmt(node: SgNode): Stmt[] {
    const kind = kindOf(node);
    const loc = locOf(node);
    if (NOTHING.has(kind) || isTypeNode(node)) return [];
    if (LOOPS.has(kind)) return this.loop(node);
    switch (kind) {
      case "expression_statement": {
        const inner = valueKids(node)[0];
        return inner ? this.flush(() => this.exprStmt(inner)) : [];
      }
      case "lexical_declaration":
      case "variable_declaration":
      case "using_declaration":
        return this.flush(() => this.declaration(node));
      case "return_statement":
      case "throw_statement": {
        const inner = valueKids(node)[0];
        return this.flush(() => [{ k: kind === "return_statement" ? "return" : "throw", value: inner ? this.expr(inner) : null, loc }]);
      }
      case "if_statement": {
        const { test, pre } = this.test(fieldOf(node, "condition"));
        const alternative = fieldOf(node, "alternative");
        const elseBody = alternative ? this.body(valueKids(alternative)[0]) : [];
        return [
          ...pre,
          { k: "if", test: test ?? { k: "unknown", parts: [], loc }, then: this.body(fieldOf(node, "consequence")), else: elseBody, loc },
        ];
      }
      case "switch_statement":
        return this.switchStmt(node);
      case "try_statement":
        return [this.tryStmt(node)];
      case "break_statement":
        return [{ k: "break", loc }];
      case "continue_statement":
        return [{ k: "continue", loc }];
      case "labeled_statement": {
        const body = fieldOf(node, "body");
        return body ? this.stmts([body]) : [];
      }
      case "statement_block":
        return [{ k: "block", body: this.stmts(kids(node)), loc }];
      case "function_declaration":
      case "generator_function_declaration":
        this.function(node, fieldOf(node, "name")?.text() ?? "<function>", {});
        return [];
      case "class_declaration":
      case "abstract_class_declaration":
        this.classDecl(node);
        return [];
      case "export_statement":
        return this.exportStmt(node);
      case "module":
      case "internal_module":
        return this.body(fieldOf(node, "body"));
      case "with_statement":
        return [
          ...this.flush(() => [{ k: "expr", expr: this.expr(fieldOf(node, "object") ?? node), loc }]),
          ...this.body(fieldOf(node, "body")),
        ];
      case "ERROR":
        return this.stmts(valueKids(node));
    }
    return this.flush(() => this.exprStmt(node));
  }

  private exprStmt(node: SgNode): Stmt[] {
    const kind = kindOf(node);
    const loc = locOf(node);
    if (kind === "parenthesized_expression" || kind === "sequence_expression") return valueKids(node).flatMap((c) => this.exprStmt(c));
    if (kind === "assignment_expression" || kind === "augmented_assignment_expression") {
      const assign = this.assignment(node);
      if (assign) return [assign];
    }
    if (kind === "update_expression") {
      const arg = fieldOf(node, "argument");
      const op = fieldOf(node, "operator")?.text() === "--" ? "-=" : "+=";
      if (arg) return [{ k: "assign", target: this.lvalue(arg), value: { k: "const", value: 1, loc }, op, loc }];
    }
    // Directive prologues ("use strict"), bare constants and stray tokens have no effect.
    if (kind === "string" || kind === "number") return [];
    const expr = this.expr(node);
    return expr.k === "unknown" && expr.parts.length === 0 ? [] : [{ k: "expr", expr, loc }];
  }

  private declaration(node: SgNode): Stmt[] {
    const out: Stmt[] = [];
    for (const d of kids(node).filter((c) => kindOf(c) === "variable_declarator")) {
      const nameNode = fieldOf(d, "name");
      const valueNode = fieldOf(d, "value");
      if (!nameNode) continue;
      const loc = locOf(d);
      if (!valueNode) {
        if (kindOf(nameNode) === "identifier") out.push({ k: "declare", name: nameNode.text(), loc });
        continue;
      }
      const target = this.lvalue(nameNode);
      out.push({
        k: "assign",
        target,
        value: this.expr(valueNode, target.k === "var" ? target.name : undefined),
        op: "=",
        loc,
        decl: true,
      });
    }
    return out;
  }

  private loop(node: SgNode): Stmt[] {
    const kind = kindOf(node);
    const loc = locOf(node);
    if (kind === "for_in_statement") {
      const left = fieldOf(node, "left");
      const right = fieldOf(node, "right");
      return this.flush(() => {
        const iterable: Expr = right ? this.expr(right) : { k: "unknown", parts: [], loc };
        const target = left ? this.lvalue(left) : { k: "destructure" as const, targets: [], loc };
        return [
          {
            k: "loop",
            kind: "foreach",
            test: null,
            init: [],
            update: [],
            body: this.body(fieldOf(node, "body")),
            each: { target, iterable },
            loc,
          },
        ];
      });
    }
    if (kind === "for_statement") {
      const initNode = fieldOf(node, "initializer");
      const init = initNode ? this.stmts([initNode]) : [];
      const { test, pre } = this.test(fieldOf(node, "condition"));
      const incr = fieldOf(node, "increment");
      const update = incr ? this.flush(() => this.exprStmt(incr)) : [];
      const body = this.body(fieldOf(node, "body"));
      return [{ k: "loop", kind: "for", test, init: [...init, ...pre], update: [...update, ...structuredClone(pre)], body, loc }];
    }
    const { test, pre } = this.test(fieldOf(node, "condition"));
    const body = [...this.body(fieldOf(node, "body")), ...structuredClone(pre)];
    const isDo = kind === "do_statement";
    return [...(isDo ? [] : pre), { k: "loop", kind: isDo ? "do" : "while", test, init: [], update: [], body, loc }];
  }

  private switchStmt(node: SgNode): Stmt[] {
    const loc = locOf(node);
    return this.flush(() => {
      const valueNode = fieldOf(node, "value");
      const test: Expr = valueNode ? this.expr(valueNode) : { k: "unknown", parts: [], loc };
      const body = fieldOf(node, "body");
      const cases = (body ? kids(body) : []).map((c) => {
        const value = kindOf(c) === "switch_case" ? fieldOf(c, "value") : null;
        return { values: value ? [this.expr(value)] : null, body: this.stmts(fieldKids(c, "body")) };
      });
      return [{ k: "switch", test, cases, loc }];
    });
  }

  private tryStmt(node: SgNode): Stmt {
    const handler = fieldOf(node, "handler");
    const finalizer = fieldOf(node, "finalizer");
    const param = handler ? fieldOf(handler, "parameter") : null;
    const handlers = handler
      ? [{ param: param && kindOf(param) === "identifier" ? param.text() : null, body: this.body(fieldOf(handler, "body")) }]
      : [];
    return {
      k: "try",
      body: this.body(fieldOf(node, "body")),
      handlers,
      finally: finalizer ? this.body(fieldOf(finalizer, "body")) : [],
      loc: locOf(node),
    };
  }

  private exportStmt(node: SgNode): Stmt[] {
    const isDefault = hasToken(node, "default");
    const decl = fieldOf(node, "declaration");
    if (decl) {
      const before = this.functions.length;
      const out = this.stmt(decl);
      const dk = kindOf(decl);
      if (dk === "function_declaration" || dk === "generator_function_declaration") {
        const fn = this.functions[before];
        if (fn) this.exported.push({ name: fn.name, exportName: isDefault ? "default" : fn.name, isDefault });
      }
      for (const s of out) {
        if (s.k === "assign" && s.target.k === "var" && s.value.k === "lambda")
          this.exported.push({ name: s.value.name, exportName: s.target.name, isDefault: false });
      }
      return out;
    }
    const value = fieldOf(node, "value") ?? valueKids(node).find((c) => kindOf(c) !== "export_clause" && kindOf(c) !== "string");
    if (value) {
      const out = this.flush(() => this.exprStmt(value));
      const expr = out.length === 1 && out[0]?.k === "expr" ? out[0].expr : null;
      if (expr?.k === "lambda" || expr?.k === "var") this.exported.push({ name: expr.name, exportName: "default", isDefault: true });
      return out.filter((s) => !(s.k === "expr" && (s.expr.k === "lambda" || s.expr.k === "var")));
    }
    const clause = kids(node).find((c) => kindOf(c) === "export_clause");
    if (clause && !fieldOf(node, "source")) {
      for (const spec of kids(clause)) {
        const name = fieldOf(spec, "name")?.text();
        const alias = fieldOf(spec, "alias")?.text() ?? name;
        if (name && alias) this.exported.push({ name, exportName: alias, isDefault: alias === "default" });
      }
    }
    return [];
  }
}

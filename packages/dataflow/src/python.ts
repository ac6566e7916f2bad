/**
 * Python → dataflow IR (ir.ts), from tree-sitter-python through @ast-grep/napi. Top-level code
 * becomes the function "<module>"; every `def` (methods, nested and async ones) and every
 * lambda becomes its own FunctionIR; classes become ClassIR with their class-level assignments
 * as fields. Expressions are in python-expr.ts, framework handler parameters in python-routes.ts.
 *
 * Choices the analysis relies on:
 * - Parameters are kept exactly as written, `self`/`cls` included, so argument indexes line up
 *   for plain function calls. A method is a FunctionIR with `cls` set and `isStatic` unset: its
 *   params[0] is the receiver (a call `obj.m(a)` passes `a` to params[1]). `self` in a body is
 *   an ordinary variable (`{k:"var", name:"self"}`), never `{k:"this"}`.
 * - `cls` is set only for functions defined directly in a class body. Nested defs and lambdas,
 *   even inside methods, have `cls: null`: they take no receiver.
 * - A `def` or `class` inside a body adds no statement; class-body statements that are neither
 *   assignments nor definitions run where the class is defined and are lowered there.
 */
import type { SgNode } from "@ast-grep/napi";
import { markCaptures } from "./closures";
import type { ClassIR, Expr, FunctionIR, LValue, Loc, ModuleIR, Stmt } from "./ir";
import { kindOf, locOf, namedChildren, unknown } from "./lower-util";
import { parseSource } from "./parser";
import { explicitConversions } from "./python-conversions";
import { PyExprs, parts, setOwn } from "./python-expr";
import { flaskViewReturns, scalarConversions, scalarRouteParams, sourceParams, tornadoHandlerCalls } from "./python-routes";

/** Statements with no dataflow of their own. */
const IGNORED = new Set([
  "pass_statement",
  "global_statement",
  "nonlocal_statement",
  "import_statement",
  "import_from_statement",
  "future_import_statement",
  "delete_statement",
  "type_alias_statement",
  "comment",
  "ERROR",
]);

export function lowerPython(file: string, source: string): ModuleIR {
  const root = parseSource("python", source).root();
  const imports = collectImports(root);
  const lowering = new PyLowering(imports);
  const module: FunctionIR = { name: "<module>", cls: null, params: [], body: [], loc: locOf(root) };
  lowering.functions.push(module);
  module.body = lowering.block(root);
  for (const fn of lowering.functions) explicitConversions(fn.body, fn === module ? [] : module.body);
  markCaptures(lowering.functions);
  const record: Record<string, string> = {};
  for (const [name, target] of imports) setOwn(record, name, target);
  return { file, language: "python", functions: lowering.functions, classes: lowering.classes, imports: record };
}

/**
 * Imports anywhere in the file (function-level imports are common in Python). A later import
 * of the same name wins, as it would at run time in straight-line code.
 */
function collectImports(root: SgNode): Map<string, string> {
  const imports = new Map<string, string>();
  for (const node of root.findAll({ rule: { kind: "import_statement" } })) {
    for (const item of node.fieldChildren("name")) {
      if (kindOf(item) === "aliased_import") {
        const alias = item.field("alias")?.text();
        const name = item.field("name")?.text();
        if (alias && name) imports.set(alias, dotted(name));
      } else if (kindOf(item) === "dotted_name") {
        // `import os.path` binds `os`.
        const head = dotted(item.text()).split(".")[0];
        if (head) imports.set(head, head);
      }
    }
  }
  for (const node of root.findAll({ rule: { kind: "import_from_statement" } })) {
    const moduleName = dotted(node.field("module_name")?.text() ?? "");
    if (!moduleName) continue;
    for (const item of node.fieldChildren("name")) {
      const aliased = kindOf(item) === "aliased_import";
      const name = dotted((aliased ? item.field("name")?.text() : item.text()) ?? "");
      const local = aliased ? item.field("alias")?.text() : name;
      if (!name || !local) continue;
      // Relative imports keep their dots (`from . import x` → `.x`): no rule names them.
      imports.set(local, moduleName.endsWith(".") ? moduleName + name : `${moduleName}.${name}`);
    }
  }
  return imports;
}

/** `a . b` (whitespace and comments are legal inside dotted names) → `a.b`. */
function dotted(text: string): string {
  return text.replace(/#[^\n]*/g, "").replace(/\s+/g, "");
}

class PyLowering {
  functions: FunctionIR[] = [];
  classes: ClassIR[] = [];
  private readonly ex: PyExprs;

  constructor(private readonly imports: ReadonlyMap<string, string>) {
    this.ex = new PyExprs(imports, this.functions);
  }

  block(node: SgNode | null): Stmt[] {
    return node ? namedChildren(node).flatMap((c) => this.stmt(c)) : [];
  }

  /** One statement; walrus bindings met inside it go first. */
  private stmt(node: SgNode): Stmt[] {
    const outer = this.ex.hoisted;
    this.ex.hoisted = [];
    try {
      const out = this.stmtOf(node);
      return [...this.ex.hoisted, ...out];
    } catch {
      // Pathological input (nesting deep enough to exhaust the stack) costs one statement, not the file.
      return [];
    } finally {
      this.ex.hoisted = outer;
    }
  }

  private stmtOf(node: SgNode): Stmt[] {
    const loc = locOf(node);
    const kind = kindOf(node);
    if (IGNORED.has(kind)) return [];
    switch (kind) {
      case "expression_statement":
        return parts(node).flatMap((c) => this.exprStmt(c));
      case "return_statement": {
        const value = parts(node)[0];
        return [{ k: "return", value: value ? this.ex.expr(value) : null, loc }];
      }
      case "raise_statement": {
        const cause = node.field("cause");
        const value = parts(node).find((c) => !cause || c.id() !== cause.id());
        return [{ k: "throw", value: value ? this.ex.expr(value) : null, loc }];
      }
      case "if_statement":
        return [this.ifStmt(node.field("condition"), node.field("consequence"), node.fieldChildren("alternative"), loc)];
      case "while_statement": {
        const test = node.field("condition");
        const loop: Stmt = {
          k: "loop",
          kind: "while",
          test: test ? this.ex.expr(test) : null,
          init: [],
          update: [],
          body: this.block(node.field("body")),
          loc,
        };
        return [loop, ...this.elseBody(node)];
      }
      case "for_statement": {
        const left = node.field("left");
        const right = node.field("right");
        const each = {
          target: left ? this.ex.lvalue(left) : ({ k: "var", name: "<each>", loc } as LValue),
          iterable: right ? this.ex.expr(right) : unknown(node, []),
        };
        const loop: Stmt = {
          k: "loop",
          kind: "foreach",
          test: null,
          init: [],
          update: [],
          body: this.block(node.field("body")),
          each,
          loc,
        };
        return [loop, ...this.elseBody(node)];
      }
      case "try_statement":
        return [this.tryStmt(node)];
      case "with_statement":
        return this.withStmt(node);
      case "match_statement":
        return [this.matchStmt(node)];
      case "break_statement":
        return [{ k: "break", loc }];
      case "continue_statement":
        return [{ k: "continue", loc }];
      case "function_definition":
        this.functionDef(node, [], null);
        return [];
      case "decorated_definition":
        return this.decorated(node, null);
      case "class_definition":
        return this.classDef(node);
      case "block":
        return this.block(node);
      case "exec_statement": {
        // Python 2 `exec code in ns` is the builtin `exec`, which the code-injection rule names.
        const args = parts(node).map((c) => this.ex.expr(c));
        return [
          { k: "expr", expr: { k: "call", callee: "exec", receiver: null, args, path: "exec", loc, text: node.text().slice(0, 200) }, loc },
        ];
      }
      default:
        // assert, print (Python 2) and anything unrecognised: keep what its expressions do.
        return parts(node).map((c) => ({ k: "expr", expr: this.ex.expr(c), loc: locOf(c) }));
    }
  }

  private exprStmt(node: SgNode): Stmt[] {
    const loc = locOf(node);
    const kind = kindOf(node);
    if (kind === "assignment") {
      const { targets, value, annotated } = this.assignment(node);
      if (!value) {
        // `x: int` declares without a value.
        const only = targets[0];
        return only && only.k === "var" && annotated ? [{ k: "declare", name: only.name, loc }] : [];
      }
      return this.assignAll(targets, value, loc);
    }
    if (kind === "augmented_assignment") {
      const left = node.field("left");
      const right = node.field("right");
      if (!left || !right)
        return [
          {
            k: "expr",
            expr: unknown(
              node,
              parts(node).map((c) => this.ex.expr(c)),
            ),
            loc,
          },
        ];
      return [{ k: "assign", target: this.ex.lvalue(left), value: this.ex.expr(right), op: node.field("operator")?.text() ?? "=", loc }];
    }
    return [{ k: "expr", expr: this.ex.expr(node), loc }];
  }

  /** `a = b = value`: targets outermost first; `x: T = v` and `x: T` are annotated. */
  private assignment(node: SgNode): { targets: LValue[]; value: Expr | null; annotated: boolean; typeText: string } {
    const targets: LValue[] = [];
    let current: SgNode | null = node;
    const typeText = node.field("type")?.text() ?? "";
    while (current && kindOf(current) === "assignment") {
      const left = current.field("left");
      if (left) targets.push(this.ex.lvalue(left));
      current = current.field("right");
    }
    return { targets, value: current ? this.ex.expr(current) : null, annotated: !!node.field("type"), typeText };
  }

  /** The value is evaluated once: the last target gets it, the others copy from that target. */
  private assignAll(targets: LValue[], value: Expr, loc: Loc): Stmt[] {
    const last = targets[targets.length - 1];
    if (!last) return [{ k: "expr", expr: value, loc }];
    const out: Stmt[] = [{ k: "assign", target: last, value, op: "=", loc }];
    const copy: Expr = last.k === "destructure" ? value : last;
    for (const t of targets.slice(0, -1)) out.push({ k: "assign", target: t, value: copy, op: "=", loc });
    return out;
  }

  private ifStmt(condition: SgNode | null, consequence: SgNode | null, alternatives: SgNode[], loc: Loc): Stmt {
    const test: Expr = condition ? this.ex.expr(condition) : { k: "unknown", parts: [], loc };
    const then = this.block(consequence);
    const [next, ...rest] = alternatives.filter((a) => kindOf(a) === "elif_clause" || kindOf(a) === "else_clause");
    let otherwise: Stmt[] = [];
    if (next && kindOf(next) === "elif_clause") {
      otherwise = this.withHoisted(() => [this.ifStmt(next.field("condition"), next.field("consequence"), rest, locOf(next))]);
    } else if (next) {
      otherwise = this.block(next.field("body"));
    }
    return { k: "if", test, then, else: otherwise, loc };
  }

  /** Runs `f` collecting its walrus bindings in front of its statements (an elif's test). */
  private withHoisted(f: () => Stmt[]): Stmt[] {
    const outer = this.ex.hoisted;
    this.ex.hoisted = [];
    try {
      const out = f();
      return [...this.ex.hoisted, ...out];
    } finally {
      this.ex.hoisted = outer;
    }
  }

  /** `for … else` / `while … else`: runs after the loop unless it breaks; approximated as after. */
  private elseBody(node: SgNode): Stmt[] {
    const alt = node.field("alternative");
    return alt ? this.block(alt.field("body")) : [];
  }

  private tryStmt(node: SgNode): Stmt {
    const body = this.block(node.field("body"));
    const handlers: { param: string | null; body: Stmt[] }[] = [];
    let fin: Stmt[] = [];
    for (const c of parts(node)) {
      const kind = kindOf(c);
      if (kind === "except_clause" || kind === "except_group_clause") {
        // `except E as e` (the handler's own pattern, not an `as` somewhere in its body).
        const pattern = parts(c).find((p) => kindOf(p) === "as_pattern");
        const alias = (pattern ? parts(pattern).find((p) => kindOf(p) === "as_pattern_target") : null) ?? c.field("alias");
        const name = alias ? (parts(alias)[0] ?? alias) : null;
        const block = parts(c).find((b) => kindOf(b) === "block") ?? null;
        handlers.push({ param: name && kindOf(name) === "identifier" ? name.text() : null, body: this.block(block) });
      } else if (kind === "else_clause") {
        // `else` runs only when the body did not raise: it belongs after the body, inside the try.
        body.push(...this.block(c.field("body")));
      } else if (kind === "finally_clause") {
        fin = this.block(parts(c).find((b) => kindOf(b) === "block") ?? null);
      }
    }
    return { k: "try", body, handlers, finally: fin, loc: locOf(node) };
  }

  /** `with open(p) as f, g():` → `f = open(p)`, `g()`, then the body. */
  private withStmt(node: SgNode): Stmt[] {
    const out: Stmt[] = [];
    const items = parts(node)
      .filter((c) => kindOf(c) === "with_clause")
      .flatMap((c) => parts(c));
    for (const item of items.filter((i) => kindOf(i) === "with_item")) {
      const inner = item.field("value") ?? parts(item)[0];
      if (!inner) continue;
      const target = kindOf(inner) === "as_pattern" ? parts(inner).find((c) => kindOf(c) === "as_pattern_target") : null;
      const valueNode = kindOf(inner) === "as_pattern" ? parts(inner)[0] : inner;
      if (!valueNode) continue;
      const value = this.ex.expr(valueNode);
      out.push(
        target
          ? { k: "assign", target: this.ex.lvalue(target), value, op: "=", loc: locOf(item) }
          : { k: "expr", expr: value, loc: locOf(item) },
      );
    }
    return [...out, ...this.block(node.field("body"))];
  }

  private matchStmt(node: SgNode): Stmt {
    const loc = locOf(node);
    const subjects = node.fieldChildren("subject").filter((s) => s.isNamed() && kindOf(s) !== "comment");
    const test: Expr =
      subjects.length === 1 && subjects[0] ? this.ex.expr(subjects[0]) : { k: "array", items: subjects.map((s) => this.ex.expr(s)), loc };
    const cases: { values: Expr[] | null; body: Stmt[] }[] = [];
    const body = node.field("body");
    const clauses = [...(body ? parts(body) : []), ...node.fieldChildren("alternative")].filter((c) => kindOf(c) === "case_clause");
    for (const clause of clauses) {
      const patterns = parts(clause).filter((c) => kindOf(c) === "case_pattern");
      const values: Expr[] = [];
      let irrefutable = false;
      for (const p of patterns) {
        const v = this.caseValues(p);
        if (v === null) irrefutable = true;
        else values.push(...v);
      }
      // Names a pattern binds receive (parts of) the subject.
      const captures = patterns.flatMap((p) => captureNames(p));
      const body: Stmt[] = captures.length
        ? [
            {
              k: "assign",
              target: { k: "destructure", targets: captures.map((c) => ({ k: "var", name: c.text(), loc: locOf(c) })), loc },
              value: test,
              op: "=",
              loc,
            },
          ]
        : [];
      const guard = parts(clause).find((c) => kindOf(c) === "if_clause");
      const guardExpr = guard ? parts(guard)[0] : undefined;
      const inner = this.block(clause.field("consequence") ?? parts(clause).find((c) => kindOf(c) === "block") ?? null);
      if (guardExpr)
        body.push(
          ...this.withHoisted(() => [{ k: "if", test: this.ex.expr(guardExpr), then: inner, else: [], loc: locOf(guard as SgNode) }]),
        );
      else body.push(...inner);
      // Python cases never fall through.
      body.push({ k: "break", loc: locOf(clause) });
      cases.push({ values: irrefutable && !guardExpr ? null : values.length ? values : [unknown(clause, [])], body });
    }
    return { k: "switch", test, cases, loc };
  }

  /** Literal and value patterns as constants; null for a wildcard or a bare capture. */
  private caseValues(pattern: SgNode): Expr[] | null {
    const inner = parts(pattern)[0];
    if (!inner) return pattern.text().trim() === "_" ? null : [unknown(pattern, [])];
    const kind = kindOf(inner);
    if (kind === "union_pattern")
      return parts(inner).flatMap((p) => (kindOf(p) === "case_pattern" ? (this.caseValues(p) ?? []) : [this.ex.expr(p)]));
    if (kind === "dotted_name") {
      const names = parts(inner);
      if (names.length === 1) return null;
      const chain = names.map((n) => n.text()).join(".");
      return [
        {
          k: "field",
          object: {
            k: "var",
            name: names
              .slice(0, -1)
              .map((n) => n.text())
              .join("."),
            loc: locOf(inner),
          },
          name: names[names.length - 1]?.text() ?? "",
          path: chain,
          loc: locOf(inner),
        },
      ];
    }
    if (["string", "concatenated_string", "integer", "float", "true", "false", "none"].includes(kind)) return [this.ex.expr(inner)];
    if (kind === "as_pattern") {
      const first = parts(inner).find((c) => kindOf(c) === "case_pattern");
      return first ? this.caseValues(first) : null;
    }
    return [unknown(inner, [])];
  }

  private decorated(node: SgNode, cls: ClassIR | null): Stmt[] {
    const def = node.field("definition");
    if (!def) return [];
    const decorators = parts(node).filter((c) => kindOf(c) === "decorator");
    if (kindOf(def) === "class_definition") return this.classDef(def);
    this.functionDef(def, decorators, cls);
    return [];
  }

  private functionDef(node: SgNode, decorators: SgNode[], cls: ClassIR | null): void {
    const name = node.field("name")?.text() ?? "<def>";
    const decoratorNames = new Set(decorators.map((d) => parts(d)[0]?.text() ?? ""));
    const isStatic = !!cls && decoratorNames.has("staticmethod");
    const params = this.ex.params(node.field("parameters"));
    const fn: FunctionIR = { name, cls: cls?.name ?? null, params: params.map((p) => p.param), body: [], loc: locOf(node) };
    if (isStatic) fn.isStatic = true;
    if (cls && name === "__init__") fn.isConstructor = true;
    const bases = cls ? [cls.superclass ?? "", ...(cls.interfaces ?? [])] : [];
    const route = { decorators, params, hasReceiver: !!cls && !isStatic, name, imports: this.imports, enums: this.enumNames(), bases };
    const sources = sourceParams(route);
    if (sources) fn.sourceParams = sources;
    this.functions.push(fn);
    fn.body = [...scalarConversions(scalarRouteParams(route), fn.loc), ...this.block(node.field("body"))];
    flaskViewReturns(fn, decorators, this.imports);
    tornadoHandlerCalls(fn, cls);
  }

  /** Enum classes defined so far in the module (`class Color(str, Enum)`). */
  private enumNames(): Set<string> {
    const isEnum = (b: string) => /(^|\.)(Enum|IntEnum|StrEnum|Flag|IntFlag)$/.test(b);
    return new Set(this.classes.filter((c) => [c.superclass ?? "", ...(c.interfaces ?? [])].some(isEnum)).map((c) => c.name));
  }

  /** Returns the class body's loose statements, which run where the class is defined. */
  private classDef(node: SgNode): Stmt[] {
    const name = node.field("name")?.text() ?? "<class>";
    const bases = (node.field("superclasses") ? parts(node.field("superclasses") as SgNode) : []).filter(
      (b) => !["keyword_argument", "dictionary_splat", "list_splat"].includes(kindOf(b)),
    );
    const baseNames = bases.map((b) => b.text().replace(/\s+/g, ""));
    const superclass = baseNames[0] && baseNames[0] !== "object" ? baseNames[0] : null;
    const cls: ClassIR = { name, superclass, fields: [] };
    if (baseNames.length > 1) cls.interfaces = baseNames.slice(1);
    this.classes.push(cls);
    const loose: Stmt[] = [];
    const body = node.field("body");
    for (const member of body ? namedChildren(body) : []) {
      const kind = kindOf(member);
      if (kind === "function_definition") this.functionDef(member, [], cls);
      else if (kind === "decorated_definition") loose.push(...this.decorated(member, cls));
      else if (kind === "expression_statement" && parts(member).length === 1 && kindOf(parts(member)[0] as SgNode) === "assignment")
        this.field(parts(member)[0] as SgNode, cls, loose);
      else loose.push(...this.stmt(member));
    }
    return loose;
  }

  private field(node: SgNode, cls: ClassIR, loose: Stmt[]): void {
    const outer = this.ex.hoisted;
    this.ex.hoisted = [];
    try {
      const { targets, value, typeText } = this.assignment(node);
      const isFinal = /^(typing\.)?Final\b/.test(typeText);
      for (const t of targets) {
        const names = t.k === "var" ? [t] : t.k === "destructure" ? t.targets.filter((x) => x.k === "var") : [];
        // `a, b = 1, 2` and `obj.x = …` in a class body: each field gets the whole value, as in destructuring.
        for (const n of names) if (n.k === "var") cls.fields.push({ name: n.name, value, isStatic: true, isFinal, loc: locOf(node) });
        if ((t.k === "field" || t.k === "index") && value) loose.push({ k: "assign", target: t, value, op: "=", loc: locOf(node) });
      }
      loose.push(...this.ex.hoisted);
    } finally {
      this.ex.hoisted = outer;
    }
  }
}

/** Names a case pattern binds: bare names, `*rest`, `**rest`, `as x`, keyword values; not `_`. */
function captureNames(node: SgNode): SgNode[] {
  const kind = kindOf(node);
  if (kind === "identifier") return node.text() === "_" ? [] : [node];
  const children = parts(node);
  if (kind === "dotted_name") return children.length === 1 && children[0] ? captureNames(children[0]) : [];
  // A class pattern's class and a keyword pattern's keyword are names, not bindings.
  const bound = kind === "class_pattern" || kind === "keyword_pattern" ? children.slice(1) : children;
  return bound.flatMap((c) => captureNames(c));
}

/**
 * Java → dataflow IR (ir.ts), from tree-sitter-java through @ast-grep/napi. Classes become
 * ClassIR with their fields; methods, constructors, static initialisers and lambdas become
 * FunctionIR. Spring's request-binding annotations mark parameters as sources.
 */
import type { SgNode } from "@ast-grep/napi";
import type { ClassIR, Expr, FunctionIR, LValue, Loc, ModuleIR, Param, Stmt } from "./ir";
import { kindOf, locOf, namedChildren, unknown } from "./lower-util";
import { JavaExprLowering, simpleType } from "./java-expr";
import { typeName } from "./class-index";
import { parseSource } from "./parser";
import { classRouting, markResponseBody, type ClassRouting } from "./java-routes";

const SPRING_SOURCES = new Set([
  "RequestParam",
  "PathVariable",
  "RequestBody",
  "RequestHeader",
  "CookieValue",
  "RequestPart",
  "MatrixVariable",
  "ModelAttribute",
]);
/** JAX-RS request-binding annotations. */
const JAXRS_SOURCES = new Set(["QueryParam", "PathParam", "FormParam", "HeaderParam", "CookieParam", "MatrixParam", "BeanParam"]);
/** Spring request mappings, and JAX-RS resource methods (whose one unannotated parameter is the request entity). */
const MAPPINGS = new Set([
  "RequestMapping",
  "GetMapping",
  "PostMapping",
  "PutMapping",
  "DeleteMapping",
  "PatchMapping",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
]);
/**
 * Types Spring binds a plain handler parameter to from the query string or form, and the raw
 * request body (`InputStream`, `Reader`), which Spring passes to a plain parameter of those types.
 */
const BOUND_TYPES = new Set(["String", "Integer", "Long", "int", "long", "List", "Optional", "String[]", "InputStream", "Reader"]);
const TYPE_DECLS = new Set(["class_declaration", "interface_declaration", "enum_declaration", "record_declaration"]);

export function lowerJava(file: string, source: string): ModuleIR {
  const root = parseSource("java", source).root();
  const lowering = new JavaLowering();
  for (const node of namedChildren(root)) {
    if (kindOf(node) === "package_declaration") lowering.pkg = node.text().replace(/^package\s+|;\s*$|\s+/g, "") || null;
    else if (kindOf(node) === "import_declaration") lowering.addImport(node);
    else if (TYPE_DECLS.has(kindOf(node))) lowering.typeDecl(node);
  }
  const pkg = lowering.pkg ? { package: lowering.pkg } : {};
  return { file, language: "java", ...pkg, functions: lowering.functions, classes: lowering.classes, imports: lowering.imports };
}

class JavaLowering extends JavaExprLowering {
  classes: ClassIR[] = [];
  imports: Record<string, string> = {};
  pkg: string | null = null;
  private routing: ClassRouting | undefined;
  /** A Struts action or form bean: the framework calls its setters with request parameters. */
  private requestBound = false;

  addImport(node: SgNode): void {
    const text = node
      .text()
      .replace(/^import\s+(static\s+)?/, "")
      .replace(/;\s*$/, "")
      .trim();
    if (text.endsWith("*")) return;
    const simple = text.split(".").pop();
    if (simple) this.imports[simple] = text;
  }

  typeDecl(node: SgNode): void {
    const name = node.field("name")?.text() ?? "<anonymous>";
    const outer = this.cls;
    // The binary name: nested and local classes under their enclosing class, top-level ones under the package.
    const key = outer ? `${outer}$${name}` : this.pkg ? `${this.pkg}.${name}` : name;
    this.cls = key;
    const superNode = node.field("superclass");
    const extended = namedChildren(node).find((c) => kindOf(c) === "extends_interfaces") ?? null;
    const cls: ClassIR = {
      name: key,
      superclass: superNode ? typeName(namedChildren(superNode)[0]?.text() ?? "") : null,
      interfaces: [...interfaceNames(node.field("interfaces")), ...interfaceNames(extended)],
      fields: [],
    };
    this.classes.push(cls);
    const outerBound = this.requestBound;
    this.requestBound =
      REQUEST_BOUND_SUPERS.test(cls.superclass ?? "") ||
      (cls.interfaces ?? []).some(
        (i) => REQUEST_BOUND_INTERFACES.test(i) && (i !== "Action" || /xwork2|struts/.test(this.imports[i] ?? "")),
      );
    const outerRouting = this.routing;
    this.routing = classRouting(node);
    const body = node.field("body");
    for (const member of body ? namedChildren(body) : []) this.member(member, cls);
    this.cls = outer;
    this.routing = outerRouting;
    this.requestBound = outerBound;
  }

  private member(member: SgNode, cls: ClassIR): void {
    const kind = kindOf(member);
    if (kind === "field_declaration" || kind === "constant_declaration") {
      const mods = modifiers(member);
      const isStatic = mods.has("static") || kind === "constant_declaration";
      const isFinal = mods.has("final") || kind === "constant_declaration";
      for (const d of namedChildren(member)) {
        if (kindOf(d) !== "variable_declarator") continue;
        const value = d.field("value");
        const type = member.field("type")?.text();
        cls.fields.push({
          name: d.field("name")?.text() ?? "",
          value: value ? this.expr(value) : null,
          isStatic,
          isFinal,
          loc: locOf(d),
          ...(declType(type, d) ? { type: declType(type, d) } : {}),
        });
      }
    } else if (kind === "method_declaration" || kind === "constructor_declaration" || kind === "compact_constructor_declaration") {
      const mods = modifiers(member);
      const params = this.params(member.field("parameters"), isRequestMapping(member));
      if (this.requestBound && isPropertySetter(member, mods, params.params))
        params.sources.push({ index: 0, label: `Struts request property \`${params.params[0]?.name ?? "value"}\`` });
      if (isMainMethod(member, mods, params.params))
        params.sources.push({ index: 0, label: "command-line argument `" + (params.params[0]?.name ?? "args") + "`", kind: "local" });
      const body = member.field("body");
      const returns = kind === "method_declaration" ? member.field("type")?.text() : undefined;
      this.functions.push({
        ...(declType(returns) ? { returns: declType(returns) } : {}),
        name: kind === "method_declaration" ? (member.field("name")?.text() ?? "") : "<init>",
        cls: this.cls,
        params: params.params,
        body: body ? this.block(body) : [],
        loc: locOf(member),
        isStatic: mods.has("static"),
        isConstructor: kind !== "method_declaration",
        ...(params.sources.length ? { sourceParams: params.sources } : {}),
      });
      if (kind === "method_declaration") markResponseBody(this.functions.at(-1)!, member, this.routing);
    } else if (kind === "static_initializer" || kind === "block") {
      const block = kind === "block" ? member : namedChildren(member).find((c) => kindOf(c) === "block");
      if (block)
        this.functions.push({ name: "<clinit>", cls: this.cls, params: [], body: this.block(block), loc: locOf(member), isStatic: true });
    } else if (TYPE_DECLS.has(kind)) {
      this.typeDecl(member);
    }
  }

  /** `mapped`: a Spring request-mapping method, whose plain parameters Spring binds from the request. */
  private params(node: SgNode | null, mapped = false): { params: Param[]; sources: NonNullable<FunctionIR["sourceParams"]> } {
    const params: Param[] = [];
    const sources: NonNullable<FunctionIR["sourceParams"]> = [];
    for (const p of node ? namedChildren(node) : []) {
      if (kindOf(p) !== "formal_parameter" && kindOf(p) !== "spread_parameter") continue;
      const nameNode =
        p.field("name") ??
        namedChildren(p)
          .filter((c) => kindOf(c) === "identifier")
          .pop() ??
        namedChildren(p)
          .find((c) => kindOf(c) === "variable_declarator")
          ?.field("name");
      const name = nameNode?.text() ?? `<p${params.length}>`;
      const type = p.field("type")?.text();
      const mods = namedChildren(p).find((c) => kindOf(c) === "modifiers");
      const annotation = (mods ? namedChildren(mods) : [])
        .filter((a) => kindOf(a) === "marker_annotation" || kindOf(a) === "annotation")
        .map((a) => a.field("name")?.text() ?? "")
        .find((n) => SPRING_SOURCES.has(n) || JAXRS_SOURCES.has(n));
      const plain = (mods ? namedChildren(mods) : []).every((a) => kindOf(a) !== "marker_annotation" && kindOf(a) !== "annotation");
      if (annotation)
        sources.push({
          index: params.length,
          label: `${JAXRS_SOURCES.has(annotation) ? "JAX-RS" : "Spring"} @${annotation} parameter \`${name}\``,
        });
      else if (mapped && plain && type && BOUND_TYPES.has(simpleType(type)))
        sources.push({ index: params.length, label: `Spring request parameter \`${name}\`` });
      params.push({ name, ...(type ? { type: simpleType(type) } : {}) });
    }
    return { params, sources };
  }

  block(node: SgNode): Stmt[] {
    const out: Stmt[] = [];
    for (const child of namedChildren(node)) out.push(...this.stmt(child));
    return out;
  }

  private body(node: SgNode | null): Stmt[] {
    if (!node) return [];
    return kindOf(node) === "block" ? this.block(node) : this.stmt(node);
  }

  stmt(node: SgNode): Stmt[] {
    const outer = this.pending;
    this.pending = [];
    const lowered = this.stmtInner(node);
    const hoisted = this.pending;
    this.pending = outer;
    return hoisted.length ? [...hoisted, ...lowered] : lowered;
  }

  private stmtInner(node: SgNode): Stmt[] {
    const loc = locOf(node);
    switch (kindOf(node)) {
      case "block":
      case "constructor_body":
        return [{ k: "block", body: this.block(node), loc }];
      case "local_variable_declaration":
        return this.declaration(node);
      case "expression_statement": {
        const inner = namedChildren(node)[0];
        return inner ? this.exprStmt(inner) : [];
      }
      case "if_statement":
        return [
          {
            k: "if",
            test: this.cond(node.field("condition")),
            then: this.body(node.field("consequence")),
            else: this.body(node.field("alternative")),
            loc,
          },
        ];
      case "while_statement":
      case "do_statement":
      case "for_statement":
      case "enhanced_for_statement":
        return [this.loop(node, loc)];
      case "return_statement": {
        const value = namedChildren(node)[0];
        return [{ k: "return", value: value ? this.expr(value) : null, loc }];
      }
      case "throw_statement": {
        const value = namedChildren(node)[0];
        return [{ k: "throw", value: value ? this.expr(value) : null, loc }];
      }
      case "break_statement":
        return [{ k: "break", loc }];
      case "continue_statement":
        return [{ k: "continue", loc }];
      case "try_statement":
      case "try_with_resources_statement":
        return [this.tryStmt(node)];
      case "switch_expression":
      case "switch_statement":
        return [this.switchStmt(node)];
      case "labeled_statement":
      case "synchronized_statement": {
        const inner = namedChildren(node).filter((c) => kindOf(c) !== "identifier" && kindOf(c) !== "parenthesized_expression");
        return inner.flatMap((c) => this.stmt(c));
      }
      case "local_class_declaration":
      case "class_declaration":
        this.typeDecl(node);
        return [];
      case "yield_statement": {
        const value = namedChildren(node)[0];
        return value ? [{ k: "expr", expr: this.expr(value), loc }] : [];
      }
      default:
        return [{ k: "expr", expr: this.expr(node), loc }];
    }
  }

  /** while, do, for and enhanced for (`for (T x : items)`). */
  private loop(node: SgNode, loc: Loc): Stmt {
    switch (kindOf(node)) {
      case "while_statement": {
        // An assignment in the condition runs before every test: before the loop and at the end of the body.
        const test = this.cond(node.field("condition"));
        const again = [...this.pending];
        return { k: "loop", kind: "while", test, init: [], update: again, body: this.body(node.field("body")), loc };
      }
      case "do_statement": {
        const test = this.cond(node.field("condition"));
        return { k: "loop", kind: "do", test, init: [], update: [], body: this.body(node.field("body")), loc };
      }
      case "for_statement": {
        const init = node
          .fieldChildren("init")
          .flatMap((c) => (kindOf(c) === "local_variable_declaration" ? this.declaration(c) : this.exprStmt(c)));
        const condition = node.field("condition");
        const update = node.fieldChildren("update").flatMap((c) => this.exprStmt(c));
        return {
          k: "loop",
          kind: "for",
          test: condition ? this.expr(condition) : null,
          init,
          update,
          body: this.body(node.field("body")),
          loc,
        };
      }
      default: {
        // enhanced_for_statement
        const nameNode = node.field("name");
        const value = node.field("value");
        const target: LValue = { k: "var", name: nameNode?.text() ?? "<each>", loc: nameNode ? locOf(nameNode) : loc };
        const body = this.body(node.field("body"));
        return {
          k: "loop",
          kind: "foreach",
          test: null,
          init: [],
          update: [],
          body,
          each: { target, iterable: value ? this.expr(value) : unknown(node, []) },
          loc,
        };
      }
    }
  }

  private declaration(node: SgNode): Stmt[] {
    const out: Stmt[] = [];
    const written = node.field("type")?.text();
    for (const d of namedChildren(node).filter((c) => kindOf(c) === "variable_declarator")) {
      const nameNode = d.field("name");
      const name = nameNode?.text() ?? "";
      const value = d.field("value");
      const type = declType(written, d);
      const typed = type ? { type } : {};
      if (value)
        out.push({
          k: "assign",
          target: { k: "var", name, loc: locOf(d) },
          value: this.expr(value),
          op: "=",
          loc: locOf(d),
          decl: true,
          ...typed,
        });
      else out.push({ k: "declare", name, loc: locOf(d), ...typed });
    }
    return out;
  }

  private exprStmt(node: SgNode): Stmt[] {
    const loc = locOf(node);
    if (kindOf(node) === "assignment_expression") {
      const left = node.field("left");
      const right = node.field("right");
      const op = node.field("operator")?.text() ?? "=";
      if (left && right) return [{ k: "assign", target: this.lvalue(left), value: this.expr(right), op, loc }];
    }
    if (kindOf(node) === "update_expression") {
      const target = namedChildren(node)[0];
      if (target)
        return [{ k: "assign", target: this.lvalue(target), value: { k: "unknown", parts: [this.expr(target)], loc }, op: "+=", loc }];
    }
    return [{ k: "expr", expr: this.expr(node), loc }];
  }

  private tryStmt(node: SgNode): Stmt {
    const loc = locOf(node);
    const body: Stmt[] = [];
    const resources = node.field("resources");
    for (const r of resources ? namedChildren(resources) : []) {
      const value = r.field("value");
      const name = r.field("name")?.text();
      const written = r.field("type")?.text();
      const type = declType(written) ? { type: declType(written) } : {};
      if (value && name)
        body.push({
          k: "assign",
          target: { k: "var", name, loc: locOf(r) },
          value: this.expr(value),
          op: "=",
          loc: locOf(r),
          decl: true,
          ...type,
        });
    }
    const block = node.field("body");
    if (block) body.push(...this.block(block));
    const handlers: { param: string | null; body: Stmt[] }[] = [];
    let fin: Stmt[] = [];
    for (const child of namedChildren(node)) {
      if (kindOf(child) === "catch_clause") {
        const param =
          namedChildren(child)
            .find((c) => kindOf(c) === "catch_formal_parameter")
            ?.field("name")
            ?.text() ?? null;
        const hb = child.field("body");
        handlers.push({ param, body: hb ? this.block(hb) : [] });
      } else if (kindOf(child) === "finally_clause") {
        const fb = namedChildren(child).find((c) => kindOf(c) === "block");
        fin = fb ? this.block(fb) : [];
      }
    }
    return { k: "try", body, handlers, finally: fin, loc };
  }

  private switchStmt(node: SgNode): Stmt {
    const loc = locOf(node);
    const test = this.cond(node.field("condition"));
    const cases: { values: Expr[] | null; body: Stmt[] }[] = [];
    const block = node.field("body");
    for (const group of block ? namedChildren(block) : []) {
      if (kindOf(group) !== "switch_block_statement_group" && kindOf(group) !== "switch_rule") continue;
      const label = namedChildren(group).find((c) => kindOf(c) === "switch_label");
      const values = label && label.text().trim().startsWith("case") ? namedChildren(label).map((v) => this.expr(v)) : null;
      const body = namedChildren(group)
        .filter((c) => kindOf(c) !== "switch_label")
        .flatMap((c) =>
          kindOf(c) === "expression_statement" ||
          kindOf(c).endsWith("statement") ||
          kindOf(c) === "block" ||
          kindOf(c).endsWith("declaration")
            ? this.stmt(c)
            : [{ k: "expr" as const, expr: this.expr(c), loc: locOf(c) }],
        );
      // An arrow rule never falls through.
      if (kindOf(group) === "switch_rule") body.push({ k: "break", loc: locOf(group) });
      cases.push({ values, body });
    }
    return { k: "switch", test, cases, loc };
  }
}

/** `implements A, B<T>` → ["A", "B"]. */
function interfaceNames(node: SgNode | null): string[] {
  if (!node) return [];
  const list = namedChildren(node).find((c) => kindOf(c) === "type_list") ?? node;
  return namedChildren(list).map((t) => typeName(t.text()));
}

/** A declared type as written, without generics; none for an array (`String[] a`, `String a[]`). */
function declType(written: string | undefined, declarator?: SgNode): string | undefined {
  if (!written || /\[|\.\.\./.test(written) || declarator?.field("dimensions")) return undefined;
  return typeName(written);
}

/**
 * Struts 2 actions (ActionSupport, Action, ModelDriven) and Struts 1 form beans (ActionForm and
 * its validator/dyna variants), whose public setters the framework calls with request parameters.
 */
const REQUEST_BOUND_SUPERS = /^([\w.]+\.)?(ActionSupport|ActionForm|ValidatorForm|ValidatorActionForm|DynaActionForm|DynaValidatorForm)$/;
/** `Action` only when imported from XWork/Struts: the name is common. */
const REQUEST_BOUND_INTERFACES = /^(Action|ModelDriven|ParameterAware)$/;

/** `public void setName(String name)` (one String-like parameter). */
function isPropertySetter(method: SgNode, mods: Set<string>, params: readonly Param[]): boolean {
  const name = kindOf(method) === "method_declaration" ? (method.field("name")?.text() ?? "") : "";
  return (
    /^set[A-Z]/.test(name) &&
    mods.has("public") &&
    !mods.has("static") &&
    params.length === 1 &&
    /^(String|String\[\]|List|Object)$/.test(params[0]?.type ?? "String")
  );
}

/** `public static void main(String[] args)` (or `String... args`): its arguments come from the command line. */
function isMainMethod(method: SgNode, mods: Set<string>, params: readonly Param[]): boolean {
  if (kindOf(method) !== "method_declaration" || method.field("name")?.text() !== "main") return false;
  if (!mods.has("static") || !mods.has("public") || params.length !== 1) return false;
  const param = namedChildren(method.field("parameters") ?? method).find(
    (c) => kindOf(c) === "formal_parameter" || kindOf(c) === "spread_parameter",
  );
  return /\b(java\.lang\.)?String\b.*(\[\s*\]|\.\.\.)/.test(param?.text() ?? "");
}

function isRequestMapping(method: SgNode): boolean {
  const mods = namedChildren(method).find((c) => kindOf(c) === "modifiers");
  return (mods ? namedChildren(mods) : []).some(
    (a) => (kindOf(a) === "annotation" || kindOf(a) === "marker_annotation") && MAPPINGS.has(a.field("name")?.text() ?? ""),
  );
}

function modifiers(node: SgNode): Set<string> {
  const mods = namedChildren(node).find((c) => kindOf(c) === "modifiers");
  return new Set(
    mods
      ? mods
          .text()
          .split(/\s+/)
          .filter((w) => /^[a-z]+$/.test(w))
      : [],
  );
}

export type { Loc };

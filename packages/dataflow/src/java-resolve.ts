/**
 * Java calls resolved by static type. The type of a receiver comes from what the code
 * declares (a parameter, a local, a field, a cast, the return type of a repository method)
 * or creates (`new Helper()`), or it is a class named in the call (`Helper.run()`,
 * `com.acme.Util.run()`, `Outer.Inner.run()`). A receiver of a repository class dispatches
 * to that class's method and to the overrides of its subclasses and implementers; a receiver
 * whose type is a library class (`StringBuilder`, `String`, `List`), or whose type is not
 * known, binds to no repository method, however unique the method's name.
 */
import type { Expr, FunctionIR, ModuleIR, Stmt } from "./ir";
import type { Env } from "./fold";
import type { FnRef, Program } from "./program";
import { simpleOf, typeName } from "./class-index";

type Call = Extract<Expr, { k: "call" }>;

/** A receiver's static type: a class of the repository (`key`), or a type as written that is not one (`type`). */
export interface StaticType {
  key?: string;
  type?: string;
  /** The receiver names the class itself: a static call, no dispatch to subclasses. */
  isClass?: boolean;
}

export interface TypeScope {
  program: Program;
  module: ModuleIR;
  /** The enclosing class's key. */
  owner: string | null;
  /** Declared types of parameters and locals (declaredTypes). */
  declared: ReadonlyMap<string, string>;
  /** The repository methods a call resolves to by the receiver's class. */
  targets: (call: Call, env: Env) => FnRef[];
}

/** Declared types of a function's parameters and locals; a name declared with two different types is left out. */
export function declaredTypes(fn: FunctionIR): Map<string, string> {
  const out = new Map<string, string>();
  const clash = new Set<string>();
  for (const p of fn.params) addDeclared(out, clash, p.name, p.type);
  visitDeclared(out, clash, fn.body);
  return out;
}

/*
 * declaredTypes' helpers at module level: closures made per function cost a name definition
 * each under the loader (tsx keeps function names), a few per cent of the analysis.
 */
function addDeclared(out: Map<string, string>, clash: Set<string>, name: string, type: string | undefined): void {
  if (!type || type === "var" || clash.has(name)) return;
  const t = typeName(type);
  const old = out.get(name);
  if (old !== undefined && old !== t) {
    out.delete(name);
    clash.add(name);
  } else out.set(name, t);
}

function visitDeclared(out: Map<string, string>, clash: Set<string>, stmts: readonly Stmt[]): void {
  for (const s of stmts) {
    if (s.k === "assign" && s.decl && s.target.k === "var") addDeclared(out, clash, s.target.name, s.type);
    else if (s.k === "declare") addDeclared(out, clash, s.name, s.type);
    for (const inner of nested(s)) visitDeclared(out, clash, inner);
  }
}

/** The statement lists inside a statement. */
function nested(s: Stmt): Stmt[][] {
  switch (s.k) {
    case "if":
      return [s.then, s.else];
    case "loop":
      return [s.init, s.body, s.update];
    case "switch":
      return s.cases.map((c) => c.body);
    case "try":
      return [s.body, ...s.handlers.map((h) => h.body), s.finally];
    case "block":
      return [s.body];
    default:
      return [];
  }
}

/** The static type of `r`, or undefined when it is not known. */
export function staticType(scope: TypeScope, r: Expr, env: Env, depth = 0): StaticType | undefined {
  const { program, module, owner } = scope;
  switch (r.k) {
    case "this":
      return owner ? { key: owner } : undefined;
    case "new":
      return namedType(program, r.cls, module, owner);
    case "cast":
      return r.type ? namedType(program, r.type, module, owner) : staticType(scope, r.arg, env, depth);
    case "const":
      return typeof r.value === "string" ? { type: "String" } : undefined;
    case "template":
      return { type: "String" };
    case "var":
      return varType(scope, r.name, env);
    case "field": {
      const head = r.path?.split(".")[0];
      if (r.path && head && !env.has(head) && !program.isField(owner, head)) {
        const key = program.classKey(module, r.path, owner);
        if (key) return { key, isClass: true };
        if (/^[a-z]/.test(head) && /^[A-Z]/.test(r.name)) return { type: r.path, isClass: true };
      }
      const base = r.object.k === "this" ? owner : depth < 4 ? staticType(scope, r.object, env, depth + 1)?.key : undefined;
      const field = base ? program.isField(base, r.name) : null;
      const type = field ? program.fieldTypes.get(field) : undefined;
      const entry = field ? program.classes.get(field.slice(0, field.length - r.name.length - 1)) : undefined;
      return type ? namedType(program, type, entry?.module ?? module, entry?.key ?? owner) : undefined;
    }
    case "call": {
      if (depth >= 4) return undefined;
      for (const t of scope.targets(r, env))
        if (t.fn.returns) return t.fn.returns === "void" ? undefined : namedType(program, t.fn.returns, t.module, t.owner);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** The class `type` names from inside `inside` in `from`, or the type as written when the repository declares none. */
function namedType(program: Program, type: string, from: ModuleIR, inside: string | null): StaticType {
  const key = program.classKey(from, type, inside);
  return key ? { key } : { type: typeName(type) };
}

function varType(scope: TypeScope, name: string, env: Env): StaticType | undefined {
  const { program, module, owner } = scope;
  const cls = env.get(name)?.cls;
  if (cls) return program.classes.has(cls) ? { key: cls } : { type: cls };
  const declared = scope.declared.get(name);
  if (declared) return namedType(program, declared, module, owner);
  if (env.has(name)) return undefined;
  const field = program.isField(owner, name);
  if (field) {
    const type = program.fieldTypes.get(field);
    return type ? namedType(program, type, module, owner) : undefined;
  }
  const key = program.classKey(module, name, owner);
  if (key) return { key, isClass: true };
  // A class the repository does not declare: `Math.max`, `Integer.parseInt`.
  return /^[A-Z]/.test(name) ? { type: name, isClass: true } : undefined;
}

/**
 * The repository methods a Java call on a receiver may run: by the receiver's static type,
 * with the overrides of subclasses and implementers. None when the type is a library class
 * or is not known.
 */
export function javaTargets(scope: TypeScope, e: Call, env: Env, arity: (r: FnRef) => boolean): FnRef[] {
  if (!e.receiver) return [];
  const t = staticType(scope, e.receiver, env);
  if (!t?.key) return [];
  return scope.program.methods(t.key, e.callee, !t.isClass).filter(arity);
}

/** `import static com.acme.Util.run;` then `run(x)`: the methods `run` of that class. */
export function staticImport(scope: TypeScope, imported: string | undefined, callee: string): FnRef[] {
  if (!imported?.endsWith(`.${callee}`)) return [];
  const key = scope.program.classKey(scope.module, imported.slice(0, -callee.length - 1), scope.owner);
  return key ? scope.program.methods(key, callee, false) : [];
}

/** The names a receiver's static type goes by, for sink and source rules that name a receiver class: qualified and simple. */
export function typeTexts(t: StaticType | undefined): string[] {
  if (!t) return [];
  const out: string[] = [];
  for (const name of [t.type, t.key]) if (name) out.push(name.replace(/\$/g, "."), simpleOf(name));
  return out;
}

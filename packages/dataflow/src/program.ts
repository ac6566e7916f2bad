/**
 * The whole-repository view the interpreter needs: classes and their hierarchy, functions by
 * name and class, which fields and module globals are ever written (a field written nowhere
 * but its initialiser is a constant, `IO.STATIC_FINAL_TRUE` and `privateTrue` alike).
 */
import type { ClassIR, Expr, FunctionIR, LValue, ModuleIR, Stmt } from "./ir";

export interface FnRef {
  fn: FunctionIR;
  module: ModuleIR;
  key: string;
}

export class Program {
  readonly classes = new Map<string, { cls: ClassIR; module: ModuleIR }>();
  readonly subclasses = new Map<string, string[]>();
  readonly byName = new Map<string, FnRef[]>();
  readonly byClass = new Map<string, Map<string, FnRef[]>>();
  readonly byModule = new Map<string, Map<string, FnRef[]>>();
  readonly lambdas = new Map<string, FnRef>();
  /** Writes outside the declaration, per field key `Class.name` or module global `file::name`. */
  readonly writes = new Map<string, number>();
  readonly fieldInit = new Map<string, Expr | null>();
  readonly globalInit = new Map<string, Expr>();
  /** Field names written through some other reference (`other.flag = true`): never constants, whatever the class. */
  readonly writtenNames = new Set<string>();
  readonly all: FnRef[] = [];

  constructor(readonly modules: readonly ModuleIR[]) {
    for (const module of modules) {
      for (const cls of module.classes) {
        this.classes.set(cls.name, { cls, module });
        for (const parent of [cls.superclass, ...(cls.interfaces ?? [])])
          if (parent) this.subclasses.set(parent, [...(this.subclasses.get(parent) ?? []), cls.name]);
        for (const f of cls.fields) this.fieldInit.set(`${cls.name}.${f.name}`, f.value);
      }
      for (const fn of module.functions) {
        const ref: FnRef = { fn, module, key: `${module.file}#${fn.cls ?? ""}.${fn.name}/${fn.params.length}@${fn.loc.line}` };
        this.all.push(ref);
        if (fn.name.startsWith("<lambda")) this.lambdas.set(fn.name, ref);
        push(this.byName, fn.name, ref);
        if (fn.cls) push(getOr(this.byClass, fn.cls), fn.name, ref);
        else push(getOr(this.byModule, module.file), fn.name, ref);
      }
    }
    for (const ref of this.all) this.countWrites(ref);
  }

  isField(cls: string | null, name: string): string | null {
    for (let c = cls, depth = 0; c && depth < 8; depth++) {
      const key = `${c}.${name}`;
      if (this.fieldInit.has(key)) return key;
      c = this.classes.get(c)?.cls.superclass ?? null;
    }
    return null;
  }

  private readonly looseCache = new Map<string, FnRef[]>();

  /**
   * Methods of any class named `name`, for a call on a receiver of unknown class; empty when
   * more than a few classes define it (then the name says too little to pick one).
   */
  methodsNamed(name: string): FnRef[] {
    let hit = this.looseCache.get(name);
    if (!hit) {
      const all = (this.byName.get(name) ?? []).filter((f) => f.fn.cls && !f.fn.isConstructor);
      hit = all.length <= 8 ? all : [];
      this.looseCache.set(name, hit);
    }
    return hit;
  }

  /** Methods named `name` of class `cls` or, failing that, of its superclasses; with subclasses' overrides when `virtual`. */
  methods(cls: string, name: string, virtual: boolean): FnRef[] {
    const found: FnRef[] = [];
    for (let c: string | null = cls, depth = 0; c && depth < 8; depth++) {
      const own = this.byClass.get(c)?.get(name);
      if (own?.length) {
        found.push(...own);
        break;
      }
      c = this.classes.get(c)?.cls.superclass ?? null;
    }
    if (virtual) for (const sub of this.subclasses.get(cls) ?? []) found.push(...(this.byClass.get(sub)?.get(name) ?? []));
    return found;
  }

  private countWrites(ref: FnRef): void {
    const { fn, module } = ref;
    const locals = new Set(fn.params.map((p) => p.name));
    const isModule = fn.name === "<module>";
    const visit = (stmts: readonly Stmt[]) => {
      for (const s of stmts) {
        switch (s.k) {
          case "assign":
            this.countTarget(s.target, fn, module, locals, isModule, s.decl === true, s.value);
            break;
          case "declare":
            locals.add(s.name);
            break;
          case "if":
            visit(s.then);
            visit(s.else);
            break;
          case "loop":
            if (s.each) this.countTarget(s.each.target, fn, module, locals, isModule, true, null);
            visit(s.init);
            visit(s.body);
            visit(s.update);
            break;
          case "switch":
            for (const c of s.cases) visit(c.body);
            break;
          case "try":
            visit(s.body);
            for (const h of s.handlers) visit(h.body);
            visit(s.finally);
            break;
          case "block":
            visit(s.body);
            break;
          default:
            break;
        }
      }
    };
    visit(fn.body);
  }

  private countTarget(
    target: LValue,
    fn: FunctionIR,
    module: ModuleIR,
    locals: Set<string>,
    isModule: boolean,
    decl: boolean,
    value: Expr | null,
  ): void {
    if (target.k === "destructure") {
      for (const t of target.targets) this.countTarget(t, fn, module, locals, isModule, decl, null);
      return;
    }
    if (target.k === "var") {
      if (isModule && module.language !== "java") {
        const key = `${module.file}::${target.name}`;
        if (!this.globalInit.has(key) && value) this.globalInit.set(key, value);
        else this.bump(key);
        return;
      }
      if (decl || locals.has(target.name)) {
        locals.add(target.name);
        return;
      }
      const field = module.language === "java" ? this.isField(fn.cls, target.name) : null;
      if (field) this.bump(field);
      else if (module.language === "javascript" || module.language === "typescript") this.bump(`${module.file}::${target.name}`);
      locals.add(target.name);
      return;
    }
    if (target.k === "field") {
      const owner =
        target.object.k === "this" || (target.object.k === "var" && (target.object.name === "self" || target.object.name === "this"))
          ? fn.cls
          : target.object.k === "var" && this.classes.has(target.object.name)
            ? target.object.name
            : null;
      if (owner) this.bump(this.isField(owner, target.name) ?? `${owner}.${target.name}`);
      else this.writtenNames.add(target.name);
    }
  }

  private bump(key: string): void {
    this.writes.set(key, (this.writes.get(key) ?? 0) + 1);
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function getOr<K, K2, V>(map: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let inner = map.get(key);
  if (!inner) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}

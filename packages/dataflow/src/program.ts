/**
 * The whole-repository view the interpreter needs: classes and their hierarchy, functions by
 * name and class, which fields and module globals are ever written (a field written nowhere
 * but its initialiser is a constant, `IO.STATIC_FINAL_TRUE` and `privateTrue` alike).
 */
import type { Expr, FunctionIR, LValue, ModuleIR, Stmt } from "./ir";
import { ClassIndex, classKeyOf, type ClassEntry } from "./class-index";

export interface FnRef {
  fn: FunctionIR;
  module: ModuleIR;
  key: string;
  /** The key of the enclosing class (class-index.ts), or null. */
  owner: string | null;
}

export class Program {
  /** By class key (class-index.ts): `com.acme.Outer$Inner`, `app/util.py:Helper`. */
  readonly classes: ReadonlyMap<string, ClassEntry>;
  /** Direct subclasses and implementers, by the parent's key (or its name as written when it is not in the repository). */
  readonly subclasses = new Map<string, string[]>();
  /** Resolved superclass of each class key. */
  readonly supers = new Map<string, string | null>();
  readonly byName = new Map<string, FnRef[]>();
  readonly byClass = new Map<string, Map<string, FnRef[]>>();
  readonly byModule = new Map<string, Map<string, FnRef[]>>();
  readonly lambdas = new Map<string, FnRef>();
  /** Writes outside the declaration, per field key `ClassKey.name` or module global `file::name`. */
  readonly writes = new Map<string, number>();
  readonly fieldInit = new Map<string, Expr | null>();
  /** Declared types of fields, by field key, as written (Java). */
  readonly fieldTypes = new Map<string, string>();
  readonly globalInit = new Map<string, Expr>();
  /** Field names written through some other reference (`other.flag = true`): never constants, whatever the class. */
  readonly writtenNames = new Set<string>();
  readonly all: FnRef[] = [];
  private readonly index = new ClassIndex();

  constructor(readonly modules: readonly ModuleIR[]) {
    this.classes = this.index.byKey;
    for (const module of modules) for (const cls of module.classes) this.index.add(module, cls);
    for (const { cls, module, key } of this.classes.values()) {
      const parent = (name: string | null) => (name ? (this.index.lookup(module, name, enclosing(key)) ?? name) : null);
      const sup = parent(cls.superclass);
      this.supers.set(key, sup && this.classes.has(sup) ? sup : null);
      for (const p of [sup, ...(cls.interfaces ?? []).map(parent)]) if (p && p !== key) push(this.subclasses, p, key);
      for (const f of cls.fields) {
        this.fieldInit.set(`${key}.${f.name}`, f.value);
        if (f.type) this.fieldTypes.set(`${key}.${f.name}`, f.type);
      }
    }
    for (const module of modules) {
      for (const fn of module.functions) {
        const owner = fn.cls ? classKeyOf(module, fn.cls) : null;
        const ref: FnRef = { fn, module, owner, key: `${module.file}#${fn.cls ?? ""}.${fn.name}/${fn.params.length}@${fn.loc.line}` };
        this.all.push(ref);
        if (fn.name.startsWith("<lambda")) this.lambdas.set(fn.name, ref);
        push(this.byName, fn.name, ref);
        if (owner) push(getOr(this.byClass, owner), fn.name, ref);
        else push(getOr(this.byModule, module.file), fn.name, ref);
      }
    }
    for (const ref of this.all) this.countWrites(ref);
  }

  /** The key of the class `name` (as written in `module`, inside class `from`) names, if it is in the repository. */
  classKey(module: ModuleIR, name: string, from: string | null = null): string | undefined {
    return this.index.lookup(module, name, from);
  }

  /**
   * The key of field `name` of class `cls`: declared in it, a superclass or (Java) an
   * enclosing class, whose fields an inner class reads by their bare names.
   */
  isField(cls: string | null, name: string): string | null {
    if (!cls) return null;
    let known = this.fieldKeys.get(cls);
    if (!known) this.fieldKeys.set(cls, (known = new Map()));
    let key = known.get(name);
    if (key === undefined) known.set(name, (key = this.findField(cls, name)));
    return key;
  }

  /** isField's answers, per class and name: the classes and their fields are all known once the constructor has run. */
  private readonly fieldKeys = new Map<string, Map<string, string | null>>();

  private findField(cls: string, name: string): string | null {
    for (let outer: string | null = cls, n = 0; outer && n < 8; outer = enclosing(outer), n++) {
      for (let c: string | null = outer, depth = 0; c && depth < 8; depth++) {
        const key = `${c}.${name}`;
        if (this.fieldInit.has(key)) return key;
        c = this.supers.get(c) ?? null;
      }
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

  /**
   * Methods named `name` of class `cls` (a key) or, failing that, of its superclasses; with
   * the overrides of its subclasses and implementers, however deep, when `virtual`.
   */
  methods(cls: string, name: string, virtual: boolean): FnRef[] {
    const found: FnRef[] = [];
    for (let c: string | null = cls, depth = 0; c && depth < 8; depth++) {
      const own = this.byClass.get(c)?.get(name);
      if (own?.length) {
        found.push(...own);
        break;
      }
      c = this.supers.get(c) ?? null;
    }
    if (!virtual) return found;
    const seen = new Set([cls]);
    const queue = [...(this.subclasses.get(cls) ?? [])];
    while (queue.length && seen.size < 64) {
      const sub = queue.shift()!;
      if (seen.has(sub)) continue;
      seen.add(sub);
      found.push(...(this.byClass.get(sub)?.get(name) ?? []));
      queue.push(...(this.subclasses.get(sub) ?? []));
    }
    return found;
  }

  private countWrites(ref: FnRef): void {
    const { fn, module, owner } = ref;
    const locals = new Set(fn.params.map((p) => p.name));
    this.visitWrites(fn.body, owner, module, locals, fn.name === "<module>");
  }

  /** countWrites' walk (a method, not a closure: the loader defines a closure's name on each call). */
  private visitWrites(stmts: readonly Stmt[], owner: string | null, module: ModuleIR, locals: Set<string>, isModule: boolean): void {
    for (const s of stmts) {
      switch (s.k) {
        case "assign":
          this.countTarget(s.target, owner, module, locals, isModule, s.decl === true, s.value);
          break;
        case "declare":
          locals.add(s.name);
          break;
        case "if":
          this.visitWrites(s.then, owner, module, locals, isModule);
          this.visitWrites(s.else, owner, module, locals, isModule);
          break;
        case "loop":
          if (s.each) this.countTarget(s.each.target, owner, module, locals, isModule, true, null);
          this.visitWrites(s.init, owner, module, locals, isModule);
          this.visitWrites(s.body, owner, module, locals, isModule);
          this.visitWrites(s.update, owner, module, locals, isModule);
          break;
        case "switch":
          for (const c of s.cases) this.visitWrites(c.body, owner, module, locals, isModule);
          break;
        case "try":
          this.visitWrites(s.body, owner, module, locals, isModule);
          for (const h of s.handlers) this.visitWrites(h.body, owner, module, locals, isModule);
          this.visitWrites(s.finally, owner, module, locals, isModule);
          break;
        case "block":
          this.visitWrites(s.body, owner, module, locals, isModule);
          break;
        default:
          break;
      }
    }
  }

  private countTarget(
    target: LValue,
    owner: string | null,
    module: ModuleIR,
    locals: Set<string>,
    isModule: boolean,
    decl: boolean,
    value: Expr | null,
  ): void {
    if (target.k === "destructure") {
      for (const t of target.targets) this.countTarget(t, owner, module, locals, isModule, decl, null);
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
      const field = module.language === "java" ? this.isField(owner, target.name) : null;
      if (field) this.bump(field);
      else if (module.language === "javascript" || module.language === "typescript") this.bump(`${module.file}::${target.name}`);
      locals.add(target.name);
      return;
    }
    if (target.k === "field") {
      const cls =
        target.object.k === "this" || (target.object.k === "var" && (target.object.name === "self" || target.object.name === "this"))
          ? owner
          : target.object.k === "var" && !locals.has(target.object.name)
            ? (this.classKey(module, target.object.name, owner) ?? null)
            : null;
      if (cls) this.bump(this.isField(cls, target.name) ?? `${cls}.${target.name}`);
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

/** `com.acme.Outer$Inner` → `com.acme.Outer`; null for a top-level class. */
function enclosing(key: string): string | null {
  const at = key.lastIndexOf("$");
  return at > 0 && !key.includes(":") ? key.slice(0, at) : null;
}

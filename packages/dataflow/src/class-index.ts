/**
 * Class identity across a repository. A class is keyed by where it is declared: Java by its
 * package-qualified binary name (`com.acme.Outer$Inner`, as the lowering names it), Python
 * and JavaScript by module file and name (`app/util.py:Helper`), so two files that each
 * declare a `Helper` keep separate methods, fields and summaries. A name written in code is
 * resolved from the file it is written in: a nested class of the enclosing classes, the same
 * file, the same package (Java), the imports, and last a class of that name that is unique in
 * the repository.
 */
import type { ClassIR, ModuleIR } from "./ir";

export interface ClassEntry {
  cls: ClassIR;
  module: ModuleIR;
  key: string;
}

/** The key of a class declared in `module` under `name` (ClassIR.name or FunctionIR.cls). */
export function classKeyOf(module: ModuleIR, name: string): string {
  return module.language === "java" ? name : `${module.file}:${name}`;
}

/** `com.acme.Outer$Inner` → `Inner`; `app/util.py:Helper` → `Helper`. */
export function simpleOf(key: string): string {
  return key.split(/[.$:]/).pop() ?? key;
}

/** `com.acme.Outer$Inner` → `com.acme.Outer.Inner`: the form Java source names it in. */
function dotted(key: string): string {
  return key.replace(/\$/g, ".");
}

/** What typeName may rewrite: an annotation, generics, array brackets, varargs or surrounding space. */
const PLAIN_TYPE_NEEDS = /[@<[.]|^\s|\s$/;

/** A type as written without generics, arrays, annotations or varargs: `java.util.List<String>[]` → `java.util.List`. */
export function typeName(type: string): string {
  // Most types are plain names: the four rewrites below would leave them as they are.
  if (!PLAIN_TYPE_NEEDS.test(type)) return type;
  return type
    .replace(/@\w+(\([^)]*\))?\s*/g, "")
    .replace(/<.*$/s, "")
    .replace(/\[\]|\.\.\./g, "")
    .trim();
}

export class ClassIndex {
  readonly byKey = new Map<string, ClassEntry>();
  private readonly bySimple = new Map<string, string[]>();
  /** Per module, enclosing class ("" for none) and text as written: the key it resolved to, or null. */
  private readonly cache = new Map<ModuleIR, Map<string, Map<string, string | null>>>();

  add(module: ModuleIR, cls: ClassIR): string {
    const key = classKeyOf(module, cls.name);
    this.byKey.set(key, { cls, module, key });
    const simple = simpleOf(key);
    const list = this.bySimple.get(simple);
    if (list) list.push(key);
    else this.bySimple.set(simple, [key]);
    return key;
  }

  /** The class `written` names in `module`, from inside class `from` (a key) if any. */
  lookup(module: ModuleIR, written: string, from: string | null = null): string | undefined {
    let inModule = this.cache.get(module);
    if (!inModule) this.cache.set(module, (inModule = new Map()));
    let cache = inModule.get(from ?? "");
    if (!cache) inModule.set(from ?? "", (cache = new Map()));
    let hit = cache.get(written);
    if (hit === undefined) {
      hit = this.find(module, typeName(written), from) ?? null;
      cache.set(written, hit);
    }
    return hit ?? undefined;
  }

  private find(module: ModuleIR, name: string, from: string | null): string | undefined {
    const parts = name.split(".");
    const simple = parts.pop() ?? name;
    const all = this.bySimple.get(simple) ?? [];
    if (!all.length) return undefined;
    if (parts.length) return module.language === "java" ? this.qualified(module, name, parts, from, all) : undefined;
    const local = all.filter((k) => this.byKey.get(k)?.module === module);
    if (local.length === 1) return local[0];
    if (local.length > 1) {
      // Nested classes of the enclosing classes first, innermost first.
      for (let c = from; c; c = c.includes("$") ? c.slice(0, c.lastIndexOf("$")) : null)
        if (local.includes(`${c}$${simple}`)) return `${c}$${simple}`;
      return local.find((k) => !k.includes("$")) ?? local[0];
    }
    if (module.language === "java") {
      const same = module.package ? `${module.package}.${simple}` : simple;
      if (this.byKey.has(same)) return same;
    }
    const imported = Object.hasOwn(module.imports, simple) ? module.imports[simple] : undefined;
    if (imported) {
      const hit = this.imported(module, imported, all);
      if (hit) return hit;
    }
    return all.length === 1 ? all[0] : undefined;
  }

  /** `Outer.Inner`, `com.acme.Util`, `com.acme.Outer.Inner`. */
  private qualified(module: ModuleIR, name: string, parts: string[], from: string | null, all: string[]): string | undefined {
    const exact = all.find((k) => dotted(k) === name);
    if (exact) return exact;
    const head = this.lookup(module, parts[0]!, from);
    if (head) {
      const key = [head, ...parts.slice(1), name.split(".").pop()].join("$");
      if (this.byKey.has(key)) return key;
    }
    const ends = all.filter((k) => dotted(k).endsWith(`.${name}`));
    return ends.length === 1 ? ends[0] : undefined;
  }

  /** A class named by an import: Java's fully-qualified name, or a Python/JS module path. */
  private imported(module: ModuleIR, imported: string, all: string[]): string | undefined {
    if (module.language === "java") return all.find((k) => dotted(k) === imported);
    const path = imported
      .replace(/^[./]+/, "")
      .split(/[./]/)
      .filter((s) => s && s !== "js" && s !== "ts");
    const modPath = path.slice(0, -1);
    if (!modPath.length) return undefined;
    const matches = all.filter((k) => {
      const file = (this.byKey.get(k)?.module.file ?? "").replace(/\.[^./]+$/, "").replace(/\/(index|__init__)$/, "");
      return file.split("/").slice(-modPath.length).join("/") === modPath.join("/");
    });
    return matches.length === 1 ? matches[0] : undefined;
  }
}

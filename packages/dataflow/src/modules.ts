/**
 * Module resolution for Python and JavaScript/TypeScript: a call through an import reaches the
 * imported module's function, found by the module's path, never a same-named function of some
 * other file; a call through an import of a module the repository does not hold (a library)
 * reaches no repository function at all.
 *
 * Import paths are as `ModuleIR.imports` records them: Python `pkg.m.f`, `.m.f`, `..f`
 * (relative ones keep their dots); JavaScript `./m.f`, `../lib/m`, `lodash.merge`. Python
 * modules are `pkg/m.py` or `pkg/m/__init__.py`, relative to the importing file's package for
 * relative imports, else from the repository root or any folder above it (`src/pkg/m.py`).
 * JavaScript specifiers starting with `.` or `/` are files (`./m`, `./m.js`, `./m/index.ts`);
 * bare ones are packages: the repository's own (a workspace folder named like the package,
 * with an index file) or else libraries.
 */
import type { Expr, ModuleIR, Stmt } from "./ir";
import type { FnRef, Program } from "./program";
import type { CallPattern } from "./spec";

/** What an import path stands for: functions of the repository (maybe none), or a library. */
export type ImportTarget = { kind: "repo"; refs: FnRef[] } | { kind: "library" };

const JS_EXTENSIONS = [".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".mts", ".cts"];
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** What resolution looks up in a program, built once per program. */
interface Index {
  files: Map<string, ModuleIR>;
  /** Python modules by every tail of their dotted name (`b/c` for `a/b/c.py` and `a/b/c/__init__.py`). */
  tails: Map<string, ModuleIR[]>;
  /** Class keys by module and name. */
  classes: Map<ModuleIR, Map<string, string>>;
  /** Resolved import paths, by importing file and path. */
  targets: Map<string, ImportTarget>;
}

const indexes = new WeakMap<Program, Index>();

function indexOf(p: Program): Index {
  let index = indexes.get(p);
  if (index) return index;
  index = { files: new Map(), tails: new Map(), classes: new Map(), targets: new Map() };
  for (const m of p.modules) {
    index.files.set(m.file, m);
    if (m.language !== "python") continue;
    const segs = m.file.replace(/(\/__init__)?\.py$/, "").split("/");
    for (let i = segs.length - 1; i >= 0; i--) {
      const tail = segs.slice(i).join("/");
      index.tails.set(tail, [...(index.tails.get(tail) ?? []), m]);
    }
  }
  for (const [key, entry] of p.classes) {
    let names = index.classes.get(entry.module);
    if (!names) index.classes.set(entry.module, (names = new Map()));
    if (!names.has(entry.cls.name)) names.set(entry.cls.name, key);
  }
  indexes.set(p, index);
  return index;
}

function modulesByFile(p: Program): Map<string, ModuleIR> {
  return indexOf(p).files;
}

function own(record: Record<string, string> | undefined, name: string): string | undefined {
  return record && Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * The import path a call goes through, when its callee (or the head of its receiver chain) is
 * an imported name not shadowed by a local: `f(x)` after `from m import f`, `m.f(x)` after
 * `import pkg.m as m`, `g(x)` after `const { f: g } = require("./m")`.
 */
export function importedPath(module: ModuleIR, e: Extract<Expr, { k: "call" }>, isLocal: (name: string) => boolean): string | undefined {
  if (module.language === "java" || e.path === undefined) return undefined;
  if (!e.receiver) {
    if (isLocal(e.callee)) return undefined;
    if (own(module.imports, e.callee) !== undefined || e.path !== e.callee) return e.path;
    return undefined;
  }
  let head: Expr = e.receiver;
  while (head.k === "field") head = head.object;
  if (head.k !== "var" || isLocal(head.name) || own(module.imports, head.name) === undefined) return undefined;
  return e.path;
}

/**
 * The repository functions a call through an import reaches (`precise`), or none at all when
 * it goes to a library; undefined when the call is not through an import.
 */
export function importedCall(
  p: Program,
  module: ModuleIR,
  e: Extract<Expr, { k: "call" }>,
  isLocal: (name: string) => boolean,
): { precise: FnRef[]; loose: FnRef[] } | undefined {
  const path = importedPath(module, e, isLocal);
  if (path === undefined) return undefined;
  const target = resolveImport(p, module, path);
  // A method of an object a repository module holds (`from app import db; db.query(q)`): the
  // receiver's class is unknown here, so the usual lookup by receiver goes on.
  if (target.kind === "repo" && !target.refs.length && e.receiver) return undefined;
  if (target.kind === "library") return { precise: [], loose: [] };
  if (target.refs.length) return { precise: target.refs, loose: [] };
  // A repository module whose export this lowering cannot follow (`module.exports = { f:
  // require("./impl").f }`): module functions of the same name, used only when no rule matches.
  const name = path.split(".").pop() ?? "";
  const loose = IDENT.test(name)
    ? (p.byName.get(name) ?? []).filter((r) => !r.fn.cls && (r.module.language === "python") === (module.language === "python"))
    : [];
  return { precise: [], loose: loose.slice(0, 4) };
}

/**
 * A rule's names for a call through an import under a local alias (`run` for `os.system`,
 * `sani` for the `mongo-sanitize` module): the import's own name, the last part of its path,
 * stands for the callee; a package called as a function is matched on its path alone.
 */
export function aliasNameMatches(
  p: CallPattern,
  module: ModuleIR,
  e: Extract<Expr, { k: "call" }>,
  isLocal: (name: string) => boolean,
): boolean {
  if (e.receiver) return false;
  const path = importedPath(module, e, isLocal);
  if (path === undefined) return false;
  const last = path.split(".").pop();
  if (last !== undefined && p.names.includes(last)) return true;
  // A whole package called as a function (`const sani = require("mongo-sanitize")`): its path says it all.
  return p.path !== undefined && !path.includes(".") && !path.includes("/");
}

/** Where an import path leads, or undefined when it is not an import of a module at all. */
export function resolveImport(p: Program, from: ModuleIR, path: string, depth = 0): ImportTarget {
  const memo = indexOf(p).targets;
  const key = `${from.file}\0${path}`;
  const known = memo.get(key);
  if (known) return known;
  const found = from.language === "python" ? pythonModule(p, from, path) : jsModule(p, from, path);
  const target: ImportTarget = found
    ? { kind: "repo", refs: depth > 4 ? [] : membersOf(p, found.module, found.rest, depth) }
    : { kind: "library" };
  if (depth === 0) memo.set(key, target);
  return target;
}

/** The functions `rest` names in a module: a function, a class's method, or the default export (`rest` empty). */
function membersOf(p: Program, module: ModuleIR, rest: readonly string[], depth: number): FnRef[] {
  const fns = p.byModule.get(module.file);
  const js = module.language !== "python";
  if (rest.length === 0) {
    if (!js) return [];
    const name = own(module.exports, "default");
    return name ? (fns?.get(name) ?? []) : [];
  }
  const [first, second] = rest as [string, string | undefined];
  if (second !== undefined && rest.length === 2) {
    const cls = classIn(p, module, first);
    if (cls) return p.methods(cls, second, false);
  }
  if (rest.length !== 1) return [];
  const direct = fns?.get(first);
  if (direct?.length) return direct;
  const alias = js ? own(module.exports, first) : undefined;
  if (alias && fns?.get(alias)?.length) return fns.get(alias) ?? [];
  const cls = classIn(p, module, first);
  if (cls) return p.methods(cls, js ? "<init>" : "__init__", false);
  // A re-export: `from .impl import f` in a package's __init__.py, `export { f } from "./impl"`,
  // `export * from "./impl"`.
  const again = own(module.imports, alias ?? first);
  for (const path of again !== undefined ? [again] : (module.reexports ?? []).map((m) => `${m}.${first}`)) {
    const target = resolveImport(p, module, path, depth + 1);
    if (target.kind === "repo" && target.refs.length) return target.refs;
  }
  return [];
}

/** The key under which the program holds class `name` of `module`. */
function classIn(p: Program, module: ModuleIR, name: string): string | undefined {
  return indexOf(p).classes.get(module)?.get(name);
}

/**
 * CommonJS exports of a module's top-level code, as `ModuleIR.exports` records them:
 * `module.exports = f` → `default: f`; `module.exports.name = f`, `exports.name = f` → `name: f`
 * (the function or variable assigned, by name); `module.exports = { a, b: c }` → `a: a`, `b: c`.
 */
export function commonJsExports(top: readonly Stmt[], into: Record<string, string>): void {
  const set = (key: string, value: string) => {
    if (!Object.hasOwn(into, key)) Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  };
  for (const s of top) {
    if (s.k !== "assign" || s.target.k !== "field" || s.target.path === undefined) continue;
    const at = s.target.path;
    const named = /^(?:module\.)?exports\.([\w$]+)$/.exec(at)?.[1];
    if (s.value.k === "lambda" || s.value.k === "var") {
      if (at === "module.exports") set("default", s.value.name);
      else if (named !== undefined) set(named, s.value.name);
    } else if (s.value.k === "object" && at === "module.exports") {
      for (const entry of s.value.entries)
        if (entry.key !== null && (entry.value.k === "var" || entry.value.k === "lambda")) set(entry.key, entry.value.name);
    }
  }
}

interface Found {
  module: ModuleIR;
  rest: string[];
}

function pythonModule(p: Program, from: ModuleIR, path: string): Found | undefined {
  const dots = /^\.*/.exec(path)?.[0].length ?? 0;
  const segs = path.slice(dots).split(".").filter(Boolean);
  const files = modulesByFile(p);
  const dir = from.file.split("/").slice(0, -1);
  const bases: string[][] = [];
  if (dots > 0) {
    if (dots - 1 > dir.length) return undefined;
    bases.push(dir.slice(0, dir.length - (dots - 1)));
  } else {
    // Absolute: from the repository root or any folder that holds the importing file (`src/`).
    for (let n = dir.length; n >= 0; n--) bases.push(dir.slice(0, n));
  }
  for (let i = segs.length; i >= 0; i--) {
    if (i === 0 && dots === 0) break;
    for (const base of bases) {
      const stem = [...base, ...segs.slice(0, i)].join("/");
      for (const file of i === 0 ? [`${stem}/__init__.py`] : [`${stem}.py`, `${stem}/__init__.py`]) {
        const m = files.get(file.replace(/^\//, ""));
        if (m) return { module: m, rest: segs.slice(i) };
      }
    }
  }
  if (dots === 0 && segs[0] !== undefined) {
    // A top-level package some other folder holds (`lib/pkg/m.py` imported as `pkg.m`).
    // Two names at least: a single one (`json`, `config`) says too little to pick a folder.
    for (let i = segs.length; i >= 2; i--) {
      const tail = segs.slice(0, i).join("/");
      const hits = indexOf(p).tails.get(tail) ?? [];
      if (hits.length === 1 && hits[0]) return { module: hits[0], rest: segs.slice(i) };
    }
  }
  return undefined;
}

function jsModule(p: Program, from: ModuleIR, path: string): Found | undefined {
  const relative = path.startsWith(".") || path.startsWith("/");
  const files = modulesByFile(p);
  // The specifier is a prefix of the path; the rest are member names (`./m.js.f` → `./m.js`, [f]).
  const parts = path.split(".");
  for (let cut = parts.length; cut >= 1; cut--) {
    const rest = parts.slice(cut);
    if (!rest.every((r) => IDENT.test(r))) continue;
    const spec = parts.slice(0, cut).join(".");
    if (!spec) continue;
    const stems = relative ? [normalize(from.file, spec)] : workspaceStems(p, spec);
    for (const target of stems) {
      if (target === undefined) continue;
      const m = fileFor(files, target.replace(/\/$/, ""));
      if (m) return { module: m, rest };
    }
  }
  return undefined;
}

function fileFor(files: Map<string, ModuleIR>, stem: string): ModuleIR | undefined {
  const candidates = [stem, ...JS_EXTENSIONS.map((x) => stem + x), ...JS_EXTENSIONS.map((x) => `${stem}/index${x}`)];
  // `./m.js` compiled from `./m.ts`.
  if (/\.[cm]?js$/.test(stem)) candidates.push(...[".ts", ".tsx", ".mts", ".cts"].map((x) => stem.replace(/\.[cm]?js$/, x)));
  for (const c of candidates) {
    const m = files.get(c);
    if (m) return m;
  }
  return undefined;
}

const packageRoots = new WeakMap<Program, Map<string, string[]>>();

/**
 * A bare specifier naming a package the repository holds (a workspace: `@acme/util` in
 * `packages/util/src/index.ts`): the folder named like the package that holds an `index`
 * file (itself or in `src/`), when exactly one does. Anything else is a library.
 */
function workspaceStems(p: Program, spec: string): string[] {
  const segs = spec.split("/");
  const scoped = spec.startsWith("@");
  const name = segs[scoped ? 1 : 0];
  const sub = segs.slice(scoped ? 2 : 1).join("/");
  if (!name) return [];
  let roots = packageRoots.get(p);
  if (!roots) {
    roots = new Map();
    for (const m of p.modules) {
      if (m.language === "python" || m.language === "java" || !/(^|\/)index\.[cm]?[jt]sx?$/.test(m.file)) continue;
      const dir = m.file.split("/").slice(0, -1);
      if (dir.at(-1) === "src") dir.pop();
      const key = dir.at(-1);
      if (key && !roots.get(key)?.includes(dir.join("/"))) roots.set(key, [...(roots.get(key) ?? []), dir.join("/")]);
    }
    packageRoots.set(p, roots);
  }
  const found = roots.get(name);
  if (found?.length !== 1 || found[0] === undefined) return [];
  const root = found[0];
  return sub ? [`${root}/src/${sub}`, `${root}/${sub}`] : [`${root}/src/index`, `${root}/index`];
}

/** `spec` relative to the importing file's folder, as a repository path; undefined above the root. */
function normalize(fromFile: string, spec: string): string | undefined {
  const out = spec.startsWith("/") ? [] : fromFile.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (!out.length) return undefined;
      out.pop();
    } else out.push(seg);
  }
  return out.join("/");
}

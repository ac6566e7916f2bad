/**
 * What imported names stand for, so rules see `child_process.exec` however the module was
 * brought in: ESM `import` (default, named, namespace), TypeScript `import x = require()`,
 * CommonJS `require` (whole module, a member of it, or destructured) and `await import()`.
 */
import type { SgNode } from "@ast-grep/napi";
import { fieldOf, kids, kindOf, moduleName, stringValue } from "./javascript-util";

export interface Imports {
  /** Local name → dotted path (`run` → `child_process.exec`). */
  paths: Record<string, string>;
  /** Local names bound to a member of a module, with the member's own name (`run` → `exec`). */
  members: Record<string, string>;
  /** Modules whose every export this one re-exports (`export * from "./impl"`). */
  stars: string[];
}

export function collectImports(root: SgNode): Imports {
  const imports: Imports = { paths: {}, members: {}, stars: [] };
  for (const stmt of root.findAll({ rule: { kind: "import_statement" } })) esmImport(stmt, imports);
  for (const stmt of root.findAll({ rule: { kind: "export_statement" } })) reexport(stmt, imports);
  // Document order, so `const { exec } = cp` can build on an earlier `const cp = require(…)`.
  for (const decl of root.findAll({ rule: { kind: "variable_declarator" } })) {
    const value = fieldOf(decl, "value");
    const target = fieldOf(decl, "name");
    if (!value || !target) continue;
    const path = requiredPath(value, imports);
    if (path !== undefined) bindPattern(target, path.path, imports, path.member);
  }
  return imports;
}

function esmImport(stmt: SgNode, imports: Imports): void {
  const source = fieldOf(stmt, "source");
  const mod = source && kindOf(source) === "string" ? moduleName(stringValue(source)) : undefined;
  for (const part of kids(stmt)) {
    if (kindOf(part) === "import_require_clause") {
      const name = kids(part).find((c) => kindOf(c) === "identifier");
      const src = fieldOf(part, "source");
      if (name && src) bind(imports, name.text(), moduleName(stringValue(src)));
    }
    if (kindOf(part) !== "import_clause" || mod === undefined) continue;
    for (const clause of kids(part)) {
      const kind = kindOf(clause);
      if (kind === "identifier") bind(imports, clause.text(), mod);
      else if (kind === "namespace_import") {
        const name = kids(clause)[0];
        if (name) bind(imports, name.text(), mod);
      } else if (kind === "named_imports") {
        for (const spec of kids(clause)) {
          const nameNode = fieldOf(spec, "name");
          if (!nameNode) continue;
          const name = kindOf(nameNode) === "string" ? stringValue(nameNode) : nameNode.text();
          const alias = fieldOf(spec, "alias")?.text() ?? name;
          if (name === "default") bind(imports, alias, mod);
          else bind(imports, alias, `${mod}.${name}`, name);
        }
      }
    }
  }
}

/**
 * `export { f as g } from "./impl"` binds `g` as an import of `./impl.f` would (so a module
 * importing `g` from here reaches `./impl`'s `f`); `export * from "./impl"` is kept in `stars`.
 */
function reexport(stmt: SgNode, imports: Imports): void {
  const source = fieldOf(stmt, "source");
  if (!source || kindOf(source) !== "string") return;
  const mod = moduleName(stringValue(source));
  for (const part of stmt.children()) {
    const kind = kindOf(part);
    if (kind === "*") imports.stars.push(mod);
    else if (kind === "namespace_export") {
      const name = kids(part).find((c) => kindOf(c) === "identifier" || kindOf(c) === "string");
      if (name) bind(imports, kindOf(name) === "string" ? stringValue(name) : name.text(), mod);
    } else if (kind === "export_clause") {
      for (const spec of kids(part)) {
        const nameNode = fieldOf(spec, "name");
        if (!nameNode) continue;
        const name = kindOf(nameNode) === "string" ? stringValue(nameNode) : nameNode.text();
        const aliasNode = fieldOf(spec, "alias");
        const alias = aliasNode ? (kindOf(aliasNode) === "string" ? stringValue(aliasNode) : aliasNode.text()) : name;
        if (name === "default") bind(imports, alias, mod);
        else bind(imports, alias, `${mod}.${name}`, name);
      }
    }
  }
}

/**
 * `require("m")`, `require("m").a.b`, `await import("m")`, an alias of an imported name, or
 * `util.promisify(exec)`: the promise form runs the same call, so it keeps the wrapped path.
 */
function requiredPath(node: SgNode, imports: Imports): { path: string; member?: string } | undefined {
  const kind = kindOf(node);
  if (kind === "await_expression" || kind === "parenthesized_expression" || kind === "as_expression" || kind === "non_null_expression") {
    const inner = kids(node)[0];
    return inner ? requiredPath(inner, imports) : undefined;
  }
  if (kind === "call_expression") {
    const mod = requireTarget(node);
    return mod === undefined ? promisified(node, imports) : { path: mod };
  }
  if (kind === "member_expression") {
    const object = fieldOf(node, "object");
    const prop = fieldOf(node, "property");
    const base = object ? requiredPath(object, imports) : undefined;
    return base !== undefined && prop ? { path: `${base.path}.${prop.text()}`, member: prop.text() } : undefined;
  }
  if (kind === "identifier") {
    const local = node.text();
    const path = imports.paths[local];
    const member = imports.members[local];
    return path === undefined ? undefined : member === undefined ? { path } : { path, member };
  }
  return undefined;
}

/** `promisify(cp.exec)`, `util.promisify(exec)`: the wrapped function's path. */
function promisified(call: SgNode, imports: Imports): { path: string; member?: string } | undefined {
  const fn = fieldOf(call, "function");
  const wrapper = fn ? requiredPath(fn, imports) : undefined;
  const argList = fieldOf(call, "arguments");
  const args = argList ? kids(argList) : [];
  if (wrapper?.path !== "util.promisify" || args.length !== 1) return undefined;
  return requiredPath(args[0]!, imports);
}

/** The module of `require("m")` / `import("m")` with a constant string argument. */
export function requireTarget(call: SgNode): string | undefined {
  const fn = fieldOf(call, "function");
  const args = fieldOf(call, "arguments");
  if (!fn || !args || !(fn.text() === "require" || kindOf(fn) === "import")) return undefined;
  const first = kids(args)[0];
  if (!first) return undefined;
  if (kindOf(first) === "string") return moduleName(stringValue(first));
  if (kindOf(first) === "template_string" && !kids(first).some((c) => kindOf(c) === "template_substitution"))
    return moduleName(first.text().slice(1, -1));
  return undefined;
}

function bindPattern(target: SgNode, path: string, imports: Imports, member?: string): void {
  const kind = kindOf(target);
  if (kind === "identifier") {
    bind(imports, target.text(), path, member);
    return;
  }
  if (kind !== "object_pattern") return;
  for (const prop of kids(target)) {
    const pk = kindOf(prop);
    if (pk === "shorthand_property_identifier_pattern") bind(imports, prop.text(), `${path}.${prop.text()}`, prop.text());
    else if (pk === "object_assignment_pattern") {
      const left = fieldOf(prop, "left");
      if (left && kindOf(left) === "shorthand_property_identifier_pattern")
        bind(imports, left.text(), `${path}.${left.text()}`, left.text());
    } else if (pk === "pair_pattern") {
      const key = fieldOf(prop, "key");
      const value = fieldOf(prop, "value");
      if (!key || !value || kindOf(key) === "computed_property_name") continue;
      const keyName = kindOf(key) === "string" ? stringValue(key) : key.text();
      bindPattern(value, `${path}.${keyName}`, imports, keyName);
    }
  }
}

function bind(imports: Imports, local: string, path: string, member?: string): void {
  imports.paths[local] = path;
  if (member !== undefined) imports.members[local] = member;
  else delete imports.members[local];
}

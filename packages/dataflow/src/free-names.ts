/**
 * Names a function reads that nothing in the analysed code defines: not a local, parameter,
 * captured variable, field, module global, function or import of its file — a global another
 * file sets, a field inherited from a library class, a name a template engine injects. Their
 * value is unknown, not clean: the analysis gives them an implicit-parameter fact (origin
 * `field`, key `file::?name`) that no caller fills, so a sink they reach is *open* (sites.ts)
 * and a pattern finding there is never refuted. They produce no finding of their own.
 */
import type { ModuleIR } from "./ir";
import type { Program } from "./program";
import type { Fact } from "./values";

/** Names every runtime defines, or that stand for the host rather than data. */
const HOST_NAMES = new Set([
  "undefined",
  "NaN",
  "Infinity",
  "arguments",
  "globalThis",
  "window",
  "document",
  "console",
  "process",
  "require",
  "module",
  "exports",
  "__dirname",
  "__filename",
  "__name__",
  "__file__",
  "self",
  "cls",
  "this",
  "super",
]);

/** The implicit-parameter key of a free name, or null when the name is known (or names a class or module by convention). */
export function freeNameKey(program: Program, module: ModuleIR, name: string): string | null {
  // Class references (`Integer.parseInt`, `MyModel.objects`) are capitalised by convention in every language we read.
  if (!/^[a-z_$]/.test(name) || HOST_NAMES.has(name)) return null;
  if (Object.hasOwn(module.imports, name)) return null;
  if (program.byModule.get(module.file)?.has(name)) return null;
  return `${module.file}::?${name}`;
}

export function freeNameFact(key: string, step: Fact["steps"][number]): Fact {
  return { origin: { kind: "field", key }, steps: [step], clean: new Set() };
}

/**
 * JavaScript and TypeScript → dataflow IR (ir.ts), from the tree-sitter grammars through
 * @ast-grep/napi. Module-level code is the function "<module>"; declarations, function
 * expressions, arrows and methods are FunctionIRs of their own; classes become ClassIR.
 * Imports (ESM and CommonJS) resolve callee paths, and framework route handlers get their
 * request parameter marked as a source. Odd input degrades to `unknown`, never an exception.
 */
import { Lang, parse, type SgNode } from "@ast-grep/napi";
import { markCaptures } from "./closures";
import { commonJsExports } from "./modules";
import type { ModuleIR } from "./ir";
import { markArchiveEntries } from "./javascript-archives";
import { markHandlers } from "./javascript-frameworks";
import { collectImports } from "./javascript-imports";
import { JsLowering } from "./javascript-lower";
import { parseSource } from "./parser";

export function lowerJavaScript(file: string, source: string, language: "javascript" | "typescript"): ModuleIR {
  try {
    const root = parseTree(file, source, language);
    const imports = collectImports(root);
    const lowering = new JsLowering(imports);
    lowering.module(root);
    markHandlers(lowering.functions, lowering.exported);
    markArchiveEntries(lowering.functions);
    markCaptures(lowering.functions);
    const exports: Record<string, string> = {};
    for (const ex of lowering.exported)
      Object.defineProperty(exports, ex.exportName, { value: ex.name, enumerable: true, writable: true, configurable: true });
    commonJsExports(lowering.functions[0]?.body ?? [], exports);
    return {
      file,
      language,
      functions: lowering.functions,
      classes: lowering.classes,
      imports: imports.paths,
      exports,
      ...(imports.stars.length ? { reexports: imports.stars } : {}),
    };
  } catch {
    // Statements already degrade one by one; this catches a parser failure or a pathological tree.
    return { file, language, functions: [], classes: [], imports: {} };
  }
}

/** The typescript grammar rejects JSX, so .tsx files get the TSX grammar napi ships with. */
function parseTree(file: string, source: string, language: "javascript" | "typescript"): SgNode {
  if (language === "typescript" && /\.tsx$/i.test(file)) return parse(Lang.Tsx, source).root();
  return parseSource(language, source).root();
}

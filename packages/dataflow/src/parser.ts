/**
 * Tree-sitter parsing in process through @ast-grep/napi: JavaScript and TypeScript are built
 * in; Java and Python come from @ast-grep/lang-* packages (prebuilt parsers shipped in the
 * npm package, no install script needed), registered once on first use.
 */
import { createRequire } from "node:module";
import { Lang, parse, registerDynamicLanguage, type SgRoot } from "@ast-grep/napi";

export type DataflowLanguage = "java" | "python" | "javascript" | "typescript";

let registered = false;

function register(): void {
  if (registered) return;
  const require = createRequire(import.meta.url);
  registerDynamicLanguage({ java: require("@ast-grep/lang-java"), python: require("@ast-grep/lang-python") });
  registered = true;
}

export function parseSource(language: DataflowLanguage, source: string): SgRoot {
  register();
  switch (language) {
    case "java":
      return parse("java", source);
    case "python":
      return parse("python", source);
    case "javascript":
      return parse(Lang.JavaScript, source);
    case "typescript":
      return parse(Lang.TypeScript, source);
  }
}

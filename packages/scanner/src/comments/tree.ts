/**
 * Comments from the syntax tree, for the languages the scanner parses in process (tree-sitter
 * through @ast-grep/napi, as the taint analysis does): JavaScript, TypeScript (and TSX), Java
 * and Python. Only comments that contain `text` are returned.
 */
import { Lang, parse } from "@ast-grep/napi";
import { parseSource } from "@ax/dataflow";
import type { Span } from "./lexer";

export type TreeLanguage = "javascript" | "typescript" | "tsx" | "java" | "python";

/** Comment node kinds per grammar (tree-sitter-java splits them; the others have one). */
const KINDS: Record<TreeLanguage, string[]> = {
  javascript: ["comment"],
  typescript: ["comment"],
  tsx: ["comment"],
  java: ["line_comment", "block_comment"],
  python: ["comment"],
};

/** Throws when the parser cannot be loaded or fails; comments.ts then falls back to the lexer. */
export function treeComments(language: TreeLanguage, source: string, text: string): Span[] {
  const root = language === "tsx" ? parse(Lang.Tsx, source) : parseSource(language, source);
  const kinds = KINDS[language];
  const rule = kinds.length === 1 ? { kind: kinds[0] as string } : { any: kinds.map((kind) => ({ kind })) };
  return root
    .root()
    .findAll({ rule: { ...rule, regex: escapeRegex(text) } })
    .map((node) => {
      const r = node.range();
      return { start: r.start.index, end: r.end.index };
    });
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

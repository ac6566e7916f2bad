/**
 * Where the comments of a source file are, by the file's language: from the syntax tree for
 * JavaScript, TypeScript, Java and Python (tree.ts), from a comment lexer for the others
 * (lexer.ts, syntaxes.ts, markup.ts). A parser that fails falls back to the lexer, so a file
 * never costs a scan.
 */
import { basename, extname } from "node:path";
import { languageOfShebang } from "../languages";
import { lexComments, type Span } from "./lexer";
import { markupComments } from "./markup";
import { GENERIC, LEX_BY_EXTENSION, LEX_BY_LANGUAGE, LEX_BY_NAME, type LexFamily } from "./syntaxes";
import { treeComments, type TreeLanguage } from "./tree";

export type { Span } from "./lexer";

const TREE_BY_EXTENSION: Record<string, TreeLanguage> = {
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "tsx",
  ".java": "java",
  ".py": "python",
  ".pyw": "python",
  ".pyi": "python",
};
const TREE_BY_LANGUAGE: Record<string, TreeLanguage> = { javascript: "javascript", python: "python" };

/** How a file's comments are found: its parser (if any) and its lexer. */
export function commentSyntaxOf(path: string, text: string): { tree: TreeLanguage | null; lex: LexFamily } {
  const ext = extname(path).toLowerCase();
  const name = basename(path).toLowerCase();
  const byName = LEX_BY_NAME.find(([re]) => re.test(name))?.[1];
  if (byName) return { tree: null, lex: byName };
  if (ext in LEX_BY_EXTENSION) return { tree: TREE_BY_EXTENSION[ext] ?? null, lex: LEX_BY_EXTENSION[ext] as LexFamily };
  const shebang = text.startsWith("#!") ? languageOfShebang(text.split("\n", 1)[0] as string) : null;
  if (shebang && shebang in LEX_BY_LANGUAGE) return { tree: TREE_BY_LANGUAGE[shebang] ?? null, lex: LEX_BY_LANGUAGE[shebang] as LexFamily };
  return { tree: null, lex: { syntax: GENERIC } };
}

/**
 * The comments of `text` (the content of `path`) that contain `needle`, in no particular
 * order. `force`: "lexer" skips the parser (tests compare the two).
 */
export function findComments(path: string, text: string, needle: string, force?: "lexer"): Span[] {
  const { tree, lex } = commentSyntaxOf(path, text);
  if (tree && force !== "lexer") {
    try {
      return treeComments(tree, text, needle);
    } catch {
      // A grammar that fails to load or parse: the lexer still reads the file.
    }
  }
  const spans =
    "markup" in lex ? markupComments(text, lex.markup) : lexComments(lex.prepare ? lex.prepare(text) : text, lex.syntax).comments;
  return spans.filter((s) => text.slice(s.start, s.end).includes(needle));
}

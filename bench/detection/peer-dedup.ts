/**
 * Near-duplicates across the peer split: a held-out file that is (almost) a copy of a
 * development file would leak what was tuned on into the held-out figure. Files are compared
 * as sets of 5-token shingles of their code with comments and string contents removed
 * (identifiers kept: a copy keeps them); a held-out file whose Jaccard similarity with any
 * development file of the same language family reaches the threshold is left out of the
 * held-out score, and the report says how many.
 */
import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";

export const NEAR_DUPLICATE_JACCARD = 0.7;
const SHINGLE = 5;

/** Language family for comparison: Kotlin and JSP samples are compared with Java ones. */
export function familyOf(file: string): string {
  const ext = extname(file).toLowerCase();
  if ([".java", ".kt", ".jsp"].includes(ext)) return "jvm";
  if (ext === ".py") return "python";
  if ([".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts"].includes(ext)) return "js";
  return ext;
}

/** The code's tokens with comments and the contents of string literals removed. */
export function codeTokens(source: string, family: string): string[] {
  let text = source.replace(/\/\*[\s\S]*?\*\//g, " ");
  text = family === "python" ? text.replace(/#[^\n]*/g, " ") : text.replace(/\/\/[^\n]*/g, " ");
  text = text.replace(/("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)/g, '""');
  return text.match(/[A-Za-z_$][\w$]*|\d+|\S/g) ?? [];
}

export function shingles(tokens: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + SHINGLE <= tokens.length; i++) out.add(tokens.slice(i, i + SHINGLE).join(" "));
  if (tokens.length && tokens.length < SHINGLE) out.add(tokens.join(" "));
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (!a.size && !b.size) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const s of small) if (large.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Held-out files (paths under `root`) that nearly duplicate a development file. */
export async function nearDuplicates(root: string, heldOut: readonly string[], development: readonly string[]): Promise<Set<string>> {
  const load = async (file: string) => {
    const family = familyOf(file);
    const text = await readFile(join(root, file), "utf8").catch(() => "");
    return { file, family, shingles: shingles(codeTokens(text, family)) };
  };
  const dev = await Promise.all(development.map(load));
  const out = new Set<string>();
  for (const file of heldOut) {
    const h = await load(file);
    if (!h.shingles.size) continue;
    if (dev.some((d) => d.family === h.family && jaccard(d.shingles, h.shingles) >= NEAR_DUPLICATE_JACCARD)) out.add(file);
  }
  return out;
}

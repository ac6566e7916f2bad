/**
 * Features of one review input ({code, cwe_id, file}): hashed, binary, L2-normalized.
 *
 * - Code tokens (identifiers lower-cased, plus their camelCase/snake_case parts), token
 *   bigrams, and every token crossed with the CWE: "encode" means something for CWE-79 and
 *   nothing for CWE-190, and a linear model needs the cross to tell.
 * - Literal shapes instead of literal text: a constant string, an empty one, a number.
 * - The CWE and its family (CWE-121 and CWE-122 share "overflow" evidence), the file
 *   extension, test/example paths.
 *
 * Comments are dropped and identifiers that carry a test suite's verdict are masked
 * (`bad`, `good`, `G2B`, `B2G`, `flaw`, `CWE89_…` class names in Juliet): the model must learn from
 * what the code does, not from what its author called it. The same masking runs at
 * inference, so a real `badInput` variable only loses its name, not its meaning.
 */

import { stripComments } from "./comments";
import { evidenceFeatures, type Evidence } from "./evidence";

export { stripComments };

/** 2: the scanner's evidence (evidence.ts) and the rule's measured precision next to the code tokens. */
export const FEATURE_SCHEME = 2;

export interface ReviewInput {
  code: string;
  cwe_id?: string | null;
  file?: string | null;
  /** What the scanner knows about the finding; absent for a bare snippet nobody analysed. */
  evidence?: Evidence | null;
}

export type SparseVector = Map<number, number>;

const MAX_CODE_CHARS = 64 * 1024;
const VERDICT = /bad|good|g2b|b2g|flaw|cwe\d+/i;

const TOKEN =
  /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`|[A-Za-z_$][\w$]*|\d[\w.]*|==|!=|<=|>=|&&|\|\||->|::|\+=|-=|<<|>>|[{}()[\];,.=+\-*/%<>!&|^~?:@]/g;

/** The token stream the features are made of. */
export function tokens(code: string, file = ""): string[] {
  const text = stripComments(code.length > MAX_CODE_CHARS ? code.slice(0, MAX_CODE_CHARS) : code, file);
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    const first = t[0] as string;
    if (first === '"' || first === "'" || first === "`") {
      const body = t.slice(1, -1);
      out.push(body === "" ? "STR_EMPTY" : /%[-+ #0-9.]*[sdx]|\{\}|\$\{/.test(body) ? "STR_FMT" : "STR");
    } else if (/^\d/.test(first)) out.push("NUM");
    else if (/^[A-Za-z_$]/.test(first)) out.push(VERDICT.test(t) ? "ID_MASKED" : t.toLowerCase());
    else out.push(t);
  }
  return out;
}

/** camelCase / snake_case parts of an identifier token, when it has more than one. */
function parts(token: string, original: string): string[] {
  const split = original
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s_$]+/)
    .map((p) => p.toLowerCase())
    .filter((p) => p.length > 1 && p !== token);
  return split.length > 1 ? split : [];
}

export function cweNumber(cwe: string | null | undefined): number | null {
  const m = /^CWE-(\d+)$/i.exec((cwe ?? "").trim());
  return m ? Number(m[1]) : null;
}

/** Coarse families so related CWEs share evidence (MITRE's tree is too deep to use raw). */
const FAMILIES: readonly [string, readonly number[]][] = [
  ["memory", [119, 120, 121, 122, 124, 125, 126, 127, 131, 170, 415, 416, 467, 590, 676, 761, 762, 786, 787, 788, 805, 806, 822, 824]],
  ["integer", [128, 190, 191, 194, 195, 196, 197, 369, 681, 682]],
  ["null", [476, 690, 252, 253, 754]],
  ["injection", [77, 78, 88, 89, 90, 91, 94, 95, 643, 917, 943]],
  ["web", [79, 80, 81, 83, 113, 352, 601, 611, 918, 1004, 614]],
  ["path", [22, 23, 36, 73, 434]],
  ["crypto", [256, 259, 261, 295, 311, 312, 315, 319, 321, 326, 327, 328, 329, 330, 338, 759, 760, 798, 916]],
  ["format", [134]],
  ["resource", [400, 401, 404, 459, 770, 772, 775, 789]],
];

export function family(cwe: number | null): string {
  if (cwe === null) return "none";
  for (const [name, members] of FAMILIES) if (members.includes(cwe)) return name;
  return "other";
}

/** The weight index of a named feature in a model of `dims` weights. */
export function featureIndex(name: string, dims: number): number {
  return hash(name) % dims;
}

/** FNV-1a, 32 bit. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The evidence block: each piece of evidence by itself and crossed with the weakness family
 * (a bound parameter means something for SQL and nothing for a weak hash), unnormalized so
 * that a long function's many tokens do not drown it. `extra` adds real-valued features the
 * model computes (the rule's measured precision).
 */
export function evidenceBlock(input: ReviewInput, extra: readonly (readonly [string, number])[] = []): [string, number][] {
  const out: [string, number][] = [...extra.map(([n, v]) => [n, v] as [string, number])];
  const ev = input.evidence;
  if (!ev) return [["ev:none", 1], ...out];
  const fam = family(cweNumber(input.cwe_id));
  for (const { name } of evidenceFeatures(ev)) {
    out.push([name, 1]);
    out.push([`${name}|${fam}`, 1]);
  }
  return out;
}

/** The hashed feature vector of an input, for a model with `dims` weights. */
export function featurize(
  input: ReviewInput,
  dims: number,
  extra: readonly (readonly [string, number])[] = [],
  opts: { tokens?: boolean } = {},
): SparseVector {
  if (opts.tokens === false) {
    const vec: SparseVector = new Map();
    for (const [name, v] of [...evidenceBlock(input, extra), [`cwe:${cweNumber(input.cwe_id) ?? "none"}`, 1] as [string, number]]) {
      const i = hash(name) % dims;
      vec.set(i, (vec.get(i) ?? 0) + v);
    }
    return vec;
  }
  const file = input.file ?? "";
  const cwe = cweNumber(input.cwe_id);
  const fam = family(cwe);
  const cweKey = cwe === null ? "none" : String(cwe);
  const names = new Set<string>();
  const add = (name: string): void => {
    names.add(name);
  };
  add(`cwe:${cweKey}`);
  add(`fam:${fam}`);
  const ext = /\.([A-Za-z0-9]+)$/.exec(file)?.[1]?.toLowerCase() ?? "none";
  add(`ext:${ext}`);
  if (/(^|\/)(tests?|spec|__tests__|testdata|fixtures?|examples?|samples?)(\/|$)|[._-](test|spec)\.[a-z]+$/i.test(file)) add("path:test");

  const raw = stripComments(input.code.slice(0, MAX_CODE_CHARS), file);
  const toks = tokens(input.code, file);
  const lineCount = raw.split("\n").filter((l) => l.trim() !== "").length;
  add(`len:${lineCount <= 1 ? "1" : lineCount <= 5 ? "5" : lineCount <= 20 ? "20" : lineCount <= 60 ? "60" : "more"}`);
  const originals = raw.match(/[A-Za-z_$][\w$]*/g) ?? [];
  for (const o of originals) {
    if (VERDICT.test(o)) continue;
    for (const p of parts(o.toLowerCase(), o)) add(`p:${p}`);
  }
  let prev = "^";
  for (const t of toks) {
    add(`t:${t}`);
    add(`b:${prev} ${t}`);
    add(`ct:${cweKey}:${t}`);
    add(`ft:${fam}:${t}`);
    prev = t;
  }
  const vec: SparseVector = new Map();
  for (const n of names) {
    const i = hash(n) % dims;
    vec.set(i, (vec.get(i) ?? 0) + 1);
  }
  const norm = Math.sqrt([...vec.values()].reduce((s, v) => s + v * v, 0)) || 1;
  for (const [i, v] of vec) vec.set(i, v / norm);
  for (const [name, v] of evidenceBlock(input, extra)) {
    const i = hash(name) % dims;
    vec.set(i, (vec.get(i) ?? 0) + v);
  }
  return vec;
}

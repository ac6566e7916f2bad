/**
 * CWE relations used to decide whether a finding counts for a labeled CWE, and names for the
 * report. A finding counts for a test case's CWE when its own CWE is the same, a direct parent
 * or a direct child in MITRE's Research Concepts view (CWE-1000, "ChildOf"), e.g. CWE-80/81/83
 * → CWE-79, CWE-23/36 → CWE-22, CWE-259/321 → CWE-798. Only the edges below are used, so the
 * report can print exactly which CWEs were accepted for each row.
 */
import { CWE_NAMES, cweChildren, cweParents } from "@ax/rules";

/** Direct ChildOf edges (child → parents), CWE-1000 view, for the CWEs the benchmarks label. */
export const CHILD_OF: Readonly<Record<number, readonly number[]>> = {
  15: [642, 610],
  22: [706, 668],
  23: [22],
  36: [22],
  77: [74],
  78: [77],
  79: [74],
  80: [79],
  81: [79],
  83: [79],
  89: [943, 74],
  90: [943],
  91: [74],
  93: [74],
  113: [93],
  117: [116],
  119: [118],
  120: [787],
  121: [787, 788],
  122: [787, 788],
  124: [786, 787],
  125: [119],
  126: [125, 788],
  127: [125, 786],
  129: [1285],
  134: [668],
  190: [682],
  191: [682],
  242: [1177],
  252: [754],
  256: [522],
  259: [798],
  315: [312],
  319: [311],
  321: [798],
  328: [327, 326],
  338: [330],
  367: [362],
  369: [682],
  377: [668],
  401: [772],
  415: [1341, 672, 825],
  416: [672, 825],
  457: [908],
  467: [131],
  470: [913],
  476: [754],
  523: [522],
  549: [522],
  590: [762],
  614: [319],
  643: [91],
  676: [1177],
  690: [476, 252],
  759: [916],
  760: [916],
  761: [763],
  762: [763],
  786: [119],
  787: [119],
  788: [119],
  789: [770],
  798: [1391],
  805: [119],
  916: [328],
  1004: [732],
};

/**
 * Direct parents: the table above for the CWEs it lists, MITRE's view 1000 (the generated
 * packages/rules/cwe-parents.json the product uses for `cwe_ids`) for any other, so that a CWE the
 * benchmarks newly label (CWE-297, CWE-1240, …) relates to its family as MITRE says.
 */
const numbers = (ids: readonly string[]): number[] => ids.map((id) => Number(id.replace(/^CWE-/, "")));
const parentsOf = (cwe: number): readonly number[] => CHILD_OF[cwe] ?? numbers(cweParents(`CWE-${cwe}`));

const CHILDREN: Map<number, number[]> = (() => {
  const map = new Map<number, number[]>();
  for (const [child, parents] of Object.entries(CHILD_OF))
    for (const parent of parents) map.set(parent, [...(map.get(parent) ?? []), Number(child)]);
  return map;
})();

/** Direct children: the table's, and MITRE's for children the table does not list. */
const childrenOf = (cwe: number): number[] => [
  ...(CHILDREN.get(cwe) ?? []),
  ...numbers(cweChildren(`CWE-${cwe}`)).filter((c) => !(c in CHILD_OF)),
];

/** The CWEs whose findings count for a test case labeled `cwe`: itself, direct parents, direct children. */
export function acceptedCwes(cwe: number): number[] {
  return [...new Set([cwe, ...parentsOf(cwe), ...childrenOf(cwe)])].sort((a, b) => a - b);
}

/**
 * The CWEs a rule must report for a labeled CWE to be in scope: the CWE itself or a direct
 * parent (a CWE-22 rule covers CWE-23 and CWE-36). A rule for a child only covers part of a
 * parent (a CWE-614 cookie rule does not make CWE-319 cleartext transmission a target).
 */
export function scopeCwes(cwe: number): number[] {
  return [cwe, ...parentsOf(cwe)];
}

/** "CWE-79" / "79" / 79 → 79; anything else → null. */
export function cweNumber(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isInteger(value) ? value : null;
  const m = /^(?:CWE-)?(\d+)$/i.exec(value.trim());
  return m ? Number(m[1]) : null;
}

/**
 * Official MITRE names for labeled CWEs that the project's taxonomy (packages/rules/src/taxonomy.ts)
 * does not list. Used for report rows only; rule metadata must use the taxonomy.
 */
const EXTRA_NAMES: Readonly<Record<number, string>> = {
  81: "Improper Neutralization of Script in an Error Message Web Page",
  83: "Improper Neutralization of Script in Attributes in a Web Page",
  523: "Unprotected Transport of Credentials",
  549: "Missing Password Field Masking",
  606: "Unchecked Input for Loop Condition",
  690: "Unchecked Return Value to NULL Pointer Dereference",
  760: "Use of a One-Way Hash with a Predictable Salt",
  761: "Free of Pointer not at Start of Buffer",
  789: "Memory Allocation with Excessive Size Value",
  336: "Same Seed in Pseudo-Random Number Generator (PRNG)",
  329: "Generation of Predictable IV with CBC Mode",
  325: "Missing Cryptographic Step",
  526: "Cleartext Storage of Sensitive Information in an Environment Variable",
  598: "Use of GET Request Method With Sensitive Query Strings",
  566: "Authorization Bypass Through User-Controlled SQL Primary Key",
  253: "Incorrect Check of Function Return Value",
  362: "Concurrent Execution using Shared Resource with Improper Synchronization ('Race Condition')",
  628: "Function Call with Incorrectly Specified Arguments",
  674: "Uncontrolled Recursion",
  822: "Untrusted Pointer Dereference",
  835: "Loop with Unreachable Exit Condition ('Infinite Loop')",
};

/**
 * The CWE's name: the taxonomy's official name, else the table above, else `fallback` (e.g.
 * the Juliet folder label) marked as such.
 */
export function cweName(cwe: number, fallback?: string): string {
  return CWE_NAMES[`CWE-${cwe}`] ?? EXTRA_NAMES[cwe] ?? (fallback ? `${fallback} (Juliet label)` : `CWE-${cwe}`);
}

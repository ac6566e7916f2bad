/**
 * A weakness at both levels: the specific CWE a finding names and its direct parents in MITRE's
 * Research Concepts view (CWE-1000), e.g. CWE-95 with CWE-94, CWE-338 with CWE-330. The API
 * answers `cwe_ids` from it, SARIF lists both as taxa, and a filter on a parent finds its
 * children. The table is generated from cwe-sdk (scripts/cwe-parents.ts).
 */
import { readFileSync } from "node:fs";

interface ParentsFile {
  parents: Record<string, number[]>;
}

const table = (JSON.parse(readFileSync(new URL("../cwe-parents.json", import.meta.url), "utf8")) as ParentsFile).parents;

const CHILDREN = new Map<string, string[]>();
for (const [child, parents] of Object.entries(table))
  for (const p of parents) {
    const key = `CWE-${p}`;
    CHILDREN.set(key, [...(CHILDREN.get(key) ?? []), `CWE-${child}`]);
  }

const number = (cwe: string): string | null => /^CWE-(\d+)$/i.exec(cwe.trim())?.[1] ?? null;

/** The direct parents of a weakness ("CWE-95" → ["CWE-94"]); none for an unknown id. */
export function cweParents(cwe: string): string[] {
  const n = number(cwe);
  return n === null ? [] : (table[n] ?? []).map((p) => `CWE-${p}`);
}

/** The direct children of a weakness ("CWE-94" → ["CWE-95", …]). */
export function cweChildren(cwe: string): string[] {
  const n = number(cwe);
  return n === null ? [] : [...(CHILDREN.get(`CWE-${n}`) ?? [])];
}

/** The weakness first, then its direct parents; empty without a CWE. */
export function cweLevels(cwe: string | null | undefined): string[] {
  if (!cwe) return [];
  const n = number(cwe);
  return n === null ? [cwe] : [`CWE-${n}`, ...cweParents(cwe)];
}

/** The weaknesses a filter on `cwes` matches: each one and its direct children, once each. */
export function cweWithChildren(cwes: readonly string[]): string[] {
  const out = new Set<string>();
  for (const c of cwes) {
    const n = number(c);
    const id = n === null ? c : `CWE-${n}`;
    out.add(id);
    for (const child of CHILDREN.get(id) ?? []) out.add(child);
  }
  return [...out];
}

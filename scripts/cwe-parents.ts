/**
 * Writes packages/rules/cwe-parents.json: every weakness in MITRE's CWE catalogue (as cwe-sdk
 * ships it) with its direct parents ("ChildOf") in the Research Concepts view (CWE-1000). The
 * API and SARIF name a finding's weakness at both levels from it (`cwe_ids`).
 *   node --import tsx scripts/cwe-parents.ts
 */
import fs from "node:fs";
import { createRequire } from "node:module";

type Raw = Record<string, unknown>;
const asArray = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const attr = (v: unknown, name: string): string | undefined =>
  ((v as Raw | undefined)?.attr as Raw | undefined)?.[`@_${name}`] as string | undefined;

const file = createRequire(import.meta.url).resolve("cwe-sdk/raw/cwe-dictionary.json");
const dictionary = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, Raw>;
const parents: Record<string, number[]> = {};
for (const [key, raw] of Object.entries(dictionary).sort(([a], [b]) => Number(a) - Number(b))) {
  const ids = asArray((raw.Related_Weaknesses as Raw | undefined)?.Related_Weakness)
    .filter((r) => attr(r, "Nature") === "ChildOf" && attr(r, "View_ID") === "1000")
    .map((r) => Number(attr(r, "CWE_ID")));
  if (ids.length > 0) parents[attr(raw, "ID") ?? key] = [...new Set(ids)];
}
const out = new URL("../packages/rules/cwe-parents.json", import.meta.url);
fs.writeFileSync(out, JSON.stringify({ source: "cwe-sdk 1.1.19 (CWE 4.15), ChildOf in view 1000", parents }, null, 2) + "\n");
process.stdout.write(`wrote packages/rules/cwe-parents.json (${Object.keys(parents).length} weaknesses)\n`);

/**
 * MITRE's CWE catalogue, as shipped in cwe-sdk, reduced to what the assistant
 * shows. The dictionary is 8 MB of JSON: it is read on first use, never at import, and the
 * server can pay that cost at start-up with `warmCweCatalog()`. Entries and the search index
 * are built once and kept; the raw JSON is dropped.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { expandQuery } from "./acronyms";
import { createIndex, type SearchIndex } from "./retrieval";

export interface CweConsequence {
  scopes: string[];
  impacts: string[];
  note?: string;
}

export interface CweMitigation {
  phases: string[];
  strategy?: string;
  text: string;
}

export interface CweEntry {
  /** "CWE-89" */
  id: string;
  name: string;
  description: string;
  extendedDescription?: string;
  /** MITRE's likelihood of exploit: "High", "Medium", "Low". */
  likelihood?: string;
  consequences: CweConsequence[];
  mitigations: CweMitigation[];
  alternateTerms: string[];
  /** ChildOf in the Research Concepts view (1000), as "CWE-<n>". */
  parents: string[];
  /** Named languages and language classes ("Not Language-Specific"). */
  languages: string[];
  /** "Stable", "Draft", "Incomplete", "Deprecated", … */
  status: string;
  /** "Pillar", "Class", "Base", "Variant", "Compound". */
  abstraction: string;
  /** How many real-world vulnerabilities (CVEs) MITRE cites as examples. */
  observedExamples: number;
}

/** The CWE release cwe-sdk 1.1.19 ships (its cwe-archive.xml says so; a test checks). */
export const CWE_VERSION = "4.15";

type Raw = Record<string, unknown>;

const asArray = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const attr = (v: unknown, name: string): string | undefined => {
  const a = (v as Raw | undefined)?.attr as Raw | undefined;
  const value = a?.[`@_${name}`];
  return typeof value === "string" ? value : undefined;
};

/**
 * Plain text from the catalogue's XHTML-as-JSON (strings, arrays, `xhtml:p`, `xhtml:li`,
 * `#text`, …). Attributes are markup, not text. Mixed content has lost its order in the
 * conversion to JSON, so inline elements may come out before the text around them.
 */
export function flattenText(node: unknown): string {
  const out: string[] = [];
  const walk = (n: unknown): void => {
    if (n === null || n === undefined) return;
    if (typeof n === "string" || typeof n === "number" || typeof n === "boolean") out.push(String(n));
    else if (Array.isArray(n)) n.forEach(walk);
    else if (typeof n === "object") for (const [key, value] of Object.entries(n)) if (key !== "attr" && !key.startsWith("@_")) walk(value);
  };
  walk(node);
  // The catalogue's reference list is not carried, so its "[REF-123]" markers would dangle.
  return out
    .join(" ")
    .replace(/\s*\[REF-\d+\]/g, "")
    .replace(/\s+/g, " ")
    .replace(/\s+([.,;:])/g, "$1")
    .trim();
}

const texts = (v: unknown): string[] =>
  asArray(v)
    .map(flattenText)
    .filter((s) => s !== "");

function toEntry(key: string, raw: Raw): CweEntry {
  const consequences = asArray((raw.Common_Consequences as Raw | undefined)?.Consequence).map((c) => {
    const note = flattenText((c as Raw).Note);
    return { scopes: texts((c as Raw).Scope), impacts: texts((c as Raw).Impact), ...(note ? { note } : {}) };
  });
  const mitigations = asArray((raw.Potential_Mitigations as Raw | undefined)?.Mitigation)
    .map((m) => {
      const strategy = flattenText((m as Raw).Strategy);
      return { phases: texts((m as Raw).Phase), ...(strategy ? { strategy } : {}), text: flattenText((m as Raw).Description) };
    })
    .filter((m) => m.text !== "");
  const parents = asArray((raw.Related_Weaknesses as Raw | undefined)?.Related_Weakness)
    .filter((r) => attr(r, "Nature") === "ChildOf" && attr(r, "View_ID") === "1000")
    .map((r) => `CWE-${attr(r, "CWE_ID")}`);
  const languages = asArray((raw.Applicable_Platforms as Raw | undefined)?.Language)
    .map((l) => attr(l, "Name") ?? attr(l, "Class"))
    .filter((l): l is string => l !== undefined);
  const alternateTerms = asArray((raw.Alternate_Terms as Raw | undefined)?.Alternate_Term)
    .map((t) => flattenText((t as Raw).Term))
    .filter((t) => t !== "");
  const extendedDescription = flattenText(raw.Extended_Description);
  const likelihood = flattenText(raw.Likelihood_Of_Exploit);
  return {
    id: `CWE-${attr(raw, "ID") ?? key}`,
    name: attr(raw, "Name") ?? "",
    description: flattenText(raw.Description),
    ...(extendedDescription ? { extendedDescription } : {}),
    ...(likelihood ? { likelihood } : {}),
    consequences,
    mitigations,
    alternateTerms: [...new Set(alternateTerms)],
    parents: [...new Set(parents)],
    languages: [...new Set(languages)],
    status: attr(raw, "Status") ?? "",
    abstraction: attr(raw, "Abstraction") ?? "",
    observedExamples: asArray((raw.Observed_Examples as Raw | undefined)?.Observed_Example).length,
  };
}

/** MITRE's 2024 CWE Top 25 Most Dangerous Software Weaknesses. */
const TOP_25 = new Set(
  [79, 787, 89, 352, 22, 125, 78, 416, 862, 434, 94, 20, 77, 287, 269, 502, 200, 863, 918, 119, 476, 798, 190, 400, 306].map(
    (n) => `CWE-${n}`,
  ),
);

/**
 * "Path traversal" names a dozen entries; the one people mean is the common, general one.
 * MITRE's Top 25 and its count of cited CVEs say which that is.
 */
function prior(e: CweEntry): number {
  return 1 + (TOP_25.has(e.id) ? 0.3 : 0) + 0.08 * Math.log1p(e.observedExamples);
}

let entries: Promise<Map<string, CweEntry>> | null = null;
let index: Promise<SearchIndex<CweEntry>> | null = null;

async function loadEntries(): Promise<Map<string, CweEntry>> {
  const file = createRequire(import.meta.url).resolve("cwe-sdk/raw/cwe-dictionary.json");
  const dictionary = JSON.parse(await readFile(file, "utf8")) as Record<string, Raw>;
  const byId = new Map<string, CweEntry>();
  for (const [key, raw] of Object.entries(dictionary)) {
    const entry = toEntry(key, raw);
    byId.set(entry.id, entry);
  }
  return byId;
}

// A failed load is not cached: the next question tries again rather than failing forever.
function catalog(): Promise<Map<string, CweEntry>> {
  return (entries ??= loadEntries().catch((err: unknown) => {
    entries = null;
    throw err;
  }));
}

function searchIndex(): Promise<SearchIndex<CweEntry>> {
  return (index ??= catalog()
    .then((byId) =>
      createIndex(
        // Deprecated entries only point elsewhere; `getCwe` still finds them by id.
        [...byId.values()].filter((e) => e.status !== "Deprecated"),
        {
          specs: {
            name: { weight: 3, heading: true, b: 0.3 },
            terms: { weight: 2.5, heading: true, b: 0.3 },
            description: { weight: 1 },
            extended: { weight: 0.3 },
          },
          fields: (e) => ({
            name: e.name,
            terms: e.alternateTerms.join(" "),
            description: e.description,
            extended: e.extendedDescription ?? "",
          }),
          prior,
        },
      ),
    )
    .catch((err: unknown) => {
      index = null;
      throw err;
    }));
}

/** Loads the catalogue and builds its index now, so the first question does not wait. */
export async function warmCweCatalog(): Promise<void> {
  await searchIndex();
}

/** "CWE-89", "cwe 89", "89" or 89 as "CWE-89"; null when it is not a CWE id. */
export function normalizeCweId(id: string | number): string | null {
  const m = /^\s*(?:cwe[\s_:-]*)?0*(\d{1,7})\s*$/i.exec(String(id));
  return m ? `CWE-${m[1]}` : null;
}

export async function getCwe(id: string | number): Promise<CweEntry | null> {
  const normalized = normalizeCweId(id);
  if (normalized === null) return null;
  return (await catalog()).get(normalized) ?? null;
}

/** A search result; the coverages are those of `Hit` (retrieval.ts). */
export interface CweSearchResult {
  entry: CweEntry;
  score: number;
  coverage: number;
  headingCoverage: number;
}

/**
 * Entries whose name, alternate terms or description match the query, best first. Shorthand
 * ("XSS", "IDOR") is expanded, and the entries it names are put first.
 */
export async function searchCwe(query: string, limit = 5): Promise<CweSearchResult[]> {
  const idx = await searchIndex();
  const { expansions, cwes } = expandQuery(query);
  const hits = idx.search(query, { limit: Math.max(limit, 10) + cwes.length, expansions });
  if (cwes.length > 0) {
    const byId = await catalog();
    const top = hits[0]?.score ?? 1;
    for (const [rank, id] of cwes.entries()) {
      const entry = byId.get(id);
      if (!entry || entry.status === "Deprecated") continue;
      const found = hits.find((h) => h.item === entry);
      // Above any plain keyword match, in the order the acronym table gives.
      const boosted = top * 2 - rank * 0.01 * top;
      // The shorthand names the entry outright, so it counts as fully matched.
      if (found) Object.assign(found, { score: Math.max(found.score, boosted), coverage: 1, headingCoverage: 1 });
      else hits.push({ item: entry, score: boosted, coverage: 1, headingCoverage: 1 });
    }
    hits.sort((a, b) => b.score - a.score);
  }
  return hits.slice(0, limit).map((h) => ({ entry: h.item, score: h.score, coverage: h.coverage, headingCoverage: h.headingCoverage }));
}

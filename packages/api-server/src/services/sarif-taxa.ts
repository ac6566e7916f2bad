import { cweLevels, cweName } from "@ax/rules";

/**
 * The CWE taxonomy of a SARIF run: every weakness its rules name, at both levels (the rule's
 * own CWE and that CWE's direct parents), so that a consumer filtering on either finds the
 * result. Rules point at their taxa through `relationships`; tags carry the same ids for
 * consumers (GitHub code scanning) that read only tags.
 */
export const CWE_COMPONENT = { name: "CWE", index: 0 } as const;

export interface CweTaxonomy {
  /** The taxon index of a CWE id ("CWE-95") in `taxonomy.taxa`. */
  indexOf(cwe: string): number;
  taxonomy: ReturnType<typeof taxonomyOf>;
}

const numberOf = (cwe: string) => cwe.replace(/^CWE-/i, "");

function taxonomyOf(ids: readonly string[]) {
  return {
    name: "CWE",
    version: "4.15",
    organization: "MITRE",
    informationUri: "https://cwe.mitre.org/",
    shortDescription: { text: "The MITRE Common Weakness Enumeration" },
    taxa: ids.map((id) => {
      const name = cweName(id);
      return {
        id: numberOf(id),
        ...(name ? { name, shortDescription: { text: name } } : {}),
        helpUri: `https://cwe.mitre.org/data/definitions/${numberOf(id)}.html`,
      };
    }),
  };
}

/** The taxonomy over the CWEs of `cwes` (each with its parents), in first-seen order. */
export function cweTaxonomy(cwes: Iterable<string | null>): CweTaxonomy {
  const ids: string[] = [];
  for (const c of cwes) for (const id of cweLevels(c)) if (!ids.includes(id)) ids.push(id);
  return { indexOf: (cwe) => ids.indexOf(cwe), taxonomy: taxonomyOf(ids) };
}

/** A rule's links to its weakness and the weakness's parents. */
export function cweRelationships(cwe: string | null, taxa: CweTaxonomy) {
  return cweLevels(cwe).map((id, i) => ({
    target: { id: numberOf(id), index: taxa.indexOf(id), toolComponent: CWE_COMPONENT },
    // The finding's own CWE is the rule's weakness; a parent is the broader class it belongs to.
    kinds: [i === 0 ? "equal" : "subset"],
  }));
}

/** GitHub-style tags for every level: external/cwe/cwe-95, external/cwe/cwe-94. */
export const cweTags = (cwe: string | null): string[] => cweLevels(cwe).map((id) => `external/cwe/${id.toLowerCase()}`);

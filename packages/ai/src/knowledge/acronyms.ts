/**
 * Shorthand people type for weaknesses, with what it stands for and the CWE entries it
 * usually means. Keyword retrieval cannot know that "IDOR" is CWE-639 when MITRE's text
 * spells it differently, so these few facts are written down here.
 */
import type { Expansion } from "./retrieval";

export interface Acronym {
  /** What it stands for, in words the catalogue and the topics use; each is an alternative. */
  means: string[];
  /** The CWE entries the term names, most usual first. */
  cwes: string[];
}

export const ACRONYMS: Readonly<Record<string, Acronym>> = {
  sqli: { means: ["sql injection"], cwes: ["CWE-89"] },
  xss: { means: ["cross-site scripting"], cwes: ["CWE-79"] },
  csrf: { means: ["cross-site request forgery"], cwes: ["CWE-352"] },
  xsrf: { means: ["cross-site request forgery"], cwes: ["CWE-352"] },
  ssrf: { means: ["server-side request forgery"], cwes: ["CWE-918"] },
  xxe: { means: ["xml external entity"], cwes: ["CWE-611"] },
  rce: { means: ["remote code execution", "code injection"], cwes: ["CWE-94", "CWE-78"] },
  idor: { means: ["insecure direct object reference", "authorization bypass user-controlled key"], cwes: ["CWE-639"] },
  toctou: { means: ["time-of-check time-of-use race condition"], cwes: ["CWE-367"] },
  redos: { means: ["regular expression denial of service", "inefficient regular expression"], cwes: ["CWE-1333"] },
  ssti: { means: ["server-side template injection", "template engine"], cwes: ["CWE-1336"] },
  lfi: { means: ["local file inclusion", "path traversal"], cwes: ["CWE-98", "CWE-22"] },
  rfi: { means: ["remote file inclusion"], cwes: ["CWE-98"] },
  uaf: { means: ["use after free"], cwes: ["CWE-416"] },
  npd: { means: ["null pointer dereference"], cwes: ["CWE-476"] },
  bof: { means: ["buffer overflow"], cwes: ["CWE-120", "CWE-787"] },
  dos: { means: ["denial of service", "resource consumption"], cwes: ["CWE-400"] },
  clickjacking: { means: ["rendered ui layers frames"], cwes: ["CWE-1021"] },
};

/** Names that are not acronyms but still differ from MITRE's wording, or name many entries. */
const PHRASES: readonly { pattern: RegExp; acronym: Acronym }[] = [
  { pattern: /\bopen redirects?\b/i, acronym: { means: ["url redirection untrusted site"], cwes: ["CWE-601"] } },
  { pattern: /\bprototype pollution\b/i, acronym: { means: ["object prototype attributes"], cwes: ["CWE-1321"] } },
  { pattern: /\bmass assignment\b/i, acronym: { means: ["dynamically-determined object attributes"], cwes: ["CWE-915"] } },
  { pattern: /\bzip ?slip\b/i, acronym: { means: ["relative path traversal archive"], cwes: ["CWE-22", "CWE-23"] } },
  { pattern: /\b(?:insecure|unsafe) deserializ/i, acronym: { means: ["deserialization untrusted data"], cwes: ["CWE-502"] } },
  // A dozen entries say "race condition"; the general one is what people mean.
  { pattern: /\brace conditions?\b/i, acronym: { means: [], cwes: ["CWE-362"] } },
];

// Own keys only: "constructor" is a word people type, and not an acronym.
const lookup = (word: string): Acronym | undefined => (Object.hasOwn(ACRONYMS, word) ? ACRONYMS[word] : undefined);

/** The shorthand in a query, spelled out, and the CWE entries it names. */
export function expandQuery(query: string): { expansions: Expansion[]; cwes: string[] } {
  const expansions: Expansion[] = [];
  const cwes: string[] = [];
  const add = (words: string, a: Acronym) => {
    for (const text of a.means) expansions.push({ words, text });
    for (const id of a.cwes) if (!cwes.includes(id)) cwes.push(id);
  };
  for (const word of query.toLowerCase().match(/[a-z]+/g) ?? []) {
    const a = lookup(word) ?? (word.endsWith("s") ? lookup(word.slice(0, -1)) : undefined);
    if (a) add(word, a);
  }
  for (const { pattern, acronym } of PHRASES) {
    const m = pattern.exec(query);
    if (m) add(m[0], acronym);
  }
  return { expansions, cwes };
}

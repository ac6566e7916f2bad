/**
 * Which CWEs some analyzer of ours can report in each peer-label language, for the peer
 * suite's "in scope" recall: the rule pack's rules for the language (ast-grep), the taint
 * analysis's sinks, bandit's checks (Python, through the scanner's CWE normalization), the
 * secrets detector (CWE-798 in any file), and every CWE the scan actually reported in a file
 * of that language (a rule that fired can report it).
 */
import { loadRules } from "@ax/rules";
import { SPECS } from "@ax/dataflow";
import { normalizeCwe } from "@ax/scanner";
import { cweNumber } from "./cwe";
import { peerLanguage, type PeerFinding } from "./peer";

/** Rule-pack language (as written in the rules) → peer-label languages it covers. */
const RULE_LANGUAGES: Readonly<Record<string, readonly string[]>> = {
  Java: ["Java"],
  Kotlin: ["Kotlin"],
  Python: ["Python"],
  Tsx: ["JavaScript", "TypeScript"],
  JavaScript: ["JavaScript"],
  TypeScript: ["TypeScript"],
};

/** Dataflow spec language → peer-label languages. */
const SPEC_LANGUAGES: Readonly<Record<string, readonly string[]>> = {
  java: ["Java"],
  python: ["Python"],
  javascript: ["JavaScript", "TypeScript"],
};

/** bandit check ids are B101…B999; the scanner's normalization gives each one's CWE. */
function banditCwes(): number[] {
  const out: number[] = [];
  for (let n = 100; n < 1000; n++) {
    const cwe = cweNumber(normalizeCwe("bandit", `B${n}`, null));
    if (cwe !== null) out.push(cwe);
  }
  return out;
}

function add(map: Map<string, Set<number>>, language: string, cwes: Iterable<number | null>): void {
  const set = map.get(language) ?? new Set<number>();
  for (const c of cwes) if (c !== null) set.add(c);
  map.set(language, set);
}

/** The static catalog: language → CWEs (without what a scan reported). */
export function catalogCwes(): Map<string, Set<number>> {
  const map = new Map<string, Set<number>>();
  for (const r of loadRules()) for (const lang of RULE_LANGUAGES[r.language] ?? []) add(map, lang, [cweNumber(r.cwe)]);
  for (const [name, spec] of SPECS) {
    const cwes = [...spec.sinks.map((s) => cweNumber(s.cwe)), ...(spec.fieldSinks ?? []).map((s) => cweNumber(s.cwe))];
    for (const lang of SPEC_LANGUAGES[name] ?? []) add(map, lang, cwes);
  }
  add(map, "Python", banditCwes());
  for (const lang of ["Java", "Kotlin", "JSP", "Python", "JavaScript", "TypeScript", "Other"]) add(map, lang, [798]);
  return map;
}

/** The catalog plus the CWEs of `findings`, by the language of their file. */
export function scopeCwes(findings: readonly PeerFinding[]): Map<string, Set<number>> {
  const map = catalogCwes();
  for (const f of findings) add(map, peerLanguage(f.file), [cweNumber(f.cwe_id)]);
  return map;
}

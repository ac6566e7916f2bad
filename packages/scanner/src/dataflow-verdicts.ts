/**
 * Joins the taint analysis's findings with the pattern rules' (postprocess.ts). A pattern
 * finding at a sink the analysis reached is confirmed (HIGH confidence, with the trace). One
 * of a kind the analysis covers, at a sink it judged clean — constant, sanitized or untainted
 * arguments, with every caller in the repository seen — is refuted: it leaves the findings
 * and is kept apart with the reason. One it could not judge (it did not model that call, or
 * the call depends on an entry point's parameters or on code it could not read) is
 * unconfirmed: LOW confidence, kept. A taint finding no pattern reported stands on its own.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { extname } from "node:path";
import { SPECS, type SinkSite } from "@ax/dataflow";
import { languageOfExtension } from "./languages";
import { DATAFLOW } from "./analyzers/dataflow";

/** CWEs that name the same weakness at different depths (MITRE's parent/child pairs we use). */
const FAMILIES: readonly (readonly string[])[] = [
  ["CWE-79", "CWE-80", "CWE-81", "CWE-83", "CWE-87"],
  ["CWE-22", "CWE-23", "CWE-36", "CWE-73"],
  ["CWE-77", "CWE-78", "CWE-88"],
  ["CWE-94", "CWE-95", "CWE-1336"],
  ["CWE-89", "CWE-564"],
  ["CWE-113", "CWE-93"],
  ["CWE-643", "CWE-91"],
  ["CWE-943", "CWE-89"],
];

export function familyOf(cwe: string): Set<string> {
  const out = new Set([cwe]);
  for (const f of FAMILIES) if (f.includes(cwe)) for (const c of f) out.add(c);
  return out;
}

/** The CWEs (with their families) the taint analysis has sinks for in a language. */
export function covered(language: string): Set<string> {
  const spec = SPECS.get(language === "typescript" ? "javascript" : language);
  const out = new Set<string>();
  for (const s of [...(spec?.sinks ?? []), ...(spec?.fieldSinks ?? [])]) for (const c of familyOf(s.cwe)) out.add(c);
  return out;
}

export const CLEAN_WORDS: Record<string, string> = {
  constant: "its dangerous arguments are constants",
  sanitized: "what reaches it passed a sanitizer for this weakness",
  untainted: "no untrusted source flows into its dangerous arguments",
  callers: "every call to the function holding it passes nothing untrusted",
  configured: "the parser, loader or template it uses is configured safely",
};

export const OPEN_WORDS: Record<string, string> = {
  "entry-parameter": "it depends on parameters of a function nothing in the repository calls, whose callers the analysis cannot see",
  "unreadable-code": "its arguments hold code the analysis could not read",
};

function overlaps(a: { start_line: number; end_line: number }, b: { start_line: number; end_line: number }): boolean {
  return a.start_line <= b.end_line && a.end_line >= b.start_line;
}

/** The verdict on a pattern finding no trace confirmed: refuted, unconfirmed, or none (not covered). */
function judge(f: NormalizedFinding, sites: readonly SinkSite[], cwes: Set<string>): NormalizedFinding["dataflow"] | null {
  if (!f.cwe_id || !cwes.has(f.cwe_id)) return null;
  const family = familyOf(f.cwe_id);
  const here = sites.filter((s) => family.has(s.cwe_id) && overlaps(s, f));
  if (!here.length) return { status: "unconfirmed", trace: [], reason: "The taint analysis did not judge a sink call at this place." };
  const open = here.filter((s) => s.status === "open");
  if (open.length) {
    const why = [...new Set(open.flatMap((s) => s.reasons))].map((r) => OPEN_WORDS[r] ?? r);
    return { status: "unconfirmed", trace: [], reason: `No untrusted source was traced here, but ${why.join("; ")}.` };
  }
  const why = [...new Set(here.flatMap((s) => s.reasons))].map((r) => CLEAN_WORDS[r] ?? r);
  const sinks = [...new Set(here.map((s) => s.rule_id))].join(", ");
  return { status: "refuted", trace: [], reason: `The taint analysis judged this sink (${sinks}): ${why.join("; ")}.` };
}

/** The first trace of each entry point, in the analysis's order. */
function byEntry(traces: readonly NormalizedFinding[]): NormalizedFinding[] {
  const seen = new Map<string, NormalizedFinding>();
  for (const t of traces) {
    const entry = t.dataflow?.entry ?? "";
    if (!seen.has(entry)) seen.set(entry, t);
  }
  return [...seen.values()];
}

/** Items by file, in their order (appended in place: copying each file's list per item was quadratic). */
function groupByFile<T extends { file: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.file);
    if (list) list.push(item);
    else out.set(item.file, [item]);
  }
  return out;
}

/**
 * `dataflow`: the taint analysis completed on this scan, with the sink places it judged; null
 * when it was skipped or failed (then it confirms and refutes nothing, and its own findings
 * are left out).
 */
export function applyDataflowVerdicts(
  findings: NormalizedFinding[],
  dataflow: { sites: readonly SinkSite[] } | null,
): { findings: NormalizedFinding[]; refuted: NormalizedFinding[] } {
  if (!dataflow) return { findings: findings.filter((f) => f.analyzer !== DATAFLOW), refuted: [] };
  // Taint traces; the analysis's other findings (weak algorithms it resolved) stand as they are.
  const taint = findings.filter((f) => f.analyzer === DATAFLOW && f.dataflow);
  const others = findings.filter((f) => f.analyzer !== DATAFLOW);
  const byFile = groupByFile(taint);
  const sitesByFile = groupByFile(dataflow.sites);
  const used = new Set<NormalizedFinding>();
  const coverage = new Map<string, Set<string>>();
  const out: NormalizedFinding[] = findings.filter((f) => f.analyzer === DATAFLOW && !f.dataflow);
  const refuted: NormalizedFinding[] = [];
  for (const f of others) {
    const language = languageOfExtension(extname(f.file).toLowerCase());
    if (!f.cwe_id || !language || !SPECS.has(language === "typescript" ? "javascript" : language)) {
      out.push(f);
      continue;
    }
    const family = familyOf(f.cwe_id);
    const match = (byFile.get(f.file) ?? []).filter((t) => t.cwe_id && family.has(t.cwe_id) && overlaps(t, f));
    if (match.length) {
      for (const m of match) used.add(m);
      // One finding per entry point the sink is reached from, each with its own trace.
      for (const lead of byEntry(match))
        out.push({
          ...f,
          confidence: "HIGH",
          sources: [
            ...(f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]),
            ...match.filter((m) => m.dataflow?.entry === lead.dataflow?.entry).map((m) => ({ analyzer: m.analyzer, rule_id: m.rule_id })),
          ],
          dataflow: { ...lead.dataflow!, confirms: [{ analyzer: f.analyzer, rule_id: f.rule_id }] },
        });
      continue;
    }
    let cwes = coverage.get(language);
    if (!cwes) coverage.set(language, (cwes = covered(language)));
    const verdict = judge(f, sitesByFile.get(f.file) ?? [], cwes);
    if (!verdict) out.push(f);
    else if (verdict.status === "refuted") refuted.push({ ...f, dataflow: verdict });
    else out.push({ ...f, confidence: "LOW", dataflow: verdict });
  }
  for (const t of taint) if (!used.has(t)) out.push({ ...t, dataflow: { ...t.dataflow!, confirms: [] } });
  return { findings: out, refuted };
}

/**
 * Joins the taint analysis's findings with the pattern rules' (postprocess.ts): a pattern
 * finding at a sink the analysis reached is confirmed (HIGH confidence, with the trace); one
 * of a kind the analysis covers, in a file it read, with no tainted path is unconfirmed
 * (LOW confidence, kept and labelled — not dropped). A taint finding no pattern reported
 * stands on its own.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { extname } from "node:path";
import { SPECS } from "@ax/dataflow";
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

function covered(language: string): Set<string> {
  const spec = SPECS.get(language === "typescript" ? "javascript" : language);
  const out = new Set<string>();
  for (const s of [...(spec?.sinks ?? []), ...(spec?.fieldSinks ?? [])]) for (const c of familyOf(s.cwe)) out.add(c);
  return out;
}

/**
 * `analyzed`: whether the taint analysis completed on this scan (a skipped or failed run
 * confirms and refutes nothing).
 */
export function applyDataflowVerdicts(findings: NormalizedFinding[], analyzed: boolean): NormalizedFinding[] {
  if (!analyzed) return findings.filter((f) => f.analyzer !== DATAFLOW);
  const taint = findings.filter((f) => f.analyzer === DATAFLOW);
  const others = findings.filter((f) => f.analyzer !== DATAFLOW);
  const byFile = new Map<string, NormalizedFinding[]>();
  for (const t of taint) byFile.set(t.file, [...(byFile.get(t.file) ?? []), t]);
  const used = new Set<NormalizedFinding>();
  const coverage = new Map<string, Set<string>>();
  const out: NormalizedFinding[] = [];
  for (const f of others) {
    const language = languageOfExtension(extname(f.file).toLowerCase());
    if (!f.cwe_id || !language || !SPECS.has(language === "typescript" ? "javascript" : language)) {
      out.push(f);
      continue;
    }
    const family = familyOf(f.cwe_id);
    const match = (byFile.get(f.file) ?? []).filter(
      (t) => t.cwe_id && family.has(t.cwe_id) && t.start_line <= f.end_line && t.end_line >= f.start_line,
    );
    if (match.length) {
      const lead = match[0]!;
      for (const m of match) used.add(m);
      out.push({
        ...f,
        confidence: "HIGH",
        sources: [
          ...(f.sources ?? [{ analyzer: f.analyzer, rule_id: f.rule_id }]),
          ...match.map((m) => ({ analyzer: m.analyzer, rule_id: m.rule_id })),
        ],
        dataflow: { ...lead.dataflow!, confirms: [{ analyzer: f.analyzer, rule_id: f.rule_id }] },
      });
      continue;
    }
    let cwes = coverage.get(language);
    if (!cwes) coverage.set(language, (cwes = covered(language)));
    if (cwes.has(f.cwe_id)) out.push({ ...f, confidence: "LOW", dataflow: { status: "unconfirmed", trace: [] } });
    else out.push(f);
  }
  for (const t of taint) if (!used.has(t)) out.push({ ...t, dataflow: { ...t.dataflow!, confirms: [] } });
  return out;
}

/**
 * Fingerprints identify "the same finding" across scans so triage carries over (DESIGN §6).
 * They hash what a reviewer would call the finding — rule, file, the matched code without
 * whitespace, and which occurrence of that code in the file it is — but not the
 * line number, so adding or moving unrelated lines leaves them unchanged.
 */
import { createHash } from "node:crypto";
import type { NormalizedFinding } from "@ax/contracts";

/**
 * The matched code of a finding. Adapters put the exact matched text in `raw.text` when the
 * tool reports it (ast-grep does); otherwise the snippet (whole matched lines) is used.
 */
export function matchedCode(finding: Pick<NormalizedFinding, "raw" | "snippet">): string {
  const raw = finding.raw;
  if (raw && typeof raw === "object" && "text" in raw && typeof raw.text === "string") return raw.text;
  return finding.snippet;
}

/**
 * Whitespace is removed entirely, not just collapsed to one space: a formatter that reflows
 * `eval(b)` into `eval(\n  b\n)` must not make a triaged finding look new. Tokens that only
 * whitespace separated (`return x` / `returnx`) can't both be the same match of one rule.
 */
export function normalizeCode(code: string): string {
  return code.replace(/\s+/g, "");
}

/**
 * Returns the findings (same order) with `fingerprint` set. The occurrence index counts earlier
 * findings with the same rule, file and code in line order, so two identical calls in one
 * file get different fingerprints, and the fingerprints are unique as long as no two findings
 * share rule, file and position (runAnalyzers removes such duplicates first).
 */
export function fingerprintFindings<T extends NormalizedFinding>(findings: readonly T[], codeOf = matchedCode): T[] {
  const order = findings
    .map((finding, index) => ({ finding, index }))
    .sort((a, b) => a.finding.start_line - b.finding.start_line || a.finding.start_column - b.finding.start_column || a.index - b.index);
  const seen = new Map<string, number>();
  const prints = new Array<string>(findings.length);
  const shared = placesWithRoutes(findings);
  for (const { finding, index } of order) {
    // A sink reached from two entry points is a finding per entry: the entry tells them apart
    // (a sink with one route keeps the fingerprint it always had).
    const entry = finding.dataflow?.entry;
    const route = entry && shared.has(placeOf(finding)) ? [`entry:${entry}`] : [];
    const key = [finding.rule_id, finding.file, normalizeCode(codeOf(finding)), ...route].join("\0");
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    prints[index] = createHash("sha256").update(`${key}\0${occurrence}`).digest("hex");
  }
  return findings.map((finding, index) => ({ ...finding, fingerprint: prints[index] as string }));
}

const placeOf = (f: NormalizedFinding) => [f.rule_id, f.file, f.start_line, f.start_column].join("\0");

/** Places (rule, file, position) that findings of two or more entry points share. */
function placesWithRoutes(findings: readonly NormalizedFinding[]): Set<string> {
  const entries = new Map<string, Set<string>>();
  for (const f of findings) {
    const entry = f.dataflow?.entry;
    if (!entry) continue;
    const place = placeOf(f);
    let set = entries.get(place);
    if (!set) entries.set(place, (set = new Set()));
    set.add(entry);
  }
  return new Set([...entries].filter(([, set]) => set.size > 1).map(([place]) => place));
}

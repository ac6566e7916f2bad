/**
 * What a SARIF rule says of itself (title, CWE, level, security-severity, help). A consumer
 * such as GitHub code scanning applies it to every alert of the rule, so it must describe the
 * rule, never one finding's triage: a reviewer who raises one finding to CRITICAL, or writes a
 * remediation note on it, changes that result, not the rule.
 *
 * Source, in order:
 * 1. the rule's definition, for the rules of our own pack (@ax/rules, the ast-grep analyzer);
 * 2. otherwise (bandit, cppcheck, flawfinder, shellcheck, secrets, dataflow, SARIF tools, whose
 *    mappings live in the scanner and vary per record) what the analyzer reported at scan
 *    time, taken from the rule's findings. A field a reviewer never set (not in
 *    `triaged_fields`) still holds the analyzer's value; a field set by a reviewer, or by a
 *    decision carried from an earlier scan, is recovered from the finding's history: the
 *    `from` of its first change. The record of a finding gone since the previous scan (FIXED,
 *    `baseline_state` absent) copied its values from the earlier finding, so its history is
 *    read first.
 *    Where a rule's findings were reported with different severities (bandit rates one test
 *    differently by call), the rule takes the most severe, and its other metadata from that
 *    finding (the first by file and line among equals).
 */
import { severityRank } from "@ax/contracts";
import type { RuleMeta } from "@ax/rules";
import { findingHistory, type Db, type Finding, type FindingHistory } from "@ax/db";

export interface RuleMetadata {
  title: string;
  cwe_id: string | null;
  cwe_name: string | null;
  owasp: string | null;
  /** null: not known (only for a caller without metadata, see sarif.ts). */
  severity: string | null;
  confidence: string | null;
  remediation: string | null;
}

/** The analyzer that runs our rule pack (packages/scanner, ast-grep-parse.ts). */
const RULE_PACK_ANALYZER = "ast-grep";

export const ruleKey = (analyzer: string, ruleId: string) => `${analyzer}\u0000${ruleId}`;

let pack: Promise<ReadonlyMap<string, RuleMeta>> | undefined;

/**
 * The rule pack's definitions, read once per process, and only when a SARIF log is asked
 * for (the package reads and hashes its files when imported). Unreadable, the export falls
 * back to the scan-time values, and tries again next time.
 */
function rulePack(): Promise<ReadonlyMap<string, RuleMeta>> {
  pack ??= import("@ax/rules")
    .then((m) => new Map(m.loadRules().map((r) => [r.id, r] as const)))
    .catch(() => {
      pack = undefined;
      return new Map<string, RuleMeta>();
    });
  return pack;
}

/** Metadata of every rule of the given findings, by ruleKey. */
export async function rulesMetadata(db: Db, organizationId: string, findings: readonly Finding[]): Promise<Map<string, RuleMetadata>> {
  const byRule = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = ruleKey(f.analyzer, f.rule_id);
    byRule.set(key, [...(byRule.get(key) ?? []), f]);
  }
  const defined = await rulePack();
  const reported = new ScanTimeValues(db, organizationId);
  const out = new Map<string, RuleMetadata>();
  for (const [key, own] of byRule) {
    const first = own[0] as Finding;
    const definition = first.analyzer === RULE_PACK_ANALYZER ? defined.get(first.rule_id) : undefined;
    out.set(key, definition ? fromDefinition(definition) : await fromFindings(own, reported));
  }
  return out;
}

function fromDefinition(r: RuleMeta): RuleMetadata {
  return {
    title: r.title,
    cwe_id: r.cwe,
    cwe_name: r.cwe_name,
    owasp: r.owasp,
    severity: r.severity,
    confidence: r.confidence,
    remediation: r.remediation,
  };
}

async function fromFindings(own: readonly Finding[], reported: ScanTimeValues): Promise<RuleMetadata> {
  // The findings of the scan's commit describe the rule; records of fixed ones only when none is left.
  const present = own.filter((f) => f.baseline_state !== "absent");
  const candidates = [...(present.length > 0 ? present : own)].sort(byPlace);
  let best: { f: Finding; severity: string } | undefined;
  for (const f of candidates) {
    const severity = (await reported.of(f, "severity")) ?? f.severity;
    if (!best || severityRank(severity) < severityRank(best.severity)) best = { f, severity };
  }
  const { f, severity } = best as { f: Finding; severity: string };
  return {
    title: f.title,
    cwe_id: f.cwe_id,
    cwe_name: f.cwe_name,
    owasp: f.owasp,
    severity,
    confidence: (await reported.of(f, "confidence")) ?? f.confidence,
    remediation: await reported.of(f, "remediation"),
  };
}

const byPlace = (a: Finding, b: Finding) =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : a.start_line - b.start_line || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

type Reviewable = "severity" | "confidence" | "remediation";

/** A finding's fields as its analyzer reported them, reading histories once each. */
class ScanTimeValues {
  private readonly histories = new Map<string, Promise<FindingHistory[]>>();
  constructor(
    private readonly db: Db,
    private readonly organizationId: string,
  ) {}

  async of(f: Finding, field: Reviewable): Promise<string | null> {
    if (!f.triaged_fields.includes(field)) return f[field];
    const own = await this.history(f.id);
    if (f.baseline_state === "absent") {
      // Created from the earlier finding (the carried entry names it), with its values then.
      const origin = own.find((h) => h.source === "carried" && h.carried_from)?.carried_from;
      const before = origin ? firstFrom(await this.history(origin), field) : undefined;
      if (before !== undefined) return before;
    }
    const first = firstFrom(own, field);
    // No change recorded: the reviewer's value is the one the analyzer gave.
    return first !== undefined ? first : f[field];
  }

  private history(findingId: string): Promise<FindingHistory[]> {
    let h = this.histories.get(findingId);
    if (!h) {
      h = findingHistory(this.db, this.organizationId, findingId);
      this.histories.set(findingId, h);
    }
    return h;
  }
}

/** The value before the first recorded change of `field` (history is oldest first). */
function firstFrom(history: readonly FindingHistory[], field: Reviewable): string | null | undefined {
  for (const h of history) {
    const change = h.changes[field];
    if (change) return change.from;
  }
  return undefined;
}

import type { AnalyzerRun, FindingDataflow, TraceStep } from "@ax/contracts";
import type { Db, Finding, Scan } from "@ax/db";
import { cweLevels } from "@ax/rules";
import { presentAiLabel } from "./presenters";
import { ruleKey, rulesMetadata, type RuleMetadata } from "./sarif-rules";
import { CWE_COMPONENT, cweRelationships, cweTags, cweTaxonomy, type CweTaxonomy } from "./sarif-taxa";

/**
 * SARIF 2.1.0, one run per analyzer, as GitHub code scanning and most IDEs read it: rules
 * with CWE tags and a security-severity (from the rule's definition or as the analyzer
 * reported it, never a finding's triage: sarif-rules.ts), results with a partialFingerprint
 * so that alerts are matched across runs, triage as suppressions, FIXED findings as
 * baselineState "absent", and a confirmed taint trace as a code flow.
 */
const LEVEL: Record<string, "error" | "warning" | "note"> = {
  CRITICAL: "error",
  HIGH: "error",
  MEDIUM: "warning",
  LOW: "note",
  INFO: "note",
};
const SECURITY_SEVERITY: Record<string, string> = { CRITICAL: "9.5", HIGH: "8.0", MEDIUM: "5.5", LOW: "3.0", INFO: "1.0" };

/**
 * A repository path as SARIF's artifactLocation.uri, a URI reference: each segment
 * percent-encoded, so that a space, '%' or '#' in a name (or ':' in a first segment, read as
 * a scheme) keeps the log valid. Ordinary paths come out unchanged.
 */
const uriOf = (file: string) => file.split("/").map(encodeURIComponent).join("/");

/**
 * The log of `findings`, a selection of the scan's rows `all`: the rules are described from
 * all of them, so a filter (introduced, absent records) does not change what a rule says.
 */
export async function scanSarif(db: Db, scan: Scan, all: Finding[], findings: Finding[]) {
  return toSarif(scan, findings, await rulesMetadata(db, scan.organization_id, all));
}

export function toSarif(scan: Scan, findings: Finding[], metadata: ReadonlyMap<string, RuleMetadata>) {
  const analyzers = (scan.analyzers as AnalyzerRun[]).map((a) => a.name);
  const names = [...new Set([...analyzers, ...findings.map((f) => f.analyzer)])];
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: names.map((name) => {
      const own = findings.filter((f) => f.analyzer === name);
      const version = (scan.analyzers as AnalyzerRun[]).find((a) => a.name === name)?.version ?? undefined;
      const described = new Map<string, RuleMetadata>();
      for (const f of own)
        if (!described.has(f.rule_id)) described.set(f.rule_id, metadata.get(ruleKey(f.analyzer, f.rule_id)) ?? reportedBy(f));
      const taxa = cweTaxonomy([...described.values()].map((m) => m.cwe_id));
      const rules = [...described].map(([id, m]) => ruleOf(id, m, taxa));
      const ruleIds = [...described.keys()];
      return {
        tool: {
          driver: {
            name,
            ...(version ? { version } : {}),
            informationUri: "https://cwe.mitre.org/",
            rules,
            supportedTaxonomies: [{ name: CWE_COMPONENT.name, index: CWE_COMPONENT.index }],
          },
        },
        taxonomies: [taxa.taxonomy],
        automationDetails: { id: `ax/${scan.project_id}/` },
        versionControlProvenance: [
          {
            repositoryUri: scan.git_uri,
            ...(scan.commit_sha ? { revisionId: scan.commit_sha } : {}),
            ...(scan.branch ? { branch: scan.branch } : {}),
          },
        ],
        invocations: [
          {
            executionSuccessful: scan.state === "completed",
            ...(scan.started_at ? { startTimeUtc: new Date(scan.started_at).toISOString() } : {}),
            ...(scan.finished_at ? { endTimeUtc: new Date(scan.finished_at).toISOString() } : {}),
          },
        ],
        results: own.map((f) => resultOf(f, ruleIds.indexOf(f.rule_id))),
      };
    }),
  };
}

function ruleOf(id: string, m: RuleMetadata, taxa: CweTaxonomy) {
  const tags = ["security", ...cweTags(m.cwe_id), ...(m.owasp ? [`owasp/${m.owasp}`] : [])];
  const relationships = cweRelationships(m.cwe_id, taxa);
  return {
    id,
    name: id,
    shortDescription: { text: m.title },
    fullDescription: { text: m.cwe_name ? `${m.title} (${m.cwe_id}: ${m.cwe_name})` : m.title },
    ...(m.remediation ? { help: { text: m.remediation, markdown: m.remediation } } : {}),
    ...(m.cwe_id ? { helpUri: `https://cwe.mitre.org/data/definitions/${m.cwe_id.replace(/^CWE-/, "")}.html` } : {}),
    ...(m.severity ? { defaultConfiguration: { level: LEVEL[m.severity] ?? "warning" } } : {}),
    ...(relationships.length > 0 ? { relationships } : {}),
    properties: {
      tags,
      ...(m.severity ? { "security-severity": SECURITY_SEVERITY[m.severity] ?? "5.0" } : {}),
      ...(m.confidence ? { precision: precision(m.confidence) } : {}),
    },
  };
}

/** Without metadata for a rule, what its finding says that no reviewer set (never a triaged value). */
function reportedBy(f: Finding): RuleMetadata {
  const own = (field: "severity" | "confidence" | "remediation") => (f.triaged_fields.includes(field) ? null : f[field]);
  return {
    title: f.title,
    cwe_id: f.cwe_id,
    cwe_name: f.cwe_name,
    owasp: f.owasp,
    severity: own("severity"),
    confidence: own("confidence"),
    remediation: own("remediation"),
  };
}

function precision(confidence: string): string {
  return confidence === "HIGH" ? "high" : confidence === "LOW" ? "low" : "medium";
}

function resultOf(f: Finding, ruleIndex: number) {
  const ai = presentAiLabel(f);
  const triaged = f.status === "FALSE POSITIVE" || f.status === "ACCEPTED RISK";
  // A reviewer's FIXED on a finding this commit still has is a claim the scan contradicts: the
  // result stays open (SARIF: a suppression under review suppresses nothing) and carries the
  // claim; the scan of the commit that fixes it records it absent. One suppressed in the
  // source stays suppressed.
  const markedFixed = f.status === "FIXED" && f.baseline_state !== "absent" && !f.suppression;
  const suppressions = [
    ...(f.suppression ? [{ kind: "inSource", status: "accepted", justification: f.suppression.reason }] : []),
    ...(triaged ? [{ kind: "external", status: "accepted", ...(f.reason ? { justification: f.reason } : {}) }] : []),
    ...(markedFixed
      ? [{ kind: "external", status: "underReview", justification: f.reason ?? "Marked FIXED by a reviewer; this commit still has it." }]
      : []),
  ];
  return {
    ruleId: f.rule_id,
    ruleIndex,
    level: LEVEL[f.severity] ?? "warning",
    message: { text: f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: uriOf(f.file), uriBaseId: "%SRCROOT%" },
          region: {
            startLine: f.start_line,
            startColumn: f.start_column,
            endLine: f.end_line,
            endColumn: f.end_column,
            snippet: { text: f.snippet },
          },
        },
      },
    ],
    ...(f.dataflow?.status === "confirmed" && f.dataflow.trace.length > 0 ? { codeFlows: [codeFlowOf(f.dataflow)] } : {}),
    // The identity follows the finding across commits (renames, moved lines), as a consumer
    // that tracks alerts by partial fingerprint needs; the v1 fingerprint stays for older ones.
    partialFingerprints: { "axIdentity/v1": f.identity, "axFingerprint/v1": f.fingerprint },
    baselineState: f.baseline_state,
    ...(suppressions.length ? { suppressions } : {}),
    ...(f.fix?.diff ? { fixes: [fixOf(f)] } : {}),
    properties: {
      finding_id: f.id,
      status: f.status,
      severity: f.severity,
      confidence: f.confidence,
      ...(f.likelihood ? { likelihood: f.likelihood } : {}),
      ...(f.cwe_id ? { cwe: f.cwe_id, cwe_ids: cweLevels(f.cwe_id) } : {}),
      ...(f.introduced !== null ? { introduced: f.introduced } : {}),
      sources: f.sources.map(({ analyzer, rule_id }) => ({ analyzer, rule_id })),
      ...(f.dataflow
        ? { dataflow: f.dataflow.status, ...(f.dataflow.source_kind ? { dataflow_source_kind: f.dataflow.source_kind } : {}) }
        : {}),
      // The review model's verdict, its reasons and what the group's AI policy did with it.
      ...(ai ? { ai } : {}),
    },
  };
}

/** The trace as one thread flow, source first; each step's label is its location's message. */
function codeFlowOf(d: FindingDataflow) {
  return {
    threadFlows: [
      {
        locations: d.trace.map((t) => ({
          location: {
            physicalLocation: { artifactLocation: { uri: uriOf(t.file), uriBaseId: "%SRCROOT%" }, ...regionOf(t) },
            message: { text: t.label },
          },
          kinds: [t.kind],
          properties: { code: t.code },
        })),
      },
    ],
  };
}

/** SARIF counts lines and columns from 1 (minimum 1): a step without a valid place gets no region. */
function regionOf(t: TraceStep) {
  if (!(t.line >= 1)) return {};
  return { region: { startLine: t.line, ...(t.column >= 1 ? { startColumn: t.column } : {}) } };
}

/** SARIF's fix: the replaced region in bytes, which is exactly what the analyzer gave us. */
function fixOf(f: Finding) {
  const fix = f.fix!;
  return {
    description: { text: fix.description ?? f.remediation ?? "Apply the suggested change." },
    artifactChanges: [
      {
        artifactLocation: { uri: uriOf(f.file), uriBaseId: "%SRCROOT%" },
        replacements: [
          {
            deletedRegion: { byteOffset: fix.start_byte, byteLength: fix.end_byte - fix.start_byte },
            insertedContent: { text: fix.replacement },
          },
        ],
      },
    ],
  };
}

/**
 * SARIF 2.1.0 → NormalizedFinding. Tool output is untrusted-ish: every field is checked,
 * paths are made repo-relative and refused if they leave the checkout (`..`, absolute paths
 * elsewhere, other URI schemes), malformed parts are skipped rather than thrown.
 *
 * - rule: `ruleId`, else `rule.id`, else `ruleIndex` into tool.driver.rules (extensions too)
 * - severity: `properties.security-severity` (result, then rule; GitHub's CVSS scale), else
 *   `level` (or the rule's defaultConfiguration.level): error HIGH, warning MEDIUM, note LOW,
 *   none INFO
 * - confidence: CodeQL `precision`, else `properties.confidence`, else MEDIUM
 * - CWE: the first of the rule's and result's `properties.tags` that names one
 *   (`external/cwe/cwe-089`, `CWE-89`, `CWE-89: …`), else a rule relationship to the CWE
 *   taxonomy; then cwe-normalize.ts under the tool's configured name
 * - OWASP: a `owasp-a03:2021`-style tag, else from the CWE
 * - kind pass/notApplicable/informational and baselineState absent are not findings
 */
import { join, isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import type { FindingFix, Level, NormalizedFinding, Severity } from "@ax/contracts";
import { normalizeCwe } from "./cwe-normalize";
import { buildFinding } from "./finding";
import { cap, cweId, int, isRecord, level as levelLabel, repoPath, text } from "./normalize";
import { SourceFiles, type SourceFile } from "./source";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";

export interface SarifParseContext {
  /** Analyzer name: rule ids become `<tool>.<ruleId>`. */
  tool: string;
  /** The checkout: absolute and file:// paths are made relative to it. */
  dir: string;
  /** When given, only results in these files are kept. */
  files?: ReadonlySet<string>;
  taxonomy?: Taxonomy;
}

/** SARIF 2.1.0 (a JSON string or parsed) → findings. Malformed parts are skipped, never thrown. */
export async function parseSarif(json: string | unknown, ctx: SarifParseContext): Promise<NormalizedFinding[]> {
  let doc: unknown = json;
  if (typeof json === "string") {
    try {
      doc = JSON.parse(json);
    } catch {
      return [];
    }
  }
  if (!isRecord(doc) || !Array.isArray(doc.runs)) return [];
  const taxonomy = ctx.taxonomy ?? (await loadTaxonomy());
  const sources = new SourceFiles(ctx.dir);
  const findings: NormalizedFinding[] = [];
  for (const run of doc.runs) {
    if (!isRecord(run) || !Array.isArray(run.results)) continue;
    const rules = ruleIndex(run);
    for (const result of run.results) {
      if (!isRecord(result)) continue;
      const f = await sarifFinding(result, run, rules, ctx, sources, taxonomy);
      if (f) findings.push(f);
    }
  }
  return findings;
}

interface Rules {
  byId: Map<string, Record<string, unknown>>;
  list: Record<string, unknown>[];
}

function ruleIndex(run: Record<string, unknown>): Rules {
  const driver = isRecord(run.tool) && isRecord(run.tool.driver) ? run.tool.driver : {};
  const list = Array.isArray(driver.rules) ? driver.rules.filter(isRecord) : [];
  const byId = new Map<string, Record<string, unknown>>();
  const add = (r: Record<string, unknown>) => {
    const id = text(r.id);
    if (id && !byId.has(id)) byId.set(id, r);
  };
  list.forEach(add);
  const extensions = isRecord(run.tool) && Array.isArray(run.tool.extensions) ? run.tool.extensions.filter(isRecord) : [];
  for (const ext of extensions) if (Array.isArray(ext.rules)) ext.rules.filter(isRecord).forEach(add);
  return { byId, list };
}

async function sarifFinding(
  result: Record<string, unknown>,
  run: Record<string, unknown>,
  rules: Rules,
  ctx: SarifParseContext,
  sources: SourceFiles,
  taxonomy: Taxonomy,
): Promise<NormalizedFinding | null> {
  const kind = text(result.kind) ?? "fail";
  if (["pass", "notApplicable", "informational"].includes(kind) || result.baselineState === "absent") return null;
  const ruleRef = isRecord(result.rule) ? result.rule : {};
  const index = int(result.ruleIndex) ?? int(ruleRef.index);
  const ruleId = text(result.ruleId) ?? text(ruleRef.id) ?? (index !== null ? text(rules.list[index]?.id) : null);
  if (!ruleId || !/^[^\s\0]{1,200}$/.test(ruleId)) return null;
  const rule = rules.byId.get(ruleId) ?? (index !== null ? rules.list[index] : undefined) ?? {};
  const ruleProps = isRecord(rule.properties) ? rule.properties : {};
  const resultProps = isRecord(result.properties) ? result.properties : {};

  const location = Array.isArray(result.locations) ? result.locations.find(isRecord) : undefined;
  const physical = location && isRecord(location.physicalLocation) ? location.physicalLocation : null;
  if (!physical) return null;
  const file = resolveUri(physical.artifactLocation, run, ctx.dir);
  if (!file || (ctx.files && !ctx.files.has(file))) return null;
  const region = isRecord(physical.region) ? physical.region : {};
  const startLine = int(region.startLine);
  if (startLine === null || startLine < 1) return null;
  const endLine = Math.max(startLine, int(region.endLine) ?? startLine);
  const source = await sources.get(file);
  const startColumn = Math.max(1, int(region.startColumn) ?? 1);
  const endColumn = int(region.endColumn) ?? (region.startColumn === undefined ? (source?.lineEndColumn(endLine) ?? 1) : startColumn);
  const regionSnippet = isRecord(region.snippet) ? text(region.snippet.text) : null;

  const tags = [...stringList(ruleProps.tags), ...stringList(resultProps.tags)];
  const reportedCwe = tags.map(cweFromTag).find((c) => c !== null) ?? relationshipCwe(rule) ?? null;
  const cwe = normalizeCwe(ctx.tool, ruleId, reportedCwe);
  const level = text(result.level) ?? defaultLevel(rule) ?? "warning";
  const message = resultMessage(result, rule) ?? text(rule.name) ?? ruleId;
  const shortDescription = isRecord(rule.shortDescription) ? text(rule.shortDescription.text) : null;
  const help = isRecord(rule.help) ? text(rule.help.text) : null;
  const helpUri = text(rule.helpUri);
  const fix = source ? sarifFix(result, file, run, ctx.dir, source) : null;

  return buildFinding(
    {
      analyzer: ctx.tool,
      rule_id: `${ctx.tool}.${ruleId}`,
      title: shortDescription ?? text(rule.name) ?? ruleId,
      message,
      cwe_id: cwe,
      owasp: tags.map(owaspFromTag).find((o) => o !== null),
      file,
      start_line: startLine,
      end_line: endLine,
      start_column: startColumn,
      end_column: endColumn,
      snippet: source?.snippet(startLine, endLine) ?? regionSnippet ?? "",
      severity:
        securitySeverity(resultProps["security-severity"]) ??
        securitySeverity(ruleProps["security-severity"]) ??
        LEVEL_SEVERITY[level] ??
        "MEDIUM",
      confidence: precision(ruleProps.precision) ?? levelLabel(ruleProps.confidence) ?? levelLabel(resultProps.confidence) ?? "MEDIUM",
      remediation: help ? cap(help, 4000) : helpUri && /^https?:\/\//.test(helpUri) ? `See ${helpUri}` : null,
      raw: {
        ruleId,
        level,
        kind,
        tags: tags.slice(0, 20),
        ...(reportedCwe !== cwe ? { cwe_reported: reportedCwe } : {}),
        ...(Array.isArray(result.suppressions) && result.suppressions.length > 0 ? { tool_suppressed: true } : {}),
        ...(isRecord(result.partialFingerprints) ? { partialFingerprints: result.partialFingerprints } : {}),
        ...(regionSnippet ? { text: cap(regionSnippet, 2000) } : {}),
      },
      ...(fix ? { fix } : {}),
    },
    taxonomy,
  );
}

const LEVEL_SEVERITY: Record<string, Severity> = { error: "HIGH", warning: "MEDIUM", note: "LOW", none: "INFO" };

/** GitHub code scanning's scale for `security-severity` (a CVSS-like score). */
function securitySeverity(value: unknown): Severity | null {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0 || n > 10) return null;
  return n >= 9 ? "CRITICAL" : n >= 7 ? "HIGH" : n >= 4 ? "MEDIUM" : n > 0 ? "LOW" : "INFO";
}

/** CodeQL's `precision`. */
function precision(value: unknown): Level | null {
  const v = text(value)?.toLowerCase();
  return v === "very-high" || v === "high" ? "HIGH" : v === "medium" ? "MEDIUM" : v === "low" ? "LOW" : null;
}

function defaultLevel(rule: Record<string, unknown>): string | null {
  return isRecord(rule.defaultConfiguration) ? text(rule.defaultConfiguration.level) : null;
}

/** `external/cwe/cwe-089`, `CWE-89`, `cwe-89: SQL Injection`, `CWE:89`. */
export function cweFromTag(tag: string): string | null {
  const m = /(?:^|\/|\b)cwe[-:/ ]?0*(\d{1,5})\b/i.exec(tag);
  return m ? cweId(m[1]) : null;
}

const OWASP_NAMES: Record<string, string> = {
  A01: "A01:2021-Broken Access Control",
  A02: "A02:2021-Cryptographic Failures",
  A03: "A03:2021-Injection",
  A04: "A04:2021-Insecure Design",
  A05: "A05:2021-Security Misconfiguration",
  A06: "A06:2021-Vulnerable and Outdated Components",
  A07: "A07:2021-Identification and Authentication Failures",
  A08: "A08:2021-Software and Data Integrity Failures",
  A09: "A09:2021-Security Logging and Monitoring Failures",
  A10: "A10:2021-Server-Side Request Forgery (SSRF)",
};

/** `owasp-a03:2021`, `OWASP-A03:2021 - Injection` → our 2021 category; other editions are ignored. */
function owaspFromTag(tag: string): string | null {
  const m = /owasp[-_ /]*(a\d{2}):2021/i.exec(tag);
  return m ? (OWASP_NAMES[(m[1] as string).toUpperCase()] ?? null) : null;
}

function relationshipCwe(rule: Record<string, unknown>): string | null {
  if (!Array.isArray(rule.relationships)) return null;
  for (const r of rule.relationships) {
    if (!isRecord(r) || !isRecord(r.target)) continue;
    const component = isRecord(r.target.toolComponent) ? text(r.target.toolComponent.name) : null;
    if (component?.toUpperCase() === "CWE") return cweId(r.target.id);
  }
  return null;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string").slice(0, 50) : [];
}

/** message.text, or message.id looked up in the rule's messageStrings, with {0}… filled in. */
function resultMessage(result: Record<string, unknown>, rule: Record<string, unknown>): string | null {
  const message = isRecord(result.message) ? result.message : {};
  let template = text(message.text) ?? text(message.markdown);
  const id = text(message.id);
  if (!template && id && isRecord(rule.messageStrings) && isRecord(rule.messageStrings[id])) template = text(rule.messageStrings[id].text);
  if (!template) return null;
  const args = stringList(message.arguments);
  return template.replace(/\{(\d+)\}/g, (m, i: string) => args[Number(i)] ?? m);
}

/**
 * An artifactLocation → a repo-relative path, or null when it points outside the checkout.
 * Handles `file://` URIs, absolute paths, percent-encoding, `uriBaseId` (through
 * run.originalUriBaseIds) and `index` into run.artifacts.
 */
function resolveUri(value: unknown, run: Record<string, unknown>, dir: string, depth = 0): string | null {
  if (!isRecord(value) || depth > 3) return null;
  let uri = text(value.uri);
  const index = int(value.index);
  if (!uri && index !== null && Array.isArray(run.artifacts)) {
    const artifact = run.artifacts[index];
    return isRecord(artifact) ? resolveUri(artifact.location, run, dir, depth + 1) : null;
  }
  if (!uri) return null;
  if (/^file:/i.test(uri)) {
    try {
      return repoPath(fileURLToPath(uri), dir);
    } catch {
      return null;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return null; // http:, etc.: not a file of the checkout
  try {
    uri = decodeURIComponent(uri);
  } catch {
    return null;
  }
  const baseId = text(value.uriBaseId);
  const bases = isRecord(run.originalUriBaseIds) ? run.originalUriBaseIds : {};
  const base = baseId && isRecord(bases[baseId]) ? text((bases[baseId] as Record<string, unknown>).uri) : null;
  if (base && !isAbsolute(uri)) {
    if (/^file:/i.test(base)) {
      try {
        return repoPath(join(fileURLToPath(base), uri), dir);
      } catch {
        return null;
      }
    }
    if (!/^[a-z][a-z0-9+.-]*:/i.test(base)) return repoPath(`${base.replace(/\/+$/, "")}/${uri}`, dir);
  }
  return repoPath(uri, dir);
}

/**
 * The first fix of the result when it is one replacement in the finding's file, as a byte
 * range: SARIF deletedRegion by byteOffset/byteLength, or by lines and columns.
 */
function sarifFix(
  result: Record<string, unknown>,
  file: string,
  run: Record<string, unknown>,
  dir: string,
  source: SourceFile,
): FindingFix | null {
  const fix = Array.isArray(result.fixes) ? result.fixes.find(isRecord) : undefined;
  const changes = fix && Array.isArray(fix.artifactChanges) ? fix.artifactChanges.filter(isRecord) : [];
  if (changes.length !== 1) return null;
  const change = changes[0] as Record<string, unknown>;
  if (resolveUri(change.artifactLocation, run, dir) !== file || !Array.isArray(change.replacements) || change.replacements.length !== 1)
    return null;
  const r = change.replacements[0];
  if (!isRecord(r) || !isRecord(r.deletedRegion)) return null;
  const inserted = isRecord(r.insertedContent) ? (typeof r.insertedContent.text === "string" ? r.insertedContent.text : null) : "";
  if (inserted === null) return null;
  const d = r.deletedRegion;
  let start = int(d.byteOffset);
  let end = start !== null ? start + (int(d.byteLength) ?? 0) : null;
  if (start === null) {
    const line = int(d.startLine);
    if (line === null) return null;
    start = source.byteOffset(line, int(d.startColumn) ?? 1);
    end = source.byteOffset(int(d.endLine) ?? line, int(d.endColumn) ?? source.lineEndColumn(int(d.endLine) ?? line));
  }
  if (start === null || end === null || end < start || end > source.bytes.length) return null;
  const description = isRecord(fix?.description) ? text(fix.description.text) : null;
  return { replacement: inserted, start_byte: start, end_byte: end, ...(description ? { description: cap(description, 500) } : {}) };
}

/**
 * One line of `ast-grep scan --json=stream --include-metadata` → NormalizedFinding. The rule
 * pack's YAML `metadata` block (cwe, owasp, severity, …) is authoritative; ast-grep's own
 * severity is only a fallback. Output is untrusted-ish (it quotes repository code), so every
 * field is checked and text is capped.
 */
import { posix } from "node:path";
import { canonicalLabel, LEVELS, SEVERITIES, type NormalizedFinding, type Severity } from "@ax/contracts";

export const ANALYZER_NAME = "ast-grep";
const MAX_SNIPPET = 2048;
const MAX_RAW_TEXT = 8192;
/** Same bound as the reviewer-editable text fields (contracts). */
const MAX_TEXT = 10_000;

interface Position {
  line: number;
  column: number;
}

/** ast-grep's rule severities (hint/info/warning/error) when the rule has no metadata.severity. */
const FALLBACK_SEVERITY: Record<string, Severity> = { error: "HIGH", warning: "MEDIUM", info: "LOW", hint: "INFO" };

export function parseAstGrepLine(line: string): NormalizedFinding | null {
  let match: unknown;
  try {
    match = JSON.parse(line);
  } catch {
    return null; // the last line of output cut at the cap
  }
  if (!isRecord(match) || !isRecord(match.range)) return null;
  const start = position(match.range.start);
  const end = position(match.range.end);
  const file = repoPath(match.file);
  const ruleId = text(match.ruleId);
  if (!start || !end || !file || !ruleId) return null;

  const meta = isRecord(match.metadata) ? match.metadata : {};
  const title = text(meta.title) ?? ruleId;
  return {
    analyzer: ANALYZER_NAME,
    rule_id: ruleId,
    title,
    message: text(match.message) ?? title,
    cwe_id: cweId(meta.cwe),
    cwe_name: text(meta.cwe_name),
    owasp: text(meta.owasp),
    file,
    // ast-grep positions are 0-based, columns in characters; ours are 1-based. end_column is
    // exclusive, as in SARIF.
    start_line: start.line + 1,
    start_column: start.column + 1,
    end_line: end.line + 1,
    end_column: end.column + 1,
    snippet: cap(text(match.lines) ?? text(match.text) ?? "", MAX_SNIPPET),
    severity: label(meta.severity, SEVERITIES) ?? FALLBACK_SEVERITY[text(match.severity) ?? ""] ?? "MEDIUM",
    confidence: label(meta.confidence, LEVELS) ?? "MEDIUM",
    likelihood: label(meta.likelihood, LEVELS) ?? null,
    impact: text(meta.impact),
    remediation: text(meta.remediation) ?? text(match.note),
    fingerprint: "",
    raw: trimRaw(match),
  };
}

/** The match minus what is large or duplicated: `lines` is the snippet, metavariables can be whole functions. */
function trimRaw(match: Record<string, unknown>): Record<string, unknown> {
  const { metaVariables, labels } = match;
  const raw: Record<string, unknown> = { ...match, text: cap(text(match.text) ?? "", MAX_RAW_TEXT) };
  delete raw.lines;
  delete raw.metaVariables;
  delete raw.labels;
  if (isRecord(metaVariables) && isRecord(metaVariables.single)) {
    raw.metaVariables = Object.fromEntries(
      Object.entries(metaVariables.single).map(([k, v]) => [k, cap(isRecord(v) ? (text(v.text) ?? "") : "", 200)]),
    );
  }
  if (Array.isArray(labels)) raw.labels = labels.length;
  return raw;
}

/** A repository-relative POSIX path, or null for anything that escapes the checkout. */
function repoPath(value: unknown): string | null {
  const raw = text(value);
  if (!raw) return null;
  const p = posix.normalize(raw.replace(/\\/g, "/")).replace(/^(\.\/)+/, "");
  if (p.startsWith("/") || p === ".." || p.startsWith("../")) return null;
  return p;
}

function cweId(value: unknown): string | null {
  const s = typeof value === "number" ? String(value) : text(value);
  const m = s ? /^(?:CWE-)?(\d+)/i.exec(s.trim()) : null;
  return m ? `CWE-${m[1]}` : null;
}

function label<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  const s = text(value);
  if (!s) return null;
  const v = canonicalLabel(s);
  return (allowed as readonly string[]).includes(v) ? (v as T) : null;
}

function position(value: unknown): Position | null {
  if (!isRecord(value)) return null;
  const { line, column } = value;
  return Number.isInteger(line) && Number.isInteger(column) ? { line: line as number, column: column as number } : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? cap(value, MAX_TEXT) : null;
}

function cap(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

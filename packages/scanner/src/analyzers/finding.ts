/**
 * The last step of every adapter: a tool's record, already mapped to our fields, becomes a
 * NormalizedFinding. The CWE is named from the taxonomy and given its OWASP category, text is
 * capped, and snippets and quoted code pass through redactSecrets so a hard-coded credential
 * that some analyzer points at is never stored in clear.
 */
import type { FindingFix, Level, NormalizedFinding, Severity } from "@ax/contracts";
import { cap, MAX_SNIPPET, MAX_TEXT } from "./normalize";
import { redactSecrets } from "./secrets-patterns";
import { owaspFor, type Taxonomy } from "./taxonomy";

export interface FindingInput {
  analyzer: string;
  rule_id: string;
  title: string;
  message: string;
  cwe_id: string | null;
  /** Default: the taxonomy's name of cwe_id. */
  cwe_name?: string | null;
  /** Default: the OWASP 2021 category of cwe_id. */
  owasp?: string | null;
  file: string;
  start_line: number;
  end_line?: number;
  start_column?: number;
  end_column?: number;
  snippet: string;
  severity: Severity;
  confidence: Level;
  likelihood?: Level | null;
  impact?: string | null;
  remediation?: string | null;
  raw: Record<string, unknown>;
  fix?: FindingFix;
}

export function buildFinding(input: FindingInput, taxonomy: Taxonomy): NormalizedFinding {
  const startLine = Math.max(1, input.start_line);
  const endLine = Math.max(startLine, input.end_line ?? startLine);
  const startColumn = Math.max(1, input.start_column ?? 1);
  let endColumn = Math.max(1, input.end_column ?? startColumn);
  if (endLine === startLine && endColumn < startColumn) endColumn = startColumn;
  const raw = redactDeep(input.raw, 0) as Record<string, unknown>;
  return {
    analyzer: input.analyzer,
    rule_id: input.rule_id,
    title: cap(input.title, 300),
    message: cap(redactSecrets(input.message), MAX_TEXT),
    cwe_id: input.cwe_id,
    cwe_name: input.cwe_name !== undefined ? input.cwe_name : taxonomy.cweName(input.cwe_id),
    owasp: input.owasp !== undefined ? input.owasp : owaspFor(input.cwe_id),
    file: input.file,
    start_line: startLine,
    end_line: endLine,
    start_column: startColumn,
    end_column: endColumn,
    snippet: cap(redactSecrets(input.snippet), MAX_SNIPPET),
    severity: input.severity,
    confidence: input.confidence,
    likelihood: input.likelihood ?? null,
    impact: input.impact ?? null,
    remediation: input.remediation ? cap(input.remediation, MAX_TEXT) : null,
    fingerprint: "",
    raw,
    ...(input.fix ? { fix: input.fix } : {}),
  };
}

/** Every string in the tool's record redacted: tools quote code in fields of their own (bandit's `code`). */
function redactDeep(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 8 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, depth + 1)]));
}

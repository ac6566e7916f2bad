/**
 * One line of `ast-grep scan --json=stream --include-metadata` → NormalizedFinding. The rule
 * pack's YAML `metadata` block (cwe, owasp, severity, …) is authoritative; ast-grep's own
 * severity is only a fallback. Output is untrusted-ish (it quotes repository code), so every
 * field is checked, text is capped and credentials in quoted code are redacted.
 */
import type { FindingFix, NormalizedFinding, Severity } from "@ax/contracts";
import { cap, cweId, int, isRecord, level, MAX_SNIPPET, repoPath, severity, text } from "./normalize";
import { redactSecrets } from "./secrets-patterns";
import { owaspFor, type Taxonomy } from "./taxonomy";

export const ANALYZER_NAME = "ast-grep";
const MAX_RAW_TEXT = 8192;
/** A fix that rewrites more than this is not a "mechanical" one-site fix. */
const MAX_REPLACEMENT = 64 * 1024;

interface Position {
  line: number;
  column: number;
}

/** ast-grep's rule severities (hint/info/warning/error) when the rule has no metadata.severity. */
const FALLBACK_SEVERITY: Record<string, Severity> = { error: "HIGH", warning: "MEDIUM", info: "LOW", hint: "INFO" };

/** `toRepo` maps the path ast-grep printed to the repository path (sanitized copies, utf8-inputs.ts). */
export function parseAstGrepLine(
  line: string,
  taxonomy?: Taxonomy,
  toRepo: (printed: string) => string | null = repoPath,
): NormalizedFinding | null {
  let match: unknown;
  try {
    match = JSON.parse(line);
  } catch {
    return null; // the last line of output cut at the cap
  }
  if (!isRecord(match) || !isRecord(match.range)) return null;
  const start = position(match.range.start);
  const end = position(match.range.end);
  const file = typeof match.file === "string" ? toRepo(match.file) : null;
  const ruleId = text(match.ruleId);
  if (!start || !end || !file || !ruleId) return null;

  const meta = isRecord(match.metadata) ? match.metadata : {};
  const title = text(meta.title) ?? ruleId;
  const cwe = cweId(meta.cwe);
  const fix = parseFix(match, meta);
  return {
    analyzer: ANALYZER_NAME,
    rule_id: ruleId,
    title,
    message: redactSecrets(text(match.message) ?? title),
    cwe_id: cwe,
    cwe_name: text(meta.cwe_name) ?? taxonomy?.cweName(cwe) ?? null,
    owasp: text(meta.owasp) ?? owaspFor(cwe),
    file,
    // ast-grep positions are 0-based, columns in characters; ours are 1-based. end_column is
    // exclusive, as in SARIF.
    start_line: start.line + 1,
    start_column: start.column + 1,
    end_line: end.line + 1,
    end_column: end.column + 1,
    snippet: cap(redactSecrets(text(match.lines) ?? text(match.text) ?? ""), MAX_SNIPPET),
    severity: severity(meta.severity) ?? FALLBACK_SEVERITY[text(match.severity) ?? ""] ?? "MEDIUM",
    confidence: level(meta.confidence) ?? "MEDIUM",
    likelihood: level(meta.likelihood),
    impact: text(meta.impact),
    remediation: text(meta.remediation) ?? text(match.note),
    fingerprint: "",
    raw: trimRaw(match),
    ...(fix ? { fix } : {}),
  };
}

/**
 * A rule with `fix:` makes ast-grep emit `replacement` (the rewritten code) and
 * `replacementOffsets` (UTF-8 byte offsets of the replaced range in the file; 0.51.1 uses the
 * match's byte range, widened when the rule has `expandStart`/`expandEnd`).
 */
function parseFix(match: Record<string, unknown>, meta: Record<string, unknown>): FindingFix | null {
  const replacement = match.replacement;
  const offsets = match.replacementOffsets;
  if (typeof replacement !== "string" || replacement.length > MAX_REPLACEMENT || !isRecord(offsets)) return null;
  const startByte = int(offsets.start);
  const endByte = int(offsets.end);
  if (startByte === null || endByte === null || startByte < 0 || endByte < startByte) return null;
  const description = text(meta.fix_description);
  return { replacement, start_byte: startByte, end_byte: endByte, ...(description ? { description: cap(description, 500) } : {}) };
}

/**
 * The match minus what is large or duplicated: `lines` is the snippet, `message` the
 * finding's, metavariables can be whole functions. Quoted code is redacted.
 */
function trimRaw(match: Record<string, unknown>): Record<string, unknown> {
  const { metaVariables, labels } = match;
  const raw: Record<string, unknown> = { ...match, text: cap(redactSecrets(text(match.text) ?? ""), MAX_RAW_TEXT) };
  delete raw.lines;
  delete raw.metaVariables;
  delete raw.labels;
  delete raw.replacement;
  // The finding's own message, redacted there; here it could quote a credential in clear.
  delete raw.message;
  if (isRecord(metaVariables) && isRecord(metaVariables.single)) {
    raw.metaVariables = Object.fromEntries(
      Object.entries(metaVariables.single).map(([k, v]) => [k, cap(redactSecrets(isRecord(v) ? (text(v.text) ?? "") : ""), 200)]),
    );
  }
  if (Array.isArray(labels)) raw.labels = labels.length;
  return raw;
}

function position(value: unknown): Position | null {
  if (!isRecord(value)) return null;
  const { line, column } = value;
  return Number.isInteger(line) && Number.isInteger(column) ? { line: line as number, column: column as number } : null;
}

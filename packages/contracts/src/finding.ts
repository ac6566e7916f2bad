import { z } from "zod";
import { bodyObject } from "./body";

/** Canonical review values (DESIGN §6). Input is case-insensitive; '_', '-' and space are equivalent. */
export const FINDING_STATUSES = ["TO REVIEW", "TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "FIXED"] as const;
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
export const LEVELS = ["HIGH", "MEDIUM", "LOW"] as const;

export type FindingStatus = (typeof FINDING_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type Level = (typeof LEVELS)[number];

export function canonicalLabel(value: string): string {
  return value.trim().replace(/[_\-\s]+/g, " ").toUpperCase();
}

function labelSchema<T extends readonly [string, ...string[]]>(field: string, values: T) {
  return z
    .string({ error: `${field} must be a string.` })
    .transform((v) => canonicalLabel(v))
    .refine((v): v is T[number] => (values as readonly string[]).includes(v), {
      message: `${field} must be one of: ${values.join(", ")}.`,
    })
    .transform((v) => v as T[number]);
}

const MAX_TEXT = 10_000;
function textSchema(field: string) {
  return z
    .string({ error: `${field} must be a string.` })
    .max(MAX_TEXT, { message: `${field} must be at most ${MAX_TEXT} characters.` });
}

/** Body of PUT /scan/{scan_id}/finding/{finding_id}: any non-empty subset of the spec's fields. */
export const FindingUpdateBody = bodyObject(
    {
      status: labelSchema("status", FINDING_STATUSES).optional(),
      reason: textSchema("reason").optional(),
      remediation: textSchema("remediation").optional(),
      severity: labelSchema("severity", SEVERITIES).optional(),
      impact: textSchema("impact").optional(),
      likelihood: labelSchema("likelihood", LEVELS).optional(),
      confidence: labelSchema("confidence", LEVELS).optional(),
    }
  )
  .refine((b) => Object.keys(b).length > 0, { message: "Body must contain at least one updatable field." });
export type FindingUpdateBody = z.infer<typeof FindingUpdateBody>;

export const TRIAGE_FIELDS = ["status", "reason", "remediation", "severity", "impact", "likelihood", "confidence"] as const;
export type TriageField = (typeof TRIAGE_FIELDS)[number];

/** The finding an analyzer adapter produces, before it is stored. */
export interface NormalizedFinding {
  analyzer: string;
  rule_id: string;
  title: string;
  message: string;
  cwe_id: string | null;
  cwe_name: string | null;
  owasp: string | null;
  file: string;
  start_line: number;
  end_line: number;
  start_column: number;
  end_column: number;
  snippet: string;
  severity: Severity;
  confidence: Level;
  likelihood: Level | null;
  impact: string | null;
  remediation: string | null;
  fingerprint: string;
  raw: unknown;
  /** A mechanical fix: replace bytes [start_byte, end_byte) of the file with `replacement`. */
  fix?: FindingFix;
  /** Every analyzer and rule that reported this place (after cross-analyzer deduplication). */
  sources?: FindingSource[];
  /** Set when an inline `ax-ignore` comment with a reason covers the finding. */
  suppression?: FindingSuppression;
  /** With a baseline commit: whether the finding's lines changed since it. */
  introduced?: boolean;
  /** The taint analysis's verdict on this place (dataflow/): its trace, or that it found none. */
  dataflow?: FindingDataflow;
}

/**
 * `confirmed`: a path from an untrusted source reaches this sink; `trace` shows it.
 * `unconfirmed`: a pattern finding of a kind the taint analysis covers, in a language it
 * analyses, where it found no such path (the finding's confidence is then LOW).
 */
export interface FindingDataflow {
  status: "confirmed" | "unconfirmed";
  /** Where the data came from: an attacker ("remote": a request) or the host ("local": env, files, properties). */
  source_kind?: "remote" | "local";
  /** Source first, sink last; empty when unconfirmed. */
  trace: TraceStep[];
  /** The pattern findings (analyzer and rule) this taint finding confirms, when any reported the same place. */
  confirms?: FindingSource[];
}

export interface TraceStep {
  file: string;
  line: number;
  column: number;
  kind: "source" | "step" | "call" | "return" | "sink";
  /** What happens here, e.g. "HTTP request parameter", "assigned to `data`", "passed to `badSink` (parameter 1)". */
  label: string;
  /** The line's code, trimmed and capped. */
  code: string;
}

export interface FindingFix {
  replacement: string;
  start_byte: number;
  end_byte: number;
  description?: string;
  /** The fix as a unified diff against the scanned file (git apply / patch -p1). */
  diff?: string;
}

export interface FindingSource {
  analyzer: string;
  rule_id: string;
}

export interface FindingSuppression {
  kind: "inline";
  reason: string;
  /** 1-based line of the comment. */
  line: number;
}

import { z } from "zod";
import { withEnum } from "./api/common";
import { bodyObject } from "./body";

/** Canonical review values (DESIGN §6). Input is case-insensitive; '_', '-' and space are equivalent. */
export const FINDING_STATUSES = ["TO REVIEW", "TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "FIXED"] as const;
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
export const LEVELS = ["HIGH", "MEDIUM", "LOW"] as const;

export type FindingStatus = (typeof FINDING_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type Level = (typeof LEVELS)[number];

/** 0 for CRITICAL … 4 for INFO; anything else after them. */
export function severityRank(severity: string): number {
  const i = (SEVERITIES as readonly string[]).indexOf(severity);
  return i === -1 ? SEVERITIES.length : i;
}

/**
 * A finding still needs attention while its status is one of these (and it is present and not
 * suppressed in the source): what a scan's counts by severity count and `ax scan --fail-on` gates on.
 */
export const OPEN_STATUSES = ["TO REVIEW", "TRUE POSITIVE"] as const satisfies readonly FindingStatus[];

/**
 * A scan's `counts` key for each status of its present, unsuppressed findings. FIXED here is a
 * reviewer's word on a finding the scan still reports, hence `marked_fixed`; findings that
 * disappeared are counted in `fixed`. A Record, so that a new status needs a key.
 */
export const STATUS_COUNT_KEYS = {
  "TO REVIEW": "to_review",
  "TRUE POSITIVE": "true_positive",
  "FALSE POSITIVE": "false_positive",
  "ACCEPTED RISK": "accepted_risk",
  FIXED: "marked_fixed",
} as const satisfies Record<FindingStatus, string>;

/** Every key of a scan's counts (docs: COUNTS_DESCRIPTION in api/scan.ts). */
export const SCAN_COUNT_KEYS = [
  ...SEVERITIES,
  "total",
  "new",
  "fixed",
  "suppressed",
  "introduced",
  ...Object.values(STATUS_COUNT_KEYS),
] as const;
export type ScanCountKey = (typeof SCAN_COUNT_KEYS)[number];

export function canonicalLabel(value: string): string {
  return value
    .trim()
    .replace(/[_\-\s]+/g, " ")
    .toUpperCase();
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
  return z.string({ error: `${field} must be a string.` }).max(MAX_TEXT, { message: `${field} must be at most ${MAX_TEXT} characters.` });
}

/**
 * Body of PUT /scan/{scan_id}/finding/{finding_id}: any non-empty subset of the spec's fields.
 * The labels document their canonical values as their enum (withEnum); any spelling of them parses.
 */
export const FindingUpdateBody = bodyObject({
  status: withEnum(labelSchema("status", FINDING_STATUSES).optional(), FINDING_STATUSES),
  reason: textSchema("reason").optional(),
  remediation: textSchema("remediation").optional(),
  severity: withEnum(labelSchema("severity", SEVERITIES).optional(), SEVERITIES),
  impact: textSchema("impact").optional(),
  likelihood: withEnum(labelSchema("likelihood", LEVELS).optional(), LEVELS),
  confidence: withEnum(labelSchema("confidence", LEVELS).optional(), LEVELS),
}).refine((b) => Object.keys(b).length > 0, { message: "Body must contain at least one updatable field." });
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
  /** Set when inline `ax-ignore` comments with a reason cover every rule of `sources` (the scanner's suppressions.ts). */
  suppression?: FindingSuppression;
  /** With a baseline commit: whether the finding's lines changed since it. */
  introduced?: boolean;
  /** The taint analysis's verdict on this place (dataflow/): its trace, or that it found none. */
  dataflow?: FindingDataflow;
  /** What identity matching reads of the finding's surroundings (scanner's locator.ts). */
  locator?: FindingLocator;
}

/**
 * How a finding is recognised in another commit when git's line mapping cannot place it: the
 * digest of its matched code without whitespace, its enclosing declarations (innermost last,
 * normalized), and the digest of the nearest lines around it.
 */
export interface FindingLocator {
  code: string;
  scope: string;
  context: string;
  /**
   * The digests of the lines above and below alone (absent on findings stored before they
   * existed): which identical line is which when only one side changed.
   */
  before?: string;
  after?: string;
}

/**
 * Where the lines of one commit went in another, from `git diff --find-renames --unified=0`:
 * per path of `from` that changed, its path in `to` and its changed hunks as
 * [oldStart, oldCount, newStart, newCount]; null for a deleted (or binary-changed) file.
 * A path that is not listed is unchanged.
 */
export interface CommitLineMap {
  from: string;
  to: string;
  /** Lines removed plus lines added between the two (binary files count one each): how far apart they are. */
  changed: number;
  files: Record<string, { path: string; hunks: [number, number, number, number][] } | null>;
}

/** Where line `line` (1-based) of `file` in the map's `from` commit is in its `to` commit; null when it changed or its file is gone. */
export function mapLine(map: CommitLineMap, file: string, line: number): { file: string; line: number } | null {
  if (!Object.hasOwn(map.files, file)) return { file, line };
  const entry = map.files[file];
  if (!entry) return null;
  let shift = 0;
  for (const [oldStart, oldCount, , newCount] of entry.hunks) {
    if (oldCount > 0) {
      if (line < oldStart) break;
      if (line < oldStart + oldCount) return null;
    } else if (line <= oldStart) {
      // With --unified=0 a pure insertion is "-a,0": its lines follow old line a.
      break;
    }
    shift += newCount - oldCount;
  }
  return { file: entry.path, line: line + shift };
}

/**
 * `confirmed`: a path from an untrusted source reaches this sink; `trace` shows it.
 * `unconfirmed`: a pattern finding of a kind the taint analysis covers, in a language it
 * analyses, where it found no such path but cannot rule one out — it did not judge that call,
 * or the call depends on code it cannot see (the finding's confidence is then LOW).
 * `refuted`: the analysis judged the sink and no untrusted source reaches it. A refuted
 * pattern match is not a finding: it is kept apart from the scan's findings, for inspection.
 */
export interface FindingDataflow {
  status: "confirmed" | "unconfirmed" | "refuted";
  /** Why the analysis did not confirm the finding, in words (unconfirmed and refuted only). */
  reason?: string;
  /**
   * The function the trace starts from (`file#Class.method`), confirmed findings only: a sink
   * reached from two entry points (two routes into one helper) is two findings, one per entry.
   */
  entry?: string;
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
  /**
   * Set by the scanner's postprocess on a finding's `sources`: the `ax-ignore` comment at the
   * finding's place that names this rule (or every rule). `reason` null: the comment gives none
   * and is not honoured. A finding is suppressed only when every source has one with a reason.
   */
  inline?: { line: number; reason: string | null };
}

/** Set on a finding when `ax-ignore` comments with a reason cover every rule of its `sources`. */
export interface FindingSuppression {
  kind: "inline";
  reason: string;
  /** 1-based line of the comment. */
  line: number;
}

/** Why an `ax-ignore` comment without a reason did not suppress a finding. */
export const SUPPRESSION_REASON_MISSING = "ax-ignore without a reason is not honoured; write `ax-ignore: <reason>`.";

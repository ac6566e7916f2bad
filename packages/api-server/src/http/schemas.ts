import { z } from "zod";
import { FINDING_STATUSES, LEVELS, SCAN_PHASES, SCAN_STATES, SEVERITIES, type FindingDataflow, type TraceStep } from "@ax/contracts";

/** Shapes of responses and shared inputs, for validation and for the OpenAPI document. */

export const ErrorBody = z.object({
  code: z.number().int(),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

export const Id = z.string({ error: "must be a string" }).min(1).max(200);
export const Cursor = z.string().max(2000).optional();
export const Limit = (max: number, def: number) =>
  z.coerce.number({ error: "limit must be a number" }).int({ error: "limit must be a whole number" }).min(1, { error: `limit must be between 1 and ${max}` }).max(max, { error: `limit must be between 1 and ${max}` }).default(def);

/**
 * How a list-valued query parameter is written in the OpenAPI document: an array of `items`,
 * comma-separated (`style: form, explode: false`; repeating the parameter works too). The
 * generator (openapi.ts) reads this registry.
 */
export const queryLists = z.registry<{ items: Record<string, unknown> }>();

const splitList = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean)))
  .refine((v) => v === undefined || v.length <= 50, { message: "at most 50 values" });

/** Comma-separated filter values (`?rule=a,b`), also repeatable; free text. */
export const CsvList = splitList.register(queryLists, { items: { type: "string" } });

/**
 * A list filter over a closed set (`?severity=high,critical`): each value is put in canonical
 * form by `canonical` and must be one of `values`, else 400 listing them. A typo must not
 * filter everything out: a CI gate would read "no findings" and pass.
 */
export function EnumList<T extends readonly [string, ...string[]]>(name: string, values: T, canonical: (s: string) => string) {
  const allowed = new Set<string>(values);
  return splitList
    .transform((v) => v?.map(canonical))
    .refine((v) => v === undefined || v.every((x) => allowed.has(x)), { message: `${name} takes ${values.join(", ")} (comma-separated, case-insensitive).` })
    .register(queryLists, { items: { type: "string", enum: [...values] } });
}

/** A list filter whose values have a format (`?cwe=CWE-89,CWE-79`), checked after `canonical`. */
export function PatternList(name: string, pattern: RegExp, example: string, canonical: (s: string) => string) {
  return splitList
    .transform((v) => v?.map(canonical))
    .refine((v) => v === undefined || v.every((x) => pattern.test(x)), { message: `${name} takes values like ${example} (comma-separated).` })
    .register(queryLists, { items: { type: "string", pattern: pattern.source } });
}

/**
 * A schema that accepts variants of its values (case, `_`/`-`/space) and documents the canonical
 * ones as its enum: the OpenAPI document lists what the schema lets through once canonical.
 */
export const withEnum = <S extends z.ZodType>(schema: S, values: readonly string[]): S => schema.meta({ enum: [...values] }) as S;

/** "true" / "false" in a query string. */
export const QueryBool = z
  .enum(["true", "false"], { error: "must be true or false" })
  .transform((v) => v === "true")
  .optional();

export const OrgQuery = z.object({ organization_id: Id.optional() });

export const AnalyzerRunView = z.object({
  name: z.string(),
  version: z.string().nullable(),
  status: z.enum(["completed", "skipped", "failed", "timeout"]),
  notice: z.string().optional(),
  duration_ms: z.number(),
  findings: z.number(),
  files: z.number().optional(),
  cached_files: z.number().optional(),
});

/**
 * What a scan's `counts` mean (packages/db/src/counts.ts computes them), for the OpenAPI
 * document and docs/api.md.
 */
export const COUNTS_DESCRIPTION =
  "`counts` are computed from the scan's findings when read, so they follow triage. A completed scan (or one with findings) has every key, 0 when none; " +
  "a queued, running, failed or cancelled scan that stored nothing has `{}`. Each finding counts in one place: the record of one that disappeared " +
  "since the previous scan (`baseline_state: absent`, status FIXED) only in `fixed`; one suppressed in the source only in `suppressed`; " +
  "each other one in the key of its current status: `to_review`, `true_positive`, `false_positive`, `accepted_risk`, or `marked_fixed` (a reviewer " +
  "set FIXED on a finding the scan still reports). The open ones, TO REVIEW or TRUE POSITIVE, also count by their current severity " +
  "(`CRITICAL`, `HIGH`, `MEDIUM`, `LOW`, `INFO`) and in `total`, `new` (new since the previous scan) and `introduced` (on lines changed since " +
  "`baseline_commit`). A finding a reviewer closes (FALSE POSITIVE, ACCEPTED RISK, FIXED) leaves its severity and `total` at once, and a changed " +
  "severity moves it; until counts followed triage they were fixed when the scan was stored, and a closed finding stayed in its severity and `total`. " +
  "`summary` holds the same figures grouped (`by_severity`, `by_status`, then `open`, `new`, `introduced`, `fixed`, `suppressed`); `counts` keeps its flat keys.";

const tally = (keys: readonly string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])));

/** `counts` in structured form; null while `counts` is `{}`. */
export const ScanSummaryView = z
  .object({
    by_severity: tally(SEVERITIES).describe("Open findings (TO REVIEW or TRUE POSITIVE) by their current severity; flat `counts` keys CRITICAL … INFO."),
    by_status: tally(FINDING_STATUSES).describe("The findings the scan reports (present, not suppressed) by status; flat `to_review` … `marked_fixed`."),
    open: z.number().int().describe("Open findings; flat `total`."),
    new: z.number().int().describe("Open findings new since the branch's previous scan."),
    introduced: z.number().int().describe("Open findings on lines changed since `baseline_commit`."),
    fixed: z.number().int().describe("Findings of the branch's previous scan that this scan no longer has."),
    suppressed: z.number().int().describe("Findings suppressed by `ax-ignore` comments."),
  })
  .nullable()
  .describe(
    "The figures of `counts` grouped: severities and statuses each in their own map, the other tallies beside them. Null while `counts` is `{}` (a scan that has counted nothing). `counts` keeps its flat keys for existing clients.",
  );

export const ScanView = z.object({
  scan_id: z.string(),
  organization_id: z.string(),
  group_id: z.string(),
  project_id: z.string(),
  state: z.enum(SCAN_STATES),
  phase: z.enum(SCAN_PHASES).nullable(),
  progress: z.number().int().min(0).max(100),
  git_uri: z.string(),
  branch: z.string().nullable(),
  commit: z.string().nullable(),
  baseline_commit: z.string().nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  languages: z.array(z.string()),
  analyzers: z.array(AnalyzerRunView),
  counts: z.record(z.string(), z.number()).describe(COUNTS_DESCRIPTION),
  summary: ScanSummaryView,
  selection: z.record(z.string(), z.unknown()),
  notices: z
    .array(z.object({ kind: z.literal("findings_not_verified"), analyzer: z.string(), status: z.string(), findings: z.number().int(), message: z.string() }))
    .describe("What this scan could not vouch for: an analyzer that did not complete, whose earlier findings on the branch are neither reported nor marked fixed here (they keep their triage)."),
  diff: z
    .object({
      baseline_commit: z.string(),
      merge_base: z.string(),
      fixed_total: z.number().int(),
      fixed: z.array(z.object({ rule_id: z.string(), title: z.string(), severity: z.string(), cwe_id: z.string().nullable(), file: z.string(), start_line: z.number().int() })),
    })
    .nullable()
    .describe(
      "A diff-aware scan's comparison (`baseline_commit` given): the merge-base of the baseline and the scanned commit, which the comparison runs from, and the merge-base's findings this commit no longer has — what the change fixes (the first 1,000 listed, `fixed_total` counts all). Null for other scans and until the scan completes.",
    ),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
});

// The contract's unions as lists (`satisfies` refuses a value the contract does not have).
export const DATAFLOW_STATUSES = ["confirmed", "unconfirmed"] as const satisfies readonly FindingDataflow["status"][];
const SOURCE_KINDS = ["remote", "local"] as const satisfies readonly NonNullable<FindingDataflow["source_kind"]>[];
const TRACE_KINDS = ["source", "step", "call", "return", "sink"] as const satisfies readonly TraceStep["kind"][];

const SourceView = z.object({ analyzer: z.string(), rule_id: z.string() });

export const DataflowView = z.object({
  status: z.enum(DATAFLOW_STATUSES).describe("`confirmed`: a path from an untrusted source reaches this place; `unconfirmed`: the taint analysis covers this kind of finding and found no such path."),
  source_kind: z.enum(SOURCE_KINDS).nullable().describe("Where the data came from: `remote` (a request) or `local` (environment, files, properties)."),
  trace: z
    .array(z.object({ file: z.string(), line: z.number().int(), column: z.number().int(), kind: z.enum(TRACE_KINDS), label: z.string(), code: z.string() }))
    .describe("Source first, sink last; empty when unconfirmed."),
  confirms: z.array(SourceView).describe("The pattern rules that reported the same place, which this trace confirms."),
});

export const SUPPRESSION_NOTE_KINDS = ["reason_missing", "partial"] as const;

export const SuppressionNoteView = z
  .object({
    kind: z
      .enum(SUPPRESSION_NOTE_KINDS)
      .describe("`reason_missing`: an `ax-ignore` comment without a reason names the finding; `partial`: comments with a reason cover some of the rules in `sources`, not all."),
    line: z.number().int().nullable().describe("The comment's line (null for findings stored before the line was kept)."),
    rules: z.array(z.string()).describe("The rule ids of `sources` the comment names (`reason_missing`) or covers (`partial`)."),
    message: z.string(),
  })
  .nullable()
  .describe(
    "Why an `ax-ignore` comment at the finding's place did not suppress it; null when there is none, and always null on a suppressed finding. A finding with a note is NOT suppressed: it is counted, listed by `?suppressed=false` and gated on like any other.",
  );

export const FindingView = z.object({
  finding_id: z.string(),
  scan_id: z.string(),
  project_id: z.string(),
  analyzer: z.string(),
  rule_id: z.string(),
  title: z.string(),
  message: z.string(),
  cwe_id: z.string().nullable(),
  cwe_name: z.string().nullable(),
  owasp: z.string().nullable(),
  file: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_column: z.number().int(),
  end_column: z.number().int(),
  snippet: z.string(),
  fingerprint: z.string(),
  identity: z.string().describe("The same finding across commits and branches (docs/scanning.md): triage decisions are kept per identity, and a rescan matches findings through git's line mapping, then by rule, code, enclosing declarations and context."),
  first_seen_scan_id: z.string().nullable(),
  baseline_state: z.enum(["new", "unchanged", "absent"]),
  introduced: z.boolean().nullable(),
  sources: z.array(SourceView),
  suppression: z
    .object({ kind: z.string(), reason: z.string(), line: z.number().int() })
    .nullable()
    .describe(
      "Set when the finding is suppressed in the source: `ax-ignore` comments with a reason (`kind: inline`, the comment's `line`) cover every rule in `sources` (docs/scanning.md, \"Inline suppressions\"). Only this field says that a finding is suppressed.",
    ),
  suppression_note: SuppressionNoteView,
  has_fix: z.boolean(),
  status: z.enum(FINDING_STATUSES),
  reason: z.string().nullable(),
  remediation: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  impact: z.string().nullable(),
  likelihood: z.enum(LEVELS).nullable(),
  confidence: z.enum(LEVELS),
  ai: z
    .object({
      class: z.enum(["TRUE_POSITIVE", "FALSE_POSITIVE"]),
      confidence: z.number().min(0).max(1),
      model: z.string(),
    })
    .nullable()
    .describe("The review model's label (auto-triage). Separate from `status`, which only a reviewer sets."),
  dataflow: DataflowView.nullable().describe("The taint analysis's verdict and trace; null when it did not judge this finding."),
  version: z.number().int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const HistoryView = z.object({
  version: z.number().int(),
  source: z.enum(["review", "carried"]),
  changed_by: z.object({ user_id: z.string(), display_name: z.string().nullable() }).nullable(),
  carried_from_finding_id: z.string().nullable(),
  changes: z.record(z.string(), z.object({ from: z.string().nullable(), to: z.string().nullable() })),
  created_at: z.string().nullable(),
});

export const GroupView = z.object({ group_id: z.string(), organization_id: z.string(), name: z.string(), created_at: z.string().nullable() });
export const ProjectView = z.object({
  project_id: z.string(),
  group_id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  git_url: z.string(),
  created_at: z.string().nullable(),
});
export const TokenView = z.object({
  token_id: z.string(),
  name: z.string(),
  hint: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

/** A public scan as anonymous readers see it: no organization, group or project ids. */
export const PublicScanView = ScanView.pick({
  scan_id: true,
  state: true,
  phase: true,
  progress: true,
  git_uri: true,
  branch: true,
  commit: true,
  error: true,
  counts: true,
  summary: true,
  created_at: true,
  started_at: true,
  finished_at: true,
  duration_ms: true,
}).extend({ expires_at: z.string() });

/** A finding as anonymous readers see it: no triage, no AI label, no ids but its own. */
export const PublicFindingView = z.object({
  finding_id: z.string(),
  rule_id: z.string(),
  title: z.string(),
  message: z.string(),
  cwe_id: z.string().nullable(),
  severity: z.enum(SEVERITIES),
  confidence: z.enum(LEVELS),
  file: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
});

export const listOf = <T extends z.ZodType>(key: string, item: T) => z.object({ [key]: z.array(item), next_cursor: z.string().nullable() });

/** Error responses every authenticated JSON route can give. */
export const commonErrors = {
  400: { description: "Invalid input; the message names the field.", schema: ErrorBody },
  401: { description: "Missing, malformed, unknown, expired or revoked token.", schema: ErrorBody },
  404: { description: "Not found, or not visible to the caller's organizations.", schema: ErrorBody },
  429: { description: "Rate limit of the token or the client IP reached; see Retry-After and the RateLimit-* headers.", schema: ErrorBody },
};

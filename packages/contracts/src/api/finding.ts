import { z } from "zod";
import { FINDING_STATUSES, LEVELS, SEVERITIES, type FindingDataflow, type TraceStep } from "../finding";

/** Responses of the Vulnerabilities endpoints (docs/api.md). */

// The contract's unions as lists (`satisfies` refuses a value the contract does not have).
export const DATAFLOW_STATUSES = ["confirmed", "unconfirmed"] as const satisfies readonly FindingDataflow["status"][];
const SOURCE_KINDS = ["remote", "local"] as const satisfies readonly NonNullable<FindingDataflow["source_kind"]>[];
const TRACE_KINDS = ["source", "step", "call", "return", "sink"] as const satisfies readonly TraceStep["kind"][];
export const BASELINE_STATES = ["new", "unchanged", "absent"] as const;
export const AI_CLASSES = ["TRUE_POSITIVE", "FALSE_POSITIVE"] as const;
/** What a group's AI policy did with a finding's label (docs/ai.md, "Policy per group"). */
export const AI_ACTIONS = ["auto_closed", "suggested", "needs_review"] as const;

const SourceView = z.object({ analyzer: z.string(), rule_id: z.string() });

const TraceStepView = z.object({
  file: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  kind: z.enum(TRACE_KINDS),
  label: z.string(),
  code: z.string(),
});

export const DataflowView = z.object({
  status: z
    .enum(DATAFLOW_STATUSES)
    .describe(
      "`confirmed`: a path from an untrusted source reaches this place; `unconfirmed`: the taint analysis covers this kind of finding and found no such path.",
    ),
  source_kind: z
    .enum(SOURCE_KINDS)
    .nullable()
    .describe("Where the data came from: `remote` (a request) or `local` (environment, files, properties)."),
  trace: z.array(TraceStepView).describe("Source first, sink last; empty when unconfirmed."),
  confirms: z.array(SourceView).describe("The pattern rules that reported the same place, which this trace confirms."),
  entry: z
    .string()
    .nullable()
    .describe(
      "The function the trace starts from (`file#Class.method`) when confirmed: a sink reached from two entry points is one finding per entry.",
    ),
  reason: z
    .string()
    .nullable()
    .describe("Why the analysis did not confirm the finding, in words (`unconfirmed`: what kept it from judging); null when confirmed."),
});

export const SUPPRESSION_NOTE_KINDS = ["reason_missing", "partial"] as const;

export const SuppressionNoteView = z
  .object({
    kind: z
      .enum(SUPPRESSION_NOTE_KINDS)
      .describe(
        "`reason_missing`: an `ax-ignore` comment without a reason names the finding; " +
          "`partial`: comments with a reason cover some of the rules in `sources`, not all.",
      ),
    line: z.number().int().nullable().describe("The comment's line (null for findings stored before the line was kept)."),
    rules: z.array(z.string()).describe("The rule ids of `sources` the comment names (`reason_missing`) or covers (`partial`)."),
    message: z.string(),
  })
  .nullable()
  .describe(
    "Why an `ax-ignore` comment at the finding's place did not suppress it; null when there is none, and always null on a suppressed finding. " +
      "A finding with a note is NOT suppressed: it is counted, listed by `?suppressed=false` and gated on like any other.",
  );

const IDENTITY_DESCRIPTION =
  "The same finding across commits and branches (docs/scanning.md): triage decisions are kept per identity, and a rescan matches findings " +
  "through git's line mapping, then by rule, code, enclosing declarations and context.";

const SUPPRESSION_DESCRIPTION =
  "Set when the finding is suppressed in the source: `ax-ignore` comments with a reason (`kind: inline`, the comment's `line`) cover every rule " +
  'in `sources` (docs/scanning.md, "Inline suppressions"). Only this field says that a finding is suppressed.';

export const FindingView = z.object({
  finding_id: z.string(),
  scan_id: z.string(),
  project_id: z.string(),
  analyzer: z.string(),
  rule_id: z.string(),
  title: z.string(),
  message: z.string(),
  cwe_id: z.string().nullable(),
  cwe_ids: z
    .array(z.string())
    .describe(
      "The weakness at both levels: `cwe_id` first, then its direct parents in MITRE's Research Concepts view (CWE-95 with CWE-94, CWE-338 with CWE-330). Empty without a CWE. `?cwe=` matches either level.",
    ),
  cwe_name: z.string().nullable(),
  owasp: z.string().nullable(),
  file: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_column: z.number().int(),
  end_column: z.number().int(),
  snippet: z.string(),
  fingerprint: z.string(),
  identity: z.string().describe(IDENTITY_DESCRIPTION),
  first_seen_scan_id: z.string().nullable(),
  baseline_state: z.enum(BASELINE_STATES),
  introduced: z.boolean().nullable(),
  sources: z.array(SourceView),
  suppression: z.object({ kind: z.string(), reason: z.string(), line: z.number().int() }).nullable().describe(SUPPRESSION_DESCRIPTION),
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
      class: z.enum(AI_CLASSES),
      confidence: z.number().min(0).max(1),
      model: z.string(),
      reasons: z
        .array(z.string())
        .describe(
          "The two or three pieces of evidence that weighed most toward `class`, in words (empty for labels stored before reasons).",
        ),
      action: z
        .enum(AI_ACTIONS)
        .nullable()
        .describe(
          "What the group's AI policy did with the label when the scan was stored: `auto_closed` (the policy set `status` to FALSE POSITIVE), " +
            "`suggested` (confident enough to suggest) or `needs_review` (a human should decide); null for findings stored before policies.",
        ),
    })
    .nullable()
    .describe(
      "The review model's label (auto-triage). Separate from `status`, which a reviewer sets — or the group's AI policy, when it auto-closes " +
        "a finding no reviewer decided (`action: auto_closed`, with a history entry of source `ai`).",
    ),
  dataflow: DataflowView.nullable().describe("The taint analysis's verdict and trace; null when it did not judge this finding."),
  version: z.number().int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type FindingView = z.output<typeof FindingView>;

/**
 * A pattern match the taint analysis refuted (GET /scan/{scan_id}/refuted): not a finding —
 * never listed, counted, exported or gated on as one — kept so that a reviewer can audit it.
 */
export const RefutedMatchView = z.object({
  refuted_id: z.string(),
  scan_id: z.string(),
  analyzer: z.string(),
  rule_id: z.string(),
  title: z.string(),
  cwe_id: z.string().nullable(),
  severity: z.enum(SEVERITIES).describe("What the pattern rule would have reported."),
  file: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  start_column: z.number().int(),
  end_column: z.number().int(),
  snippet: z.string(),
  sources: z.array(SourceView),
  reason: z.string().describe("Why the analysis refuted it: what it found at the sink's dangerous arguments."),
});
export type RefutedMatchView = z.output<typeof RefutedMatchView>;

/** The answer of PUT /scan/{scan_id}/finding/{finding_id}. */
export const FindingUpdated = z.object({ message: z.string(), finding: FindingView });
export type FindingUpdated = z.output<typeof FindingUpdated>;

/** A finding's mechanical fix (GET …/fix as JSON). */
export const FindingFixView = z.object({ finding_id: z.string(), file: z.string(), description: z.string(), diff: z.string() });

export const HistoryView = z.object({
  version: z.number().int(),
  source: z
    .enum(["review", "carried", "ai"])
    .describe(
      "`review`: a reviewer's change; `carried`: a decision carried from an earlier scan; `ai`: the group's AI policy closed the finding.",
    ),
  changed_by: z.object({ user_id: z.string(), display_name: z.string().nullable() }).nullable(),
  carried_from_finding_id: z.string().nullable(),
  changes: z.record(z.string(), z.object({ from: z.string().nullable(), to: z.string().nullable() })),
  created_at: z.string().nullable(),
});
export type HistoryView = z.output<typeof HistoryView>;

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
export type PublicFindingView = z.output<typeof PublicFindingView>;

import { z } from "zod";
import { FINDING_STATUSES, SEVERITIES } from "../finding";
import { SCAN_PHASES, SCAN_STATES } from "../scan";

/** Responses of the Scan endpoints (docs/api.md), for validation, the OpenAPI document and clients. */

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
  "`summary` holds the same figures grouped (`by_severity`, `by_status`, then `open`, `new`, `introduced`, `fixed`, `suppressed`); " +
  "`counts` keeps its flat keys.";

const tally = (keys: readonly string[]) => z.object(Object.fromEntries(keys.map((k) => [k, z.number().int()])));

/** `counts` in structured form; null while `counts` is `{}`. */
export const ScanSummaryView = z
  .object({
    by_severity: tally(SEVERITIES).describe(
      "Open findings (TO REVIEW or TRUE POSITIVE) by their current severity; flat `counts` keys CRITICAL … INFO.",
    ),
    by_status: tally(FINDING_STATUSES).describe(
      "The findings the scan reports (present, not suppressed) by status; flat `to_review` … `marked_fixed`.",
    ),
    open: z.number().int().describe("Open findings; flat `total`."),
    new: z.number().int().describe("Open findings new since the branch's previous scan."),
    introduced: z.number().int().describe("Open findings on lines changed since `baseline_commit`."),
    fixed: z.number().int().describe("Findings of the branch's previous scan that this scan no longer has."),
    suppressed: z.number().int().describe("Findings suppressed by `ax-ignore` comments."),
  })
  .nullable()
  .describe(
    "The figures of `counts` grouped: severities and statuses each in their own map, the other tallies beside them. " +
      "Null while `counts` is `{}` (a scan that has counted nothing). `counts` keeps its flat keys for existing clients.",
  );

const ScanNoticeView = z.object({
  kind: z.literal("findings_not_verified"),
  analyzer: z.string(),
  status: z.string(),
  findings: z.number().int(),
  message: z.string(),
});

const FixedView = z.object({
  rule_id: z.string(),
  title: z.string(),
  severity: z.string(),
  cwe_id: z.string().nullable(),
  file: z.string(),
  start_line: z.number().int(),
});

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
    .array(ScanNoticeView)
    .describe(
      "What this scan could not vouch for: an analyzer that did not complete, whose earlier findings on the branch are neither reported " +
        "nor marked fixed here (they keep their triage).",
    ),
  diff: z
    .object({ baseline_commit: z.string(), merge_base: z.string(), fixed_total: z.number().int(), fixed: z.array(FixedView) })
    .nullable()
    .describe(
      "A diff-aware scan's comparison (`baseline_commit` given): the merge-base of the baseline and the scanned commit, which the comparison " +
        "runs from, and the merge-base's findings this commit no longer has — what the change fixes (the first 1,000 listed, `fixed_total` " +
        "counts all). Null for other scans and until the scan completes.",
    ),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
});
export type ScanView = z.output<typeof ScanView>;

/** The answer of POST /scan. */
export const ScanStarted = z.object({ scan_id: z.string(), state: z.enum(SCAN_STATES) });
export type ScanStarted = z.output<typeof ScanStarted>;

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
export type PublicScanView = z.output<typeof PublicScanView>;

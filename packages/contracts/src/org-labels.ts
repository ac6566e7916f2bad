/**
 * An organization's own labels as the database reads them (packages/db ai-learning.ts) and the
 * review model's per-organization learning counts them (packages/ai org-learning.ts): one
 * shape for both sides.
 */

/** A finding someone in the organization marked TRUE POSITIVE or FALSE POSITIVE. */
export interface TriagedLabelRow {
  kind: "finding";
  truePositive: boolean;
  projectId: string;
  fingerprint: string;
  analyzer: string;
  rule_id: string;
  cwe_id: string | null;
  file: string;
  snippet: string;
  /** The AI's p(TRUE_POSITIVE) on the finding decided on (null without a label). */
  pTrue: number | null;
}

/** A vote on a review answer: "true" confirms the class returned, "false" says the other one was right. */
export interface VoteLabelRow {
  kind: "vote";
  truePositive: boolean;
  cwe_id: string | null;
  file: string | null;
  line: string | null;
  code: string;
  /** The p(TRUE_POSITIVE) the answer voted on gave. */
  pTrue: number | null;
}

export type OrgLabelRow = TriagedLabelRow | VoteLabelRow;

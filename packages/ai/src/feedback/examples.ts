/**
 * Reviewers' votes on review answers as labeled examples for the next `ai:train`: a "true"
 * vote confirms the class the model returned, a "false" vote says the other class was right.
 * The example has the shape of training/review/examples.ts (one line of JSONL each).
 */
import type { FindingFacts } from "../review/evidence";

export interface ReviewVote {
  request_id: string;
  class: string | null;
  feedback: boolean;
  input: Record<string, unknown> | null;
}

export interface FeedbackExample {
  source: "feedback";
  group: string;
  label: 0 | 1;
  cwe_id: string;
  file: string;
  line: number;
  analyzer: string;
  rule_id: string;
  code: string;
  /** What the taint analysis found in the snippet when the review ran (the review model's evidence). */
  facts?: FindingFacts;
}

function isFacts(v: unknown): v is FindingFacts {
  if (!v || typeof v !== "object") return false;
  const f = v as Record<string, unknown>;
  return typeof f.analyzer === "string" && typeof f.rule_id === "string" && typeof f.file === "string" && typeof f.start_line === "number";
}

export function voteToExample(v: ReviewVote): FeedbackExample | null {
  const input = v.input ?? {};
  const code = typeof input.code === "string" ? input.code : "";
  if (!code || (v.class !== "TRUE_POSITIVE" && v.class !== "FALSE_POSITIVE")) return null;
  const saidTrue = v.class === "TRUE_POSITIVE";
  const label: 0 | 1 = v.feedback === saidTrue ? 1 : 0;
  const line = Number.parseInt(String(input.line ?? ""), 10);
  return {
    source: "feedback",
    // Each request is its own group: it lands wholly on one side of the split.
    group: `feedback/${v.request_id}`,
    label,
    cwe_id: typeof input.cwe_id === "string" ? input.cwe_id : "",
    file: typeof input.file === "string" ? input.file : "",
    line: Number.isFinite(line) ? line : 0,
    analyzer: "review-api",
    rule_id: "",
    code,
    ...(isFacts(input.facts) ? { facts: input.facts } : {}),
  };
}

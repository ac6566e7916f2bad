/**
 * Auto-triage: the review model labels every finding of a scan with its class, calibrated
 * confidence and model version, from the same input the model was trained on (reviewCode:
 * the enclosing function with its callers and callees from the same directory). The label
 * goes to its own columns; a reviewer's status is never touched. Offline, in process.
 */
import type { NormalizedFinding } from "@ax/contracts";
import { RelatedIndex, fsSourceReader, reviewCode, type ReviewModel } from "@ax/ai/review";

export type AiLabel = { class: string; confidence: number; model: string };

export async function labelFindings(checkout: string, findings: readonly NormalizedFinding[], model: ReviewModel, signal?: AbortSignal): Promise<Map<string, AiLabel>> {
  // The reader follows no links and reads only bounded regular files inside the checkout.
  const related = new RelatedIndex(fsSourceReader(checkout));
  const labels = new Map<string, AiLabel>();
  for (const f of findings) {
    signal?.throwIfAborted();
    if (labels.has(f.fingerprint)) continue;
    const code = (await reviewCode(related, f.file, f.start_line, f.end_line)) || f.snippet;
    const verdict = model.review({ code, cwe_id: f.cwe_id, file: f.file });
    labels.set(f.fingerprint, { class: verdict.class, confidence: verdict.confidence, model: verdict.model });
  }
  return labels;
}

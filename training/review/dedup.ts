/**
 * Near-duplicate detection across the train/test boundary: an example whose code, with
 * comments and whitespace removed, and CWE are those of a training example tells nothing
 * about code the model never saw, so ai:eval drops it from the test side.
 */
import { createHash } from "node:crypto";
import { stripComments } from "@ax/ai/review";

export function dedupKey(e: { code: string; cwe_id: string; file: string }): string {
  const normalized = stripComments(e.code, e.file).replace(/\s+/g, "");
  return createHash("sha256").update(`${e.cwe_id}\0${normalized}`).digest("hex");
}

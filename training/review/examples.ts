/** The review model's labeled examples (packages/ai/data/review-examples.jsonl.gz) and their split. */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";

export interface LabeledExample {
  source: "juliet-java" | "juliet-c" | "castle" | "feedback";
  /** Split unit: examples of one group always land on the same side. */
  group: string;
  /** 1 = true positive, 0 = false positive. */
  label: 0 | 1;
  cwe_id: string;
  file: string;
  line: number;
  analyzer: string;
  rule_id: string;
  code: string;
}

export type Split = "train" | "calibration" | "test";

export async function loadExamples(path: string): Promise<LabeledExample[]> {
  const raw = await readFile(path);
  const text = path.endsWith(".gz") ? gunzipSync(raw).toString("utf8") : raw.toString("utf8");
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as LabeledExample);
}

/**
 * 70 / 10 / 20 by a hash of the group: deterministic, independent of the order and number
 * of examples, and never splits a test case family.
 */
export function splitOf(group: string): Split {
  const bucket = parseInt(createHash("sha256").update(`ax-review-split-v1:${group}`).digest("hex").slice(0, 8), 16) % 100;
  return bucket < 70 ? "train" : bucket < 80 ? "calibration" : "test";
}

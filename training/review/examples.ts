/** The review model's labeled examples (packages/ai/data/review-examples.jsonl.gz) and their split. */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import type { FindingFacts } from "@ax/ai/review";

/**
 * Where an example comes from. Juliet, CASTLE, the peer-labelled sources and our own labelled
 * applications and handler twins; `feedback` for users' votes. Leave-one-source-out evaluation
 * (ai:eval) holds out one of these at a time.
 */
export type ExampleSource =
  | "juliet-java"
  | "juliet-c"
  | "castle"
  | "sonar-java"
  | "sonar-python"
  | "sonarjs"
  | "bandit"
  | "findsecbugs"
  | "own-apps"
  | "own-twins"
  | "feedback";

export interface LabeledExample {
  source: ExampleSource;
  /** Split unit: examples of one group always land on the same side. */
  group: string;
  /** 1 = true positive, 0 = false positive. */
  label: 0 | 1;
  cwe_id: string;
  file: string;
  line: number;
  analyzer: string;
  rule_id: string;
  /** What the review reads: the enclosing function with its callers and callees, label-revealing comments removed. */
  code: string;
  /**
   * A pattern match the taint analysis refuted: never shown to a user, so never a test
   * example, but a training example of what refutation, and the code shapes that led to it,
   * say (the API's snippet review sees refutations).
   */
  refuted?: boolean;
  /** The finding as the scanner reported it (confidence, dataflow verdict and trace, snippet): the evidence is read from it. */
  facts?: FindingFacts;
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

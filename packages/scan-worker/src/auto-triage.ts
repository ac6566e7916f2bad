/**
 * Auto-triage: the review model labels every finding of a scan with its class, calibrated
 * confidence, model version and reasons, from the same input the model was trained on
 * (reviewCode: the enclosing function with its callers and callees from the same directory,
 * and the finding's evidence: its dataflow verdict and trace, evidence.ts). The label
 * goes to its own columns; a reviewer's status is never touched. Offline, in process.
 * Labels are kept in the project's analysis cache (per finding, and per commit for a
 * rescan that does not clone), so that unchanged findings are not labelled again.
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { RelatedIndex, evidenceOf, fsSourceReader, reviewCode, type ReviewModel } from "@ax/ai/review";
import type { AiLabel, PgAnalysisCache } from "@ax/db";

export type { AiLabel } from "@ax/db";

/** Where labels are kept: the project's analysis cache, through its pairs for labels. */
export type LabelCache = Pick<PgAnalysisCache, "getLabels" | "putLabels" | "getCommitLabels" | "putCommitLabels">;

export async function labelFindings(
  checkout: string,
  findings: readonly NormalizedFinding[],
  model: ReviewModel,
  signal?: AbortSignal,
): Promise<Map<string, AiLabel>> {
  // The reader follows no links and reads only bounded regular files inside the checkout.
  const related = new RelatedIndex(fsSourceReader(checkout));
  const labels = new Map<string, AiLabel>();
  for (const f of findings) {
    signal?.throwIfAborted();
    if (labels.has(f.fingerprint)) continue;
    const code = (await reviewCode(related, f.file, f.start_line, f.end_line)) || f.snippet;
    const verdict = model.review({ code, cwe_id: f.cwe_id, file: f.file, evidence: evidenceOf(f, code) });
    labels.set(f.fingerprint, { class: verdict.class, confidence: verdict.confidence, model: verdict.model, reasons: verdict.reasons });
  }
  return labels;
}

const modelDigests = new WeakMap<ReviewModel, string>();

function modelDigest(model: ReviewModel): string {
  let digest = modelDigests.get(model);
  if (!digest) {
    digest = createHash("sha256").update(JSON.stringify(model.artifact)).digest("hex");
    modelDigests.set(model, digest);
  }
  return digest;
}

/** The labels of a whole commit's findings, for a later scan of the same commit that does not clone. */
export async function keepCommitLabels(
  cache: LabelCache,
  model: ReviewModel,
  commit: string,
  labels: ReadonlyMap<string, AiLabel>,
): Promise<void> {
  await cache.putCommitLabels(modelDigest(model), commit, Object.fromEntries(labels)).catch(() => undefined);
}

/** The kept labels of a whole commit's findings, or undefined unless every finding has one. */
export async function keptCommitLabels(
  cache: LabelCache,
  model: ReviewModel,
  commit: string,
  findings: readonly NormalizedFinding[],
): Promise<Map<string, AiLabel> | undefined> {
  const kept = await cache.getCommitLabels(modelDigest(model), commit).catch(() => undefined);
  if (!kept || !findings.every((f) => Object.hasOwn(kept, f.fingerprint))) return undefined;
  return new Map(findings.map((f) => [f.fingerprint, kept[f.fingerprint]!]));
}

/**
 * The cache key of each fingerprint's first finding (the one labelled, as labelFindings does):
 * a digest of the finding and of the blob ids of every file in its directory, or null for a
 * file without a blob id.
 */
function labelKeys(
  findings: readonly NormalizedFinding[],
  blobs: ReadonlyMap<string, string>,
): Map<string, { finding: NormalizedFinding; key: string | null }> {
  const byDir = new Map<string, [string, string][]>();
  for (const [path, blob] of blobs) {
    const d = dirname(path);
    const list = byDir.get(d) ?? [];
    list.push([path, blob]);
    byDir.set(d, list);
  }
  const dirDigests = new Map<string, string>();
  const dirDigest = (d: string) => {
    let v = dirDigests.get(d);
    if (v === undefined) {
      v = createHash("sha256")
        .update(JSON.stringify((byDir.get(d) ?? []).sort((a, b) => (a[0] < b[0] ? -1 : 1))))
        .digest("hex");
      dirDigests.set(d, v);
    }
    return v;
  };
  const first = new Map<string, { finding: NormalizedFinding; key: string | null }>();
  for (const f of findings) {
    if (first.has(f.fingerprint)) continue;
    const key = blobs.has(f.file)
      ? createHash("sha256")
          .update(JSON.stringify([f.fingerprint, f.file, f.start_line, f.end_line, f.cwe_id, f.snippet, dirDigest(dirname(f.file))]))
          .digest("hex")
      : null;
    first.set(f.fingerprint, { finding: f, key });
  }
  return first;
}

/**
 * The review model's labels for the findings. A label depends on the model, the finding and
 * the code of the finding's directory (its function, callers and callees are looked up
 * there): each is kept in the project's analysis cache under a digest of exactly that —
 * model, finding, and the blob ids of every file in its directory — and only findings without
 * one are labelled. Without the cache (or blob ids) every finding is labelled.
 */
export async function labelsFor(
  checkout: string,
  findings: readonly NormalizedFinding[],
  model: ReviewModel,
  kept: { cache: LabelCache; blobs: ReadonlyMap<string, string> } | undefined,
  signal: AbortSignal,
): Promise<Map<string, AiLabel>> {
  if (!kept) return labelFindings(checkout, findings, model, signal);
  const digest = modelDigest(model);
  const first = labelKeys(findings, kept.blobs);
  const keys = [...first.values()].map((v) => v.key).filter((k): k is string => k !== null);
  const hits = await kept.cache.getLabels(digest, keys).catch(() => new Map<string, AiLabel>());
  const labels = new Map<string, AiLabel>();
  const missing: NormalizedFinding[] = [];
  for (const [fp, { finding, key }] of first) {
    const hit = key ? hits.get(key) : undefined;
    if (hit) labels.set(fp, hit);
    else missing.push(finding);
  }
  if (missing.length === 0) return labels;
  const fresh = await labelFindings(checkout, missing, model, signal);
  const entries = new Map<string, AiLabel>();
  for (const [fp, label] of fresh) {
    labels.set(fp, label);
    const key = first.get(fp)?.key;
    if (key) entries.set(key, label);
  }
  await kept.cache.putLabels(digest, entries).catch(() => undefined);
  // In the findings' order, as labelFindings returns them.
  return new Map(findings.filter((f) => labels.has(f.fingerprint)).map((f) => [f.fingerprint, labels.get(f.fingerprint)!]));
}

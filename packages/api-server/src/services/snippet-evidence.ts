/**
 * Evidence for `POST /ai/review` on a bare snippet: the taint analysis runs on the snippet
 * (in memory, under a time limit: @ax/scanner's snippet-dataflow.ts) and its verdict becomes
 * the same evidence a stored finding gives the review model (evidenceOf in @ax/ai), both in
 * the snippet thread (snippet-thread.ts). When the analysis cannot run (time limit, error,
 * too many snippets waiting) the model answers without evidence, as before.
 */
import type { Evidence, FindingFacts } from "@ax/ai";
import type { ReviewBody } from "@ax/contracts";
import type { SnippetOptions } from "@ax/scanner";
import { snippetEvidenceInThread } from "./snippet-thread";

const inputOf = (body: ReviewBody) => ({ code: body.code, file: body.file, cwe_id: body.cwe_id, line: body.line });

/** What the taint analysis knows of the snippet's sink, or null when it could not run. */
export async function snippetFacts(body: ReviewBody, opts: SnippetOptions = {}): Promise<FindingFacts | null> {
  return (await snippetEvidenceInThread(inputOf(body), opts))?.facts ?? null;
}

/** Both: the facts (kept with the request, so a vote on it trains with them) and the evidence. */
export async function snippetReview(
  body: ReviewBody,
  opts: SnippetOptions = {},
): Promise<{ facts: FindingFacts | null; evidence: Evidence | null }> {
  const r = await snippetEvidenceInThread(inputOf(body), opts);
  return { facts: r?.facts ?? null, evidence: r?.evidence ?? null };
}

/** The review model's evidence for the snippet, or null (no evidence) when the analysis could not run. */
export async function snippetEvidence(body: ReviewBody, opts: SnippetOptions = {}): Promise<Evidence | null> {
  return (await snippetEvidenceInThread(inputOf(body), opts))?.evidence ?? null;
}

/**
 * Evidence for `POST /ai/review` on a bare snippet: the taint analysis runs on the snippet
 * (in memory, in its own thread, under a time limit: @ax/scanner's snippet-dataflow.ts and
 * snippet-thread.ts) and its verdict becomes the same evidence a stored finding gives the
 * review model (evidenceOf in @ax/ai). When the analysis cannot run (time limit, error, too
 * many snippets waiting) the model answers without evidence, as before.
 */
import { evidenceOf, type Evidence, type FindingFacts } from "@ax/ai";
import type { ReviewBody } from "@ax/contracts";
import { snippetDataflowFactsInThread, type SnippetOptions } from "@ax/scanner";

/** What the taint analysis knows of the snippet's sink, or null when it could not run. */
export function snippetFacts(body: ReviewBody, opts: SnippetOptions = {}): Promise<FindingFacts | null> {
  return snippetDataflowFactsInThread({ code: body.code, file: body.file, cwe_id: body.cwe_id, line: body.line }, opts);
}

/** The review model's evidence for the snippet, or null (no evidence) when the analysis could not run. */
export async function snippetEvidence(body: ReviewBody, opts: SnippetOptions = {}): Promise<Evidence | null> {
  const facts = await snippetFacts(body, opts);
  return facts ? evidenceOf(facts, body.code) : null;
}

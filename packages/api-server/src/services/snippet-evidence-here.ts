/**
 * The evidence of a review body computed in the calling thread: the taint analysis on the
 * snippet (@ax/scanner's snippet-dataflow.ts) and evidenceOf over the code. The API runs it
 * in the snippet thread (snippet-thread.ts); both steps read untrusted code with regular
 * expressions and a parser whose cost a hostile snippet can push to seconds.
 */
import { evidenceOf, type Evidence, type FindingFacts } from "@ax/ai";
import { snippetDataflowFacts, type SnippetInput } from "@ax/scanner";

export interface SnippetEvidence {
  facts: FindingFacts;
  evidence: Evidence;
}

/** Null when the analysis could not run (time limit, error): the review then goes without evidence. */
export function snippetEvidenceHere(input: SnippetInput, timeLimitMs: number): SnippetEvidence | null {
  try {
    const facts = snippetDataflowFacts(input, { timeLimitMs });
    return facts ? { facts, evidence: evidenceOf(facts, input.code) } : null;
  } catch {
    return null;
  }
}

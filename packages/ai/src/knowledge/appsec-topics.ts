/**
 * The assistant's built-in application-security knowledge: short topics written for it
 * (the OWASP Top 10 and everyday practices), searched with the same keyword retrieval as
 * the CWE catalogue. Everything is in memory; nothing is read from disk.
 */
import { expandQuery } from "./acronyms";
import { createIndex, type Hit, type SearchIndex } from "./retrieval";
import { OWASP_TOPICS } from "./topics-owasp";
import { PRACTICE_TOPICS } from "./topics-practices";
import type { AppSecTopic } from "./topic";

export type { AppSecTopic } from "./topic";

export const APPSEC_TOPICS: readonly AppSecTopic[] = [...OWASP_TOPICS, ...PRACTICE_TOPICS];

let index: SearchIndex<AppSecTopic> | null = null;

function topicIndex(): SearchIndex<AppSecTopic> {
  return (index ??= createIndex(APPSEC_TOPICS, {
    specs: { title: { weight: 3, heading: true, b: 0.3 }, keywords: { weight: 2.5, heading: true, b: 0.3 }, body: { weight: 1 } },
    fields: (t) => ({ title: t.title, keywords: t.keywords.join(" "), body: t.body }),
  }));
}

export type TopicHit = Hit<AppSecTopic>;

/** Topics matching the query, best first; shorthand ("XSS", "SSRF") is expanded first. */
export function searchTopics(query: string, limit = 3): TopicHit[] {
  return topicIndex().search(query, { limit, expansions: expandQuery(query).expansions });
}

export function getTopic(id: string): AppSecTopic | null {
  return APPSEC_TOPICS.find((t) => t.id === id) ?? null;
}

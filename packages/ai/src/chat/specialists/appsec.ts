/**
 * The general application-security specialist: answers from the assistant's built-in topics
 * (OWASP Top 10, everyday practices), or from MITRE's CWE catalogue when the question is
 * about one weakness rather than a practice. When neither covers the question it says so and
 * lists what the assistant can do, rather than improvising security advice.
 */
import { searchTopics, type AppSecTopic, type TopicHit } from "../../knowledge/appsec-topics";
import { getCwe, searchCwe, type CweEntry } from "../../knowledge/cwe-catalog";
import { matchStrength, type Hit } from "../../knowledge/retrieval";
import { link } from "../markdown";
import { modelAnswer } from "../model-answer";
import type { AnswerLines, Specialist, SpecialistContext } from "../types";
import { asksForFix, cweLink, entryLines } from "./cwe";

const SYSTEM = [
  "You are the application-security specialist of the assistant of a code-scanning service.",
  "You answer general application-security questions for developers: practical, specific, short.",
  "Name only the CWE ids and references that appear in the context.",
].join(" ");

export const appsecSpecialist: Specialist = {
  name: "appsec",
  answer: answerAppsec,
};

type Choice = { kind: "topics"; topics: AppSecTopic[] } | { kind: "cwe"; entries: CweEntry[] } | { kind: "none" };

// Hits whose words are in the title first: "how to set cookies securely" is about the
// cookie topic even if the session topic says "cookie" more often.
const byHeading = <T>(hits: Hit<T>[]) => [...hits].sort((a, b) => b.headingCoverage - a.headingCoverage || b.score - a.score);

async function choose(ctx: SpecialistContext): Promise<Choice> {
  const topics = byHeading(searchTopics(ctx.prompt, 3)).filter((h) => matchStrength(h) === "strong");
  const best = topics[0];
  const asTopics = (hits: TopicHit[]): Choice => ({ kind: "topics", topics: hits.slice(0, 2).map((h) => h.item) });
  // A question that is entirely a topic's title needs no catalogue (which may still be loading).
  if (best && best.headingCoverage >= 0.99) return asTopics(topics);

  // A CWE id in the question is more specific than a partly matching topic.
  const named = (await Promise.all(ctx.route.cweIds.slice(0, 3).map((id) => getCwe(id)))).filter((e): e is CweEntry => e !== null);
  if (named.length > 0) return { kind: "cwe", entries: named };
  const cwe = (await searchCwe(ctx.prompt, 3))[0];
  const cweStrong = matchStrength(cwe) === "strong";
  if (best && (!cweStrong || best.headingCoverage >= cwe!.headingCoverage)) return asTopics(topics);
  if (cweStrong) return { kind: "cwe", entries: [cwe!.entry] };
  return { kind: "none" };
}

async function relatedLines(topic: AppSecTopic): Promise<string[]> {
  const entries = (await Promise.all(topic.cwes.map((id) => getCwe(id)))).filter((e): e is CweEntry => e !== null);
  return entries.length > 0 ? ["### Related weaknesses", ...entries.map((e) => `- ${cweLink(e)}`)] : [];
}

/** A readable name for a reference: "Password Storage Cheat Sheet (OWASP)", "CWE-272 (MITRE)". */
function referenceLabel(url: string): string {
  const { hostname, pathname } = new URL(url);
  const last = decodeURIComponent(pathname.replace(/\/$/, "").split("/").pop() ?? "");
  if (hostname === "cheatsheetseries.owasp.org") return `${last.replace(/\.html$/, "").replace(/_/g, " ")} (OWASP)`;
  if (hostname === "cwe.mitre.org") return `CWE-${last.replace(/\.html$/, "")} (MITRE)`;
  if (hostname === "owasp.org" && pathname.startsWith("/Top10/") && last !== "Top10")
    return `OWASP Top 10 ${last.replace(/_/g, " ").replace(/^(A\d\d) 2021-/, "$1:2021 ")}`;
  return `${hostname}${pathname.replace(/\/$/, "")}`;
}

const referenceLine = (t: AppSecTopic) =>
  t.references && t.references.length > 0
    ? `**References:** ${t.references.map((url) => link(referenceLabel(url), url)).join(", ")}`
    : null;

async function* topicLines(topic: AppSecTopic, others: AppSecTopic[]): AnswerLines {
  yield `## ${topic.title}`;
  yield "";
  yield* topic.body.split("\n");
  yield "";
  // The body is out before the catalogue is asked for the weaknesses' names.
  const related = await relatedLines(topic);
  if (related.length > 0) yield* [...related, ""];
  const refs = referenceLine(topic);
  if (refs) yield refs;
  if (others.length > 0) yield* ["", `See also: ${others.map((t) => `*${t.title}*`).join(", ")} — ask about it by name.`];
}

/** What the assistant can do, for questions none of its knowledge covers. */
export const CAPABILITIES: readonly string[] = [
  "I do not have reliable material on that, so I will not guess. Here is what I can help with:",
  "",
  '- **Explain a weakness** from MITRE\'s CWE catalogue — "what is CWE-79?", "how do I prevent SQL injection?"',
  "- **Application-security practice** — the OWASP Top 10, password storage, secrets, JWT, CORS, CSP, cookies, TLS, dependencies, threat modeling",
  '- **Summarize your scans and findings** — "summarize my latest scan", "what are the critical findings?"',
  '- **Help fix a finding** — "how do I fix finding <id>?"',
  "- **Who am I** — your account, organization and role",
];

async function modelContext(choice: Exclude<Choice, { kind: "none" }>, prompt: string): Promise<string> {
  if (choice.kind === "cwe")
    return choice.entries.flatMap((e) => entryLines(e, { fixesFirst: asksForFix(prompt), brief: false })).join("\n");
  const parts: string[] = [];
  for (const t of choice.topics) {
    parts.push(`## ${t.title}`, "", t.body, "", ...(await relatedLines(t)), "");
    const refs = referenceLine(t);
    if (refs) parts.push(refs, "");
  }
  return parts.join("\n");
}

async function* answerAppsec(ctx: SpecialistContext): AnswerLines {
  const choice = await choose(ctx);
  if (choice.kind === "none") {
    yield* CAPABILITIES;
    return;
  }
  if (ctx.model) {
    yield* modelAnswer(ctx, { system: SYSTEM, context: await modelContext(choice, ctx.prompt) });
    return;
  }
  if (choice.kind === "cwe") {
    const fixesFirst = asksForFix(ctx.prompt);
    const brief = choice.entries.length > 1;
    for (const [i, e] of choice.entries.entries()) yield* [...(i > 0 ? [""] : []), ...entryLines(e, { fixesFirst, brief })];
    return;
  }
  const [first, ...others] = choice.topics;
  yield* topicLines(first!, others);
}

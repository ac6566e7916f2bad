/**
 * The weakness-knowledge specialist: explains CWE entries from MITRE's catalogue — what the
 * weakness is, why it matters, how to fix it. Every statement comes from the catalogue; when
 * nothing in it matches, the answer says so instead of guessing an entry.
 */
import {
  CWE_VERSION,
  getCwe,
  normalizeCweId,
  searchCwe,
  type CweEntry,
  type CweMitigation,
  type CweSearchResult,
} from "../../knowledge/cwe-catalog";
import { matchStrength } from "../../knowledge/retrieval";
import { summarize } from "../../knowledge/summarize";
import { escapeInline, link } from "../markdown";
import { modelAnswer } from "../model-answer";
import type { AnswerLines, Specialist, SpecialistContext } from "../types";

const MAX_NAMED = 5;
const CATALOGUE = `MITRE's CWE catalogue (version ${CWE_VERSION})`;

const SYSTEM = [
  "You are the weakness-knowledge specialist of the assistant of a code-scanning service.",
  "You explain CWE entries from MITRE's catalogue to developers: what the weakness is, why it matters and how to fix it, in plain language.",
  "Name only the CWE ids that appear in the context, and link each to its MITRE page as the context does.",
].join(" ");

export const cweSpecialist: Specialist = {
  name: "cwe",
  answer: answerCwe,
};

/** Questions about fixing get the fixes first. */
export function asksForFix(prompt: string): boolean {
  return /\b(fix|fixe[sd]|fixing|prevent|mitigat|remediat|avoid|protect|defend|patch|sanitiz|stop)/i.test(prompt);
}

export const cweUrl = (id: string) => `https://cwe.mitre.org/data/definitions/${id.replace(/^CWE-/, "")}.html`;

/** A reference to an entry: "[CWE-89: Improper Neutralization…](https://cwe.mitre.org/…)". */
export const cweLink = (e: CweEntry) => link(`${e.id}: ${e.name}`, cweUrl(e.id));

// Which mitigations developers can act on in code: MITRE lists operational measures
// (firewalls, hardening) next to code changes, and a chat answer has room for five.
const STRATEGY_WEIGHT: Readonly<Record<string, number>> = {
  Parameterization: 3,
  "Output Encoding": 2,
  "Libraries or Frameworks": 1.5,
  "Input Validation": 1,
  "Enforcement by Conversion": 0.5,
  "Attack Surface Reduction": 0.5,
  "Environment Hardening": -1,
  Firewall: -2,
};

function mitigationWeight(m: CweMitigation): number {
  const phase = m.phases.includes("Implementation") ? 2 : m.phases.includes("Architecture and Design") ? 1.5 : 0;
  return phase + (m.strategy ? (STRATEGY_WEIGHT[m.strategy] ?? 0) : 0);
}

/** The most actionable mitigations, best first (MITRE's order among equals). */
export function topMitigations(e: CweEntry, count: number): CweMitigation[] {
  return e.mitigations
    .map((m, i) => ({ m, i, w: mitigationWeight(m) }))
    .sort((a, b) => b.w - a.w || a.i - b.i)
    .slice(0, count)
    .map((x) => x.m);
}

export interface EntryOptions {
  fixesFirst: boolean;
  /** One short paragraph and three fixes, for answers about several entries. */
  brief: boolean;
}

/** An entry as Markdown lines: heading, summary, consequences, fixes, other names, source. */
export function entryLines(e: CweEntry, opts: EntryOptions): string[] {
  const summary = [escapeInline(summarize(e.description, opts.brief || opts.fixesFirst ? 300 : 600)), ""];
  if (e.status === "Deprecated") summary.push("*MITRE has deprecated this entry; its description says what to use instead.*", "");

  const fixes = topMitigations(e, opts.brief ? 3 : 5).map((m) => {
    const label = m.strategy
      ? `**${escapeInline(m.strategy)}** (${escapeInline(m.phases.join(", "))}): `
      : m.phases.length > 0
        ? `*${escapeInline(m.phases.join(", "))}*: `
        : "";
    return `- ${label}${escapeInline(summarize(m.text, opts.brief ? 240 : 420))}`;
  });
  const fixSection = [
    "### How to fix it",
    ...(fixes.length > 0 ? fixes : ["MITRE lists no mitigations for this entry." + parentHint(e)]),
    "",
  ];

  const why: string[] = [];
  if (!opts.brief) {
    if (e.likelihood) why.push(`- **Likelihood of exploit:** ${escapeInline(e.likelihood)}`);
    for (const c of e.consequences.slice(0, 4)) {
      const note = c.note ? ` — ${escapeInline(summarize(c.note, 200))}` : "";
      why.push(`- **${escapeInline(c.scopes.join(", "))}:** ${escapeInline(c.impacts.join("; "))}${note}`);
    }
  }
  const whySection = why.length > 0 ? ["### Why it matters", ...why, ""] : [];

  const meta = [`${e.abstraction} weakness`, e.status, ...(e.parents.length > 0 ? [`child of ${e.parents.join(", ")}`] : [])].join(" · ");
  return [
    `## ${e.id}: ${escapeInline(e.name)}`,
    "",
    ...summary,
    ...(opts.fixesFirst ? [...fixSection, ...whySection] : [...whySection, ...fixSection]),
    ...(e.alternateTerms.length > 0 ? [`**Also known as:** ${e.alternateTerms.map(escapeInline).join(", ")}`, ""] : []),
    `*${escapeInline(meta)}* — source: ${link(`${e.id} on cwe.mitre.org`, cweUrl(e.id))}`,
  ];
}

function parentHint(e: CweEntry): string {
  return e.parents.length > 0 ? ` See the more general ${e.parents.map((p) => link(p, cweUrl(p))).join(", ")}.` : "";
}

const unknownLines = (ids: string[]) => ids.flatMap((id, i) => [...(i > 0 ? [""] : []), unknownIdLine(id)]);

export function unknownIdLine(id: string): string {
  const shown = normalizeCweId(id) ?? escapeInline(id);
  return `**${shown}** is not in ${CATALOGUE}. Check the number, or describe the weakness (for example "SQL injection") and I will look it up.`;
}

export const NO_MATCH = [
  `I could not find a weakness in ${CATALOGUE} that matches this question, and I would rather not guess.`,
  "",
  'If you know the CWE id, ask with it — for example "what is CWE-79?" — or name the weakness in other ' +
    'words ("SQL injection", "path traversal", "hard-coded password").',
];

/** What the catalogue says about the question: entries to explain, ids it lacks, close alternatives. */
interface Retrieved {
  entries: CweEntry[];
  unknown: string[];
  /** Search only: "weak" when the best entries only partly match the question. */
  strength: "strong" | "weak" | "none";
  seeAlso: CweEntry[];
}

async function retrieve(ctx: SpecialistContext): Promise<Retrieved> {
  const named = [...new Set(ctx.route.cweIds)].slice(0, MAX_NAMED);
  if (named.length > 0) {
    const found = await Promise.all(named.map(async (id) => ({ id, entry: await getCwe(id) })));
    const entries = found.flatMap((f) => (f.entry ? [f.entry] : []));
    return {
      entries,
      unknown: found.filter((f) => !f.entry).map((f) => f.id),
      strength: entries.length > 0 ? "strong" : "none",
      seeAlso: [],
    };
  }
  const hits = await searchCwe(ctx.prompt, 5);
  const top = hits[0];
  const strength = matchStrength(top);
  if (!top || strength === "none") return { entries: [], unknown: [], strength: "none", seeAlso: [] };
  if (strength === "weak") return { entries: hits.slice(0, 3).map((h) => h.entry), unknown: [], strength, seeAlso: [] };
  const close = (h: CweSearchResult) => h !== top && matchStrength(h) === "strong" && h.score >= top.score * 0.4;
  return {
    entries: [top.entry],
    unknown: [],
    strength,
    seeAlso: hits
      .filter(close)
      .slice(0, 3)
      .map((h) => h.entry),
  };
}

/** The offline answer; also the facts the model path is given. */
function answerLines(r: Retrieved, fixesFirst: boolean): string[] {
  if (r.strength === "weak") {
    return [
      `I am not sure which weakness you mean. The closest entries in ${CATALOGUE}:`,
      "",
      ...r.entries.map((e) => `- ${cweLink(e)}`),
      "",
      'Ask about one of them by id (for example "what is ' + r.entries[0]!.id + '?") for the details and fixes.',
    ];
  }
  const brief = r.entries.length + r.unknown.length > 1;
  const lines = r.entries.flatMap((e, i) => [...(i > 0 ? [""] : []), ...entryLines(e, { fixesFirst, brief })]);
  if (r.unknown.length > 0) lines.push(...(lines.length > 0 ? [""] : []), ...unknownLines(r.unknown));
  if (r.seeAlso.length > 0) lines.push("", "**Related entries:** " + r.seeAlso.map(cweLink).join(", "));
  return lines;
}

async function* answerCwe(ctx: SpecialistContext): AnswerLines {
  const r = await retrieve(ctx);
  if (r.entries.length === 0 && r.unknown.length === 0) {
    yield* NO_MATCH;
    return;
  }
  if (r.entries.length === 0) {
    // Only unknown ids: there is nothing for a model to ground an answer on.
    yield* unknownLines(r.unknown);
    yield "";
    yield "You can also describe the weakness in words, and I will search the catalogue for it.";
    return;
  }
  if (ctx.model) {
    yield* modelAnswer(ctx, { system: SYSTEM, context: answerLines(r, asksForFix(ctx.prompt)).join("\n") });
    return;
  }
  yield* answerLines(r, asksForFix(ctx.prompt));
}

/**
 * Picks the specialist for a chat message. Deterministic on purpose: routing runs before the
 * first line of every answer (a model call here would blow the 50 ms budget), it must not be
 * steerable by instructions hidden in the prompt, and a table of phrasings can pin it down.
 * Each specialist has weighted features; the highest total wins, appsec catches the rest.
 */
import type { HistoryTurn, Route, SpecialistName } from "./types";

type Feature = [RegExp, number];

// Words that make a question about a class of weakness rather than security in general.
const WEAKNESS_WORDS = new RegExp(
  [
    /\bcwe\b|\bweakness|\binjection\b|\boverflow\b|\btraversal\b|\bforgery\b|\bscripting\b|\brace condition\b/.source,
    /\buse[- ]after[- ]free\b|\bnull (?:pointer|dereference)\b|\bidor\b|\bredos\b|\bprototype pollution\b/.source,
    /\bclickjacking\b|\bdeserializ|\bopen redirect/.source,
  ].join("|"),
);

const FEATURES: Record<SpecialistName, Feature[]> = {
  identity: [
    [/\bwho\s*am\s*i\b|\bwhoami\b/, 4],
    [/\bwhat(?:'s| is| are)\s+my\s+(?:name|e-?mail|user ?name|login|role|account|display name|identity)/, 4],
    [/\bmy\s+(?:profile|account|identity|user ?name|e-?mail(?: address)?|display name|role|permissions?)\b/, 2],
    [/\b(?:logged|signed)\s+in\b|\blog(?:ged)?\s*in\s+(?:as|with)\b|\bsign(?:ed)?\s*in\s+(?:as|with)\b/, 2],
    [/\bhow did i (?:sign|log)\b|\bwhich (?:account|user|identity provider|idp|login)\b/, 3],
    [/\bam i (?:an? )?(?:admin|owner|member|viewer)\b|\bwhich org(?:ani[sz]ation)? am i\b/, 3],
  ],
  cwe: [
    [WEAKNESS_WORDS, 2],
    [/\bwhat (?:is|are|does)\b|\bexplain\b|\bdescribe\b|\bdefin(?:e|ition)\b|\bmean(?:s|ing)?\b|\btell me about\b/, 1],
    [/\bhow (?:do|can|should|to) (?:i |we |you )?(?:prevent|avoid|mitigate|defend|protect|stop)\b/, 1.5],
    [/\b(?:vulnerability class|attacks?|exploit(?:ed)?|example of)\b/, 1],
  ],
  findings: [
    [/\b(?:my|our|the|this|that)\s+(?:last|latest|recent|newest|most recent|previous|current|first)?\s*scan/, 3],
    [/\b(?:last|latest|recent|newest|previous)\s+scans?\b/, 2],
    [/\bscans?\b|\bscanned\b/, 1.5],
    [/\bfindings?\b|\bresults?\b/, 1.5],
    [/\bhow many\b|\bcount\b|\bnumber of\b|\blist\b|\bshow me (?:all|my)\b/, 1.5],
    [/\bsummar(?:y|i[sz]e)\b|\boverview\b|\breport\b|\bstatus\b|\bprogress\b|\bstill running\b|\bfailed\b/, 1.5],
    [
      /\b(?:critical|high|medium|low)(?:[- ]severity)?\b|\bseverit(?:y|ies)\b|\bworst\b|\btop (?:\d+ )?(?:findings|issues|cwes?|vulnerabilities)\b/,
      1,
    ],
    [/\bwhich files?\b|\bmost (?:issues|findings|vulnerabilities)\b|\bhotspots?\b/, 2],
    [/\b(?:my|our)\s+(?:code|repo(?:sitory)?|project|codebase|app(?:lication)?|issues|vulnerabilities)\b/, 2.5],
    [/\b(?:did|does|do) (?:the |my )?scans? (?:find|show|report)|\bwhat did\b.*\bfind\b/, 2],
  ],
  remediation: [
    [/\b(?:fix|fixing|remediate|remediation|patch|resolve|repair)\b/, 1.5],
    [/\b(?:fix|remediate|patch|resolve|repair)\b.{0,30}\b(?:this|that|the|my)\s+(?:finding|issue|vulnerability|one)\b/, 3],
    [/\b(?:show|give)(?: me)? the (?:fix|diff|patch)\b|\bsuggested fix\b/, 2.5],
    [/\b(?:this|that) (?:finding|issue)\b/, 1],
  ],
  appsec: [
    [
      /\bsecur(?:e|ely|ity)\b|\bowasp\b|\bvulnerab\w*|\bthreat\b|\bpentest\b|\bsast\b|\bdast\b|\bsecrets?\b|\bauth\w*\b|\bbest practices?\b/,
      0.5,
    ],
  ],
};

// Common weakness names, so "explain SQL injection" carries the id the specialist needs.
const WEAKNESS_NAMES: [RegExp, string][] = [
  [/\bsql ?injection\b|\bsqli\b/, "CWE-89"],
  [/\bcross[- ]site scripting\b|\bxss\b/, "CWE-79"],
  [/\bpath traversal\b|\bdirectory traversal\b/, "CWE-22"],
  [/\b(?:os )?command injection\b/, "CWE-78"],
  [/\bcode injection\b/, "CWE-94"],
  [/\bssrf\b|\bserver[- ]side request forgery\b/, "CWE-918"],
  [/\bcsrf\b|\bcross[- ]site request forgery\b/, "CWE-352"],
  [/\bxxe\b|\bxml external entit/, "CWE-611"],
  [/\b(?:insecure |unsafe )?deserializ(?:ation|ing)\b/, "CWE-502"],
  [/\bhard[- ]?coded (?:secrets?|credentials?|passwords?|keys?)\b/, "CWE-798"],
  [/\bopen redirects?\b/, "CWE-601"],
];

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const UUID_ONE = new RegExp(UUID.source, "i");
const CWE_ID = /\bcwe\s*[-_:#]?\s*0*(\d{1,5})\b/gi;
// Only a short message with a pronoun is a follow-up; a full question stands on its own.
const ANAPHORA =
  /^(?:and |but |so |ok(?:ay)?,? |then )|\b(?:it|this|that|this one|that one|them|those)\b|^(?:why|how|what about|more|details?)\b/;
const MAX_PROMPT = 2_000;

/** Lower-cases and folds look-alike punctuation (non-breaking and other hyphens, curly quotes). */
function normalize(text: string): string {
  return text
    .slice(0, MAX_PROMPT)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/** CWE ids named in the text ("CWE-89", "cwe 79", common weakness names), as "CWE-<n>". */
export function extractCweIds(text: string): string[] {
  const t = normalize(text);
  const ids = [...t.matchAll(CWE_ID)].map((m) => `CWE-${Number(m[1])}`);
  for (const [re, id] of WEAKNESS_NAMES) if (re.test(t)) ids.push(id);
  return [...new Set(ids)];
}

export interface MentionedIds {
  findingIds: string[];
  scanIds: string[];
  /** Ids with no "scan" or "finding" just before them. */
  unlabeled: string[];
}

/**
 * Ids are UUIDs (packages/db/src/ids.ts), the same shape for scans and findings, so the word
 * closest before an id says which it is: "scan <id>", "finding `<id>`".
 */
export function extractIds(text: string): MentionedIds {
  const out: MentionedIds = { findingIds: [], scanIds: [], unlabeled: [] };
  const t = text.slice(0, 20_000);
  for (const m of t.matchAll(UUID)) {
    const id = m[0].toLowerCase();
    const before = t.slice(Math.max(0, m.index - 40), m.index).toLowerCase();
    const scanAt = before.lastIndexOf("scan");
    const findingAt = Math.max(before.lastIndexOf("finding"), before.lastIndexOf("issue"), before.lastIndexOf("vulnerab"));
    const list = scanAt < 0 && findingAt < 0 ? out.unlabeled : findingAt > scanAt ? out.findingIds : out.scanIds;
    if (!list.includes(id)) list.push(id);
  }
  return out;
}

/** The finding a follow-up most likely means: the first named in the newest turn that names one. */
export function findingIdFromHistory(history: HistoryTurn[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    if (turn.role === "assistant" && turn.specialist !== "findings" && turn.specialist !== "remediation") continue;
    const ids = extractIds(turn.content);
    const id = ids.findingIds[0] ?? (turn.role === "user" ? ids.unlabeled[0] : undefined);
    if (id) return id;
  }
  return undefined;
}

function score(features: Feature[], text: string): number {
  return features.reduce((sum, [re, w]) => (re.test(text) ? sum + w : sum), 0);
}

function confidence(best: number, runnerUp: number): number {
  if (best <= 0) return 0.1;
  const strength = 1 - Math.exp(-best / 2);
  return Math.round(strength * (best / (best + runnerUp)) * 100) / 100;
}

export function routeMessage(prompt: string, history: HistoryTurn[]): Route {
  const text = normalize(prompt);
  const cweIds = extractCweIds(prompt);
  const ids = extractIds(prompt);
  const scores: Record<SpecialistName, number> = { identity: 0, cwe: 0, findings: 0, remediation: 0, appsec: 0.3 };
  for (const name of Object.keys(FEATURES) as SpecialistName[]) scores[name] += score(FEATURES[name], text);

  if (cweIds.length > 0) scores.cwe += 2;
  // "what is …" alone is any question; it only counts towards cwe once a weakness is named.
  else if (!WEAKNESS_WORDS.test(text)) scores.cwe = Math.min(scores.cwe, 0.5);
  if (ids.scanIds.length > 0) scores.findings += 3;
  // "how do I fix finding <id>": a fix verb next to an id is unambiguous; a bare id is a scan.
  const fixVerb = /\b(?:fix|remediate|patch|resolve|repair|explain|what is|tell me about)\b/.test(text);
  if (ids.findingIds.length > 0) scores.remediation += fixVerb ? 5 : 2;
  else if (ids.unlabeled.length > 0) scores[fixVerb ? "remediation" : "findings"] += fixVerb ? 3 : 1;
  // A general "how do I fix XSS" is about the weakness, not about one of the caller's findings.
  if (cweIds.length > 0 && ids.findingIds.length === 0 && !/\b(?:my|our|this|that)\b/.test(text)) scores.remediation -= 1.5;

  const ranked = (Object.entries(scores) as [SpecialistName, number][]).sort((a, b) => b[1] - a[1]);
  const [specialist, best] = ranked[0]!;
  const runnerUp = Math.max(ranked[1]![1], 0);

  const isFollowUp = text.length <= 80 && ANAPHORA.test(text) && !UUID_ONE.test(text);
  const previous = [...history].reverse().find((t) => t.role === "assistant")?.specialist ?? null;
  if (isFollowUp && previous) {
    const followUp = followUpRoute(text, history, previous);
    // The message's own features win when they point elsewhere ("and my email?").
    if (followUp && (best < 2 || followUp.specialist === specialist))
      return { ...followUp, cweIds: cweIds.length > 0 ? cweIds : followUp.cweIds };
  }

  const route: Route = { specialist, cweIds, score: confidence(specialist === "appsec" && best < 0.5 ? 0 : best, runnerUp) };
  // "is it in my last scan?" after a CWE answer: "it" is that CWE.
  if (isFollowUp && previous === "cwe" && cweIds.length === 0 && specialist === "findings") route.cweIds = cweIdsFromHistory(history);
  const findingId = ids.findingIds[0] ?? (specialist === "remediation" ? ids.unlabeled[0] : undefined);
  const scanId = ids.scanIds[0] ?? (specialist !== "remediation" ? ids.unlabeled[0] : undefined);
  if (findingId) route.findingId = findingId;
  if (scanId) route.scanId = scanId;
  return route;
}

/**
 * A short message leaning on the previous answer ("and how do I fix it?") continues that
 * conversation: a CWE explanation stays with cwe (same ids), a finding becomes its fix.
 */
function followUpRoute(text: string, history: HistoryTurn[], previous: SpecialistName): Route | undefined {
  const asksFix = /\b(?:fix|remediate|patch|resolve|repair|solve)\b/.test(text);
  if ((previous === "findings" && asksFix) || previous === "remediation") {
    const findingId = findingIdFromHistory(history);
    if (findingId) return { specialist: "remediation", cweIds: [], findingId, score: 0.7 };
  }
  if (previous === "cwe") return { specialist: "cwe", cweIds: cweIdsFromHistory(history), score: 0.7 };
  if (previous === "findings") {
    const scanId = [...history]
      .reverse()
      .map((t) => extractIds(t.content).scanIds[0])
      .find(Boolean);
    return { specialist: "findings", cweIds: [], ...(scanId ? { scanId } : {}), score: 0.6 };
  }
  return undefined;
}

/** The CWEs of the CWE conversation that ends the history: named by the user if they were. */
function cweIdsFromHistory(history: HistoryTurn[]): string[] {
  let cited: string[] = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i]!;
    if (turn.role === "assistant" && turn.specialist !== "cwe") break;
    const ids = extractCweIds(turn.content);
    if (turn.role === "user" && ids.length > 0) return ids;
    // An answer may also cite related CWEs; its first one is its subject.
    if (turn.role === "assistant" && cited.length === 0) cited = ids.slice(0, 1);
  }
  return cited;
}

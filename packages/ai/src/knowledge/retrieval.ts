/**
 * Keyword retrieval shared by the CWE catalogue and the built-in AppSec topics: BM25F over a
 * few weighted fields (a name counts more than a paragraph that merely mentions the words).
 * Small, in-memory and deterministic, so an answer can always say why it was chosen; there
 * is no embedding model to ship or warm up.
 */

/** How one field of a document counts: its weight, and whether it names the document. */
export interface FieldSpec {
  weight: number;
  /**
   * Title-like fields (name, alternate terms, keywords). A query matched there is about the
   * document; one matched only in the body may merely mention it — see `headingCoverage`.
   */
  heading?: boolean;
  /** BM25's length normalization (0–1, default 0.75): names are short whatever they name, so less. */
  b?: number;
}

export interface Hit<T> {
  item: T;
  score: number;
  /** Share (0–1, idf-weighted) of the query's words found anywhere in the document. */
  coverage: number;
  /** The same share, counting only heading fields. */
  headingCoverage: number;
}

/** Shorthand in a query and what it stands for, in the documents' vocabulary. */
export interface Expansion {
  /** The query's own words ("xss", "mass assignment"). */
  words: string;
  text: string;
}

export interface SearchOptions {
  limit?: number;
  expansions?: readonly Expansion[];
}

/**
 * How well a hit answers its query: "strong" when the query is mostly in the document's
 * name (or nearly all of it in the text with some in the name), "weak" when a fair part is
 * somewhere, "none" otherwise. The two specialists decide between answering, offering
 * candidates and saying they do not know with this one rule.
 */
export function matchStrength(hit: Pick<Hit<unknown>, "coverage" | "headingCoverage"> | undefined): "strong" | "weak" | "none" {
  if (!hit) return "none";
  if (hit.headingCoverage >= 0.5 || (hit.coverage >= 0.75 && hit.headingCoverage > 0)) return "strong";
  if (hit.headingCoverage >= 0.3 || (hit.coverage >= 0.5 && hit.headingCoverage > 0)) return "weak";
  return "none";
}

export interface SearchIndex<T> {
  search(query: string, options?: SearchOptions): Hit<T>[];
  readonly size: number;
}

// Question phrasing and intent words: "how do I fix…" must not pull in every entry whose
// text happens to say "fix".
const STOPWORDS = new Set(
  (
    "a an and are as at be been being but by can could did do does doing for from had has have how i if in into is it its me my " +
    "no not of on or our please should so such than that the their them then there these they this those to was we were what " +
    "when where which who why will with would you your about also any some use using used vs versus explain tell mean means " +
    "meaning fix fixing fixed prevent preventing mitigate mitigating avoid avoiding remediate stop best way ways cwe weakness " +
    "weaknesses vulnerability vulnerabilities issue issues problem problems bug bugs happen happens work works difference " +
    "between handle handling manage managing deal properly correctly proper correct right good need want know understand " +
    "get set make give show describe overview basics guide tips practice practices recommended really just"
  ).split(" "),
);

// Languages and frameworks in a question ("…in my Django app") say where, not what: they
// still score, but a document need not mention them to answer the question.
const CONTEXT_WORDS = new Set(
  (
    "app application website project codebase golang go node nodejs javascript typescript python java kotlin " +
    "ruby rail php csharp dotnet rust swift react angular vue express django flask spring laravel"
  ).split(" "),
);

const K1 = 1.2;
const DEFAULT_B = 0.75;

/** Light stemming (plurals, adverbs): most of what differs between a question and a name. */
function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is|os)$/.test(word)) return word.slice(0, -1);
  if (word.length > 5 && word.endsWith("ly")) return word.slice(0, -2);
  return word;
}

/**
 * Words as index terms: lowercased, stemmed, stopwords dropped, plus adjacent pairs
 * ("sql injection") so a phrase outranks its words scattered through a paragraph.
 * Hyphenated words also count joined ("hard-coded" matches "hardcoded").
 */
export function terms(text: string): { words: string[]; pairs: string[] } {
  const words: string[] = [];
  const pairs: string[] = [];
  let prev: string | null = null;
  for (const raw of text
    .toLowerCase()
    .replace(/'s\b/g, "")
    .match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []) {
    const parts = raw
      .split("-")
      .filter((p) => !STOPWORDS.has(p))
      .map(stem)
      .filter((p) => !STOPWORDS.has(p));
    if (parts.length === 0) {
      prev = null;
      continue;
    }
    if (parts.length > 1) words.push(parts.join(""));
    for (const part of parts) {
      words.push(part);
      if (prev !== null) pairs.push(`${prev} ${part}`);
      prev = part;
    }
  }
  return { words, pairs };
}

interface Posting {
  doc: number;
  /** Field-weighted, length-normalized term frequency (the BM25F pseudo-frequency). */
  wtf: number;
  inHeading: boolean;
}

export interface IndexOptions<T> {
  specs: Record<string, FieldSpec>;
  /** Each field's text, under the names in `specs`. */
  fields: (doc: T) => Record<string, string>;
  /** A multiplier on a document's score: how often it is the right answer, all else equal. */
  prior?: (doc: T) => number;
}

/** Each term's postings: in which documents it occurs, with its BM25F pseudo-frequency there. */
function buildPostings<T>(docs: readonly T[], specs: Record<string, FieldSpec>, fields: (doc: T) => Record<string, string>) {
  const names = Object.keys(specs);
  const tokenized = docs.map((doc) => {
    const text = fields(doc);
    return names.map((name) => {
      const { words, pairs } = terms(text[name] ?? "");
      return { count: words.length, all: [...words, ...pairs] };
    });
  });
  const avgLength = names.map((_, f) => Math.max(1, tokenized.reduce((sum, d) => sum + d[f]!.count, 0) / Math.max(1, docs.length)));

  const postings = new Map<string, Posting[]>();
  tokenized.forEach((docFields, doc) => {
    const wtf = new Map<string, { wtf: number; inHeading: boolean }>();
    docFields.forEach(({ count, all }, f) => {
      const spec = specs[names[f]!]!;
      const b = spec.b ?? DEFAULT_B;
      const norm = 1 - b + (b * count) / avgLength[f]!;
      for (const term of all) {
        const cur = wtf.get(term) ?? { wtf: 0, inHeading: false };
        cur.wtf += spec.weight / norm;
        cur.inHeading ||= spec.heading === true;
        wtf.set(term, cur);
      }
    });
    for (const [term, p] of wtf) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ doc, ...p });
    }
  });
  return postings;
}

/** Indexes `docs` once. */
export function createIndex<T>(docs: readonly T[], { specs, fields, prior }: IndexOptions<T>): SearchIndex<T> {
  const postings = buildPostings(docs, specs, fields);
  const priors = docs.map((doc) => prior?.(doc) ?? 1);
  const n = docs.length;
  const idf = (term: string) => {
    const df = postings.get(term)?.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const maxIdf = idf("");
  /**
   * How much a query word counts towards coverage. A word no document contains still counts
   * (half as much as the rarest known word): a question about something absent everywhere is
   * not covered by matching its one common word. The user's stack counts for nothing.
   */
  const need = (word: string) => (CONTEXT_WORDS.has(word) ? 0 : postings.has(word) ? idf(word) : maxIdf / 2);

  function search(query: string, { limit = 5, expansions = [] }: SearchOptions = {}): Hit<T>[] {
    const q = terms(query);
    const own = [...new Set(q.words)];
    const alts = expansions.map((e) => ({ stands: new Set(terms(e.words).words), ...terms(e.text) }));
    const scored = new Set([...own, ...q.pairs, ...alts.flatMap((a) => [...a.words, ...a.pairs])]);

    const acc = new Map<number, { score: number; found: Map<string, boolean> }>();
    for (const term of scored) {
      const list = postings.get(term);
      if (!list) continue;
      const weight = idf(term);
      for (const p of list) {
        let cur = acc.get(p.doc);
        if (!cur) acc.set(p.doc, (cur = { score: 0, found: new Map() }));
        cur.score += (weight * p.wtf * (K1 + 1)) / (p.wtf + K1);
        cur.found.set(term, p.inHeading);
      }
    }

    // Coverage is over the query's own words: "xss" counts as found where nearly all of
    // "cross-site scripting" is, and the expansion never dilutes the share.
    const total = own.reduce((sum, w) => sum + need(w), 0);
    const share = (words: string[], found: Map<string, boolean>, heading: boolean) => {
      const all = words.reduce((sum, w) => sum + idf(w), 0);
      const hit = words.filter((w) => found.has(w) && (!heading || found.get(w))).reduce((sum, w) => sum + idf(w), 0);
      return all > 0 ? hit / all : 0;
    };
    const coverage = (found: Map<string, boolean>, heading: boolean) => {
      if (total === 0) return 0;
      let covered = 0;
      for (const w of own) {
        const direct = found.has(w) && (!heading || found.get(w) === true);
        if (direct || alts.some((a) => a.stands.has(w) && share(a.words, found, heading) >= 0.75)) covered += need(w);
      }
      return covered / total;
    };

    return [...acc]
      .map(([doc, a]) => ({
        item: docs[doc]!,
        score: a.score * priors[doc]!,
        coverage: coverage(a.found, false),
        headingCoverage: coverage(a.found, true),
      }))
      .sort((x, y) => y.score - x.score)
      .slice(0, limit);
  }

  return { search, size: n };
}

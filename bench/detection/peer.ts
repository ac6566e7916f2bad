/**
 * The peer-labelled dataset (peer-labelled.tar.gz: other analyzers' test samples, labelled by
 * their own tests; see the datasets README): its labels, and how a scan's findings are scored
 * against them.
 *
 * A finding matches a label when it is in the label's file, its CWE is accepted (cwe.ts:
 * itself, a direct parent or child) for one of the label's CWEs, and its place fits the label's
 * kind: `line` — the finding's line range includes the line (with `lineSlack`, a finding that
 * starts up to that many lines before also counts: find-sec-bugs lines come from bytecode and
 * can be the continuation of a multi-line statement); `method`/`class` — the finding starts
 * within line..end_line (one without a line: anywhere in the file); `file` — anywhere in the file. A safe file record with rule "*" (no
 * CWE) matches any finding in its file. Other labels without a CWE are counted apart and not
 * scored.
 *
 * A vulnerable label is found when a finding matches it; a safe label is a false alarm when
 * one does. Recall = found / vulnerable; false-alarm rate = false alarms / safe.
 */
import { extname } from "node:path";
import { acceptedCwes, cweNumber } from "./cwe";
import type { LabeledFinding } from "./labeled";

/** The held-out source: only per-language aggregates of it are ever reported. */
export const HELD_OUT_SOURCE = "findsecbugs";

export const PEER_KINDS = ["line", "method", "class", "file"] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

export interface PeerLabel {
  source: string;
  /** Path in the archive, `/`-separated, starting with the source's folder. */
  file: string;
  language: string;
  /** 1-based; null above line level (file labels). */
  line: number | null;
  /** Last line of a method/class label. */
  endLine: number | null;
  cwes: number[];
  vulnerable: boolean;
  rule: string;
  kind: PeerKind;
  count: number;
}

/** A finding as the peer scoring reads it (NormalizedFinding fits). */
export type PeerFinding = LabeledFinding & { fingerprint?: string };

const LANGUAGES: Readonly<Record<string, string>> = {
  ".java": "Java",
  ".kt": "Kotlin",
  ".kts": "Kotlin",
  ".jsp": "JSP",
  ".jspx": "JSP",
  ".jspf": "JSP",
  ".tag": "JSP",
  ".py": "Python",
  ".js": "JavaScript",
  ".jsx": "JavaScript",
  ".mjs": "JavaScript",
  ".cjs": "JavaScript",
  ".vue": "JavaScript",
  ".ts": "TypeScript",
  ".tsx": "TypeScript",
  ".mts": "TypeScript",
  ".cts": "TypeScript",
};

/** The label language of a path, from its extension ("Other" when unknown). */
export function peerLanguage(file: string): string {
  return LANGUAGES[extname(file).toLowerCase()] ?? "Other";
}

function positiveInt(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null;
}

/** One labels.jsonl record → a label; throws with the line number on a malformed record. */
export function parsePeerLabel(record: unknown, where: string): PeerLabel {
  const r = (record ?? {}) as Record<string, unknown>;
  const kind = r.kind as PeerKind;
  if (typeof r.source !== "string" || typeof r.file !== "string" || !PEER_KINDS.includes(kind))
    throw new Error(`${where}: a label needs source, file and kind (${PEER_KINDS.join("|")})`);
  if (r.label !== "vulnerable" && r.label !== "safe") throw new Error(`${where}: label must be vulnerable or safe`);
  const line = positiveInt(r.line);
  if (kind === "line" && line === null) throw new Error(`${where}: a line label needs a line`);
  const cwes = (Array.isArray(r.cwe) ? r.cwe : []).map((c) => cweNumber(c as string)).filter((n): n is number => n !== null);
  return {
    source: r.source,
    file: r.file,
    language: peerLanguage(r.file),
    line: kind === "file" ? null : line,
    endLine: positiveInt(r.end_line),
    cwes: [...new Set(cwes)],
    vulnerable: r.label === "vulnerable",
    rule: typeof r.rule === "string" ? r.rule : "",
    kind,
    count: typeof r.count === "number" ? r.count : 1,
  };
}

/** labels.jsonl text → labels (blank lines skipped). */
export function parsePeerLabels(text: string): PeerLabel[] {
  return text.split(/\r?\n/).flatMap((line, i) => (line.trim() ? [parsePeerLabel(JSON.parse(line), `labels.jsonl:${i + 1}`)] : []));
}

/** A safe file record that asserts no finding at all in its file (bandit's asserted total of 0). */
export function isAnyFindingLabel(l: PeerLabel): boolean {
  return l.rule === "*" && l.cwes.length === 0;
}

/** Scored labels: a CWE to match on, or the any-finding safe record. */
export function isScored(l: PeerLabel): boolean {
  return l.cwes.length > 0 || isAnyFindingLabel(l);
}

/** Every CWE a finding may carry to count for the label. */
export function labelAccepted(l: PeerLabel): Set<number> {
  return new Set(l.cwes.flatMap((c) => acceptedCwes(c)));
}

function placeFits(l: PeerLabel, f: PeerFinding, lineSlack: number): boolean {
  if (l.kind === "file" || l.line === null) return true;
  const start = f.start_line;
  if (l.kind === "line") {
    const end = Math.max(start, f.end_line ?? start);
    return start <= l.line && (l.line <= end || start >= l.line - lineSlack);
  }
  return start >= l.line && start <= Math.max(l.line, l.endLine ?? l.line);
}

/** Whether `f` matches `l` (both in the same file is the caller's or this check's business). */
export function matchesLabel(l: PeerLabel, f: PeerFinding, lineSlack = 0, accepted: Set<number> = labelAccepted(l)): boolean {
  if (f.file !== l.file) return false;
  if (isAnyFindingLabel(l)) return true;
  const cwe = cweNumber(f.cwe_id);
  return cwe !== null && accepted.has(cwe) && placeFits(l, f, lineSlack);
}

export interface LabelOutcome {
  label: PeerLabel;
  /** Not scored (no CWE). */
  unscored: boolean;
  /** Whether some finding of ours could match (the label's language can report an accepted CWE). */
  inScope: boolean;
  matches: PeerFinding[];
}

export interface PeerScoreOptions {
  /** Line slack per source (findsecbugs: 2). */
  lineSlack?: (source: string) => number;
  /** CWEs some rule of ours can report in a language (for the in-scope figure). */
  scope?: (language: string) => ReadonlySet<number>;
}

/** Each label with the findings that match it. */
export function scorePeerLabels(
  labels: readonly PeerLabel[],
  findings: readonly PeerFinding[],
  opts: PeerScoreOptions = {},
): LabelOutcome[] {
  const byFile = new Map<string, PeerFinding[]>();
  for (const f of findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  return labels.map((label) => {
    if (!isScored(label)) return { label, unscored: true, inScope: false, matches: [] };
    const accepted = labelAccepted(label);
    const slack = opts.lineSlack?.(label.source) ?? 0;
    const matches = (byFile.get(label.file) ?? []).filter((f) => matchesLabel(label, f, slack, accepted));
    const scope = opts.scope?.(label.language);
    const inScope = isAnyFindingLabel(label) || (scope ? [...accepted].some((c) => scope.has(c)) : true);
    return { label, unscored: false, inScope, matches };
  });
}

export interface PeerCounts {
  vulnerable: number;
  found: number;
  safe: number;
  falseAlarms: number;
  /** Vulnerable labels whose CWE some rule of ours can report in the language, and those found. */
  inScopeVulnerable: number;
  inScopeFound: number;
  /** Labels without a CWE (not scored). */
  unscored: number;
  recall: number;
  inScopeRecall: number;
  falseAlarmRate: number;
}

const rate = (n: number, d: number): number => (d > 0 ? n / d : 0);

export function emptyCounts(): PeerCounts {
  return {
    vulnerable: 0,
    found: 0,
    safe: 0,
    falseAlarms: 0,
    inScopeVulnerable: 0,
    inScopeFound: 0,
    unscored: 0,
    recall: 0,
    inScopeRecall: 0,
    falseAlarmRate: 0,
  };
}

/** Recomputes the rates from the counts. */
export function withRates(c: PeerCounts): PeerCounts {
  return {
    ...c,
    recall: rate(c.found, c.vulnerable),
    inScopeRecall: rate(c.inScopeFound, c.inScopeVulnerable),
    falseAlarmRate: rate(c.falseAlarms, c.safe),
  };
}

/** Counts of a set of outcomes. */
export function countOutcomes(outcomes: readonly LabelOutcome[]): PeerCounts {
  const c = emptyCounts();
  for (const o of outcomes) {
    if (o.unscored) {
      c.unscored++;
      continue;
    }
    const hit = o.matches.length > 0;
    if (o.label.vulnerable) {
      c.vulnerable++;
      if (hit) c.found++;
      if (o.inScope) {
        c.inScopeVulnerable++;
        if (hit) c.inScopeFound++;
      }
    } else {
      c.safe++;
      if (hit) c.falseAlarms++;
    }
  }
  return withRates(c);
}

/** Sum of counts (pooled), rates recomputed. */
export function addCounts(parts: readonly PeerCounts[]): PeerCounts {
  const c = emptyCounts();
  for (const p of parts) {
    c.vulnerable += p.vulnerable;
    c.found += p.found;
    c.safe += p.safe;
    c.falseAlarms += p.falseAlarms;
    c.inScopeVulnerable += p.inScopeVulnerable;
    c.inScopeFound += p.inScopeFound;
    c.unscored += p.unscored;
  }
  return withRates(c);
}

/** Outcomes grouped by `key`, counted, keys sorted. */
export function countBy(outcomes: readonly LabelOutcome[], key: (o: LabelOutcome) => string): Record<string, PeerCounts> {
  const groups = new Map<string, LabelOutcome[]>();
  for (const o of outcomes) {
    const k = key(o);
    groups.set(k, [...(groups.get(k) ?? []), o]);
  }
  return Object.fromEntries([...groups.keys()].sort().map((k) => [k, countOutcomes(groups.get(k) ?? [])]));
}

/** Kind group for the report: method and class labels together. */
export function kindGroup(l: PeerLabel): string {
  return l.kind === "method" || l.kind === "class" ? "method/class" : l.kind;
}

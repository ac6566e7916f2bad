/**
 * Our own labeled suites for the taint analysis (taint-cases/python, taint-cases/javascript):
 * small web handlers written as vulnerable / safe twins. Each file is one case. Its first line
 * is the label, `# ax-bench: vulnerable CWE-89 — <description>` (`//` in JS/TS), and exactly
 * one line, the sink call, ends with the comment `ax-bench: sink`.
 *
 * Scoring is per file: a vulnerable case is a true positive when any counted finding in its
 * file has a CWE accepted for the case's CWE (the Juliet relation from cwe.ts: itself, a
 * direct parent or a direct child), a safe case is a false positive likewise.
 * TPR = flagged vulnerable / vulnerable, FPR = flagged safe / safe, score = TPR − FPR.
 */
import { readdir, readFile } from "node:fs/promises";
import { extname, join, posix, relative, sep } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { acceptedCwes, cweName, cweNumber } from "./cwe";
import type { ScoredFinding } from "./juliet";

export type CaseLanguage = "python" | "javascript" | "typescript";

export interface LabeledCase {
  /** Relative to the loaded directory, `/`-separated: what a scan of that directory reports. */
  file: string;
  language: CaseLanguage;
  cwe: number;
  vulnerable: boolean;
  description: string;
  /** 1-based line carrying the `ax-bench: sink` comment. */
  sinkLine: number;
}

export const SINK_MARKER = "ax-bench: sink";

const SYNTAX: Readonly<Record<string, { comment: string; language: CaseLanguage }>> = {
  ".py": { comment: "#", language: "python" },
  ".js": { comment: "//", language: "javascript" },
  ".mjs": { comment: "//", language: "javascript" },
  ".cjs": { comment: "//", language: "javascript" },
  ".jsx": { comment: "//", language: "javascript" },
  ".ts": { comment: "//", language: "typescript" },
  ".mts": { comment: "//", language: "typescript" },
  ".cts": { comment: "//", language: "typescript" },
  ".tsx": { comment: "//", language: "typescript" },
};

const HEADER = /^(#|\/\/) ax-bench: (vulnerable|safe) CWE-(\d+) — (\S.*)$/;

/** Parses one case file; `file` only names it in errors and in the result. */
export function parseLabeledCase(file: string, text: string): LabeledCase {
  const syntax = SYNTAX[extname(file).toLowerCase()];
  if (!syntax)
    throw new Error(
      `${file}: not a case file (no comment syntax known for "${extname(file) || file}"); expected one of ${Object.keys(SYNTAX).join(", ")}`,
    );
  const lines = text.split(/\r?\n/);
  const first = lines[0] ?? "";
  const header = HEADER.exec(first);
  if (!header || header[1] !== syntax.comment) {
    throw new Error(
      `${file}: line 1 must be the header "${syntax.comment} ax-bench: vulnerable|safe CWE-<n> — ` +
        `<description>" (with an em dash), found ${JSON.stringify(first.slice(0, 120))}`,
    );
  }
  const marked = lines.flatMap((line, i) => (line.includes(SINK_MARKER) ? [i + 1] : []));
  if (marked.length !== 1) {
    throw new Error(
      `${file}: expected exactly one line with the comment "${SINK_MARKER}", found ${marked.length}${marked.length > 0 ? ` (lines ${marked.join(", ")})` : ""}`,
    );
  }
  const sinkLine = marked[0] ?? 0;
  // The marker labels a call; a comment on a line of its own would point at nothing.
  const trailing = new RegExp(`^\\s*\\S.*${syntax.comment}\\s*${SINK_MARKER}\\s*$`);
  if (!trailing.test(lines[sinkLine - 1] ?? "")) {
    throw new Error(`${file}:${sinkLine}: "${SINK_MARKER}" must be a trailing ${syntax.comment} comment on the line of the sink call`);
  }
  return {
    file,
    language: syntax.language,
    cwe: Number(header[3]),
    vulnerable: header[2] === "vulnerable",
    description: (header[4] ?? "").trim(),
    sinkLine,
  };
}

/** Every file under `dir` (recursively) as a case, sorted by path; throws on any file that is not one. */
export async function loadLabeledCases(dir: string): Promise<LabeledCase[]> {
  const files: string[] = [];
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  await walk(dir);
  const cases: LabeledCase[] = [];
  for (const full of files.sort()) {
    const rel = relative(dir, full).split(sep).join(posix.sep);
    cases.push(parseLabeledCase(rel, await readFile(full, "utf8")));
  }
  return cases.sort((a, b) => a.file.localeCompare(b.file));
}

/** A finding the scorer can use: NormalizedFinding fits; `end_line` widens the sink-line check. */
export type LabeledFinding = ScoredFinding & { end_line?: number };

export interface LabeledOptions<F extends LabeledFinding = NormalizedFinding> {
  /** Which findings count (e.g. `(f) => f.confidence !== "LOW"`); default all. */
  counts?: (f: F) => boolean;
  /** Override of the accepted-CWE relation (default acceptedCwes, as the Juliet scoring). */
  accepted?: (cwe: number) => number[];
}

export interface LabeledRow {
  cwe: number;
  name: string;
  /** CWEs whose findings count for this row. */
  accepted: number[];
  vulnerable: number;
  safe: number;
  tp: number;
  /** Of the true positives, those with an accepted finding whose lines cover the sink line. */
  tpAtSink: number;
  fp: number;
  tpr: number;
  fpr: number;
  score: number;
  detected: string[];
  missed: string[];
  flaggedSafe: string[];
  /** "analyzer:rule" → vulnerable / safe cases it flagged with an accepted CWE. */
  rules: Record<string, { tp: number; fp: number }>;
  /** Findings of CWEs not accepted here (not scored): CWE → vulnerable / safe cases they are in. */
  otherCwes: Record<string, { vulnerable: number; safe: number }>;
}

export interface LabeledMean {
  cwes: number;
  vulnerable: number;
  safe: number;
  tp: number;
  tpAtSink: number;
  fp: number;
  /** Macro averages: each CWE weighs the same. */
  tpr: number;
  fpr: number;
  score: number;
  /** Over all cases at once (micro average). */
  pooled: { tpr: number; fpr: number; score: number };
}

export interface LabeledScore {
  rows: LabeledRow[];
  mean: LabeledMean;
  /** Counted findings in no case's file: usually a scan rooted somewhere other than the loaded dir. */
  unmatchedFindings: number;
}

/** The findings `counts` keeps (all when it is absent). */
export function filterFindings<F extends LabeledFinding>(findings: readonly F[], counts?: (f: F) => boolean): F[] {
  return counts ? findings.filter((f) => counts(f)) : [...findings];
}

function sourcesOf(f: LabeledFinding): string[] {
  return f.sources && f.sources.length > 0 ? f.sources.map((s) => `${s.analyzer}:${s.rule_id}`) : [`${f.analyzer}:${f.rule_id}`];
}

function covers(f: LabeledFinding, line: number): boolean {
  return f.start_line <= line && line <= Math.max(f.start_line, f.end_line ?? f.start_line);
}

const rate = (n: number, d: number): number => (d > 0 ? n / d : 0);

function emptyRow(cwe: number, accepted: number[]): LabeledRow {
  return {
    cwe,
    name: cweName(cwe),
    accepted,
    vulnerable: 0,
    safe: 0,
    tp: 0,
    tpAtSink: 0,
    fp: 0,
    tpr: 0,
    fpr: 0,
    score: 0,
    detected: [],
    missed: [],
    flaggedSafe: [],
    rules: {},
    otherCwes: {},
  };
}

/** Counts one case into its CWE's row, from the findings in its file. */
function countCase(row: LabeledRow, c: LabeledCase, inFile: readonly LabeledFinding[]): void {
  const hits = inFile.filter((f) => {
    const cwe = cweNumber(f.cwe_id);
    return cwe !== null && row.accepted.includes(cwe);
  });
  const others = new Set(inFile.filter((f) => !hits.includes(f)).map((f) => f.cwe_id ?? "no CWE"));
  for (const cwe of others) {
    const stat = (row.otherCwes[cwe] ??= { vulnerable: 0, safe: 0 });
    if (c.vulnerable) stat.vulnerable++;
    else stat.safe++;
  }
  const ruleIds = new Set(hits.flatMap(sourcesOf));
  for (const id of ruleIds) {
    const stat = (row.rules[id] ??= { tp: 0, fp: 0 });
    if (c.vulnerable) stat.tp++;
    else stat.fp++;
  }
  if (c.vulnerable) {
    row.vulnerable++;
    if (hits.length > 0) {
      row.tp++;
      row.detected.push(c.file);
      if (hits.some((f) => covers(f, c.sinkLine))) row.tpAtSink++;
    } else row.missed.push(c.file);
  } else {
    row.safe++;
    if (hits.length > 0) {
      row.fp++;
      row.flaggedSafe.push(c.file);
    }
  }
}

export function scoreLabeled<F extends LabeledFinding = NormalizedFinding>(
  cases: readonly LabeledCase[],
  findings: readonly F[],
  opts: LabeledOptions<F> = {},
): LabeledScore {
  const accepted = opts.accepted ?? acceptedCwes;
  const byFile = new Map<string, F[]>();
  const caseFiles = new Set(cases.map((c) => c.file));
  let unmatchedFindings = 0;
  for (const f of filterFindings(findings, opts.counts)) {
    if (!caseFiles.has(f.file)) {
      unmatchedFindings++;
      continue;
    }
    byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  }

  const rows = new Map<number, LabeledRow>();
  for (const c of cases) {
    const row = rows.get(c.cwe) ?? emptyRow(c.cwe, accepted(c.cwe));
    rows.set(c.cwe, row);
    countCase(row, c, byFile.get(c.file) ?? []);
  }

  const sorted = [...rows.values()].sort((a, b) => a.cwe - b.cwe);
  for (const r of sorted) {
    r.tpr = rate(r.tp, r.vulnerable);
    r.fpr = rate(r.fp, r.safe);
    r.score = r.tpr - r.fpr;
  }
  const n = sorted.length;
  const sum = (pick: (r: LabeledRow) => number): number => sorted.reduce((s, r) => s + pick(r), 0);
  const vulnerable = sum((r) => r.vulnerable);
  const safe = sum((r) => r.safe);
  const tp = sum((r) => r.tp);
  const fp = sum((r) => r.fp);
  const mean: LabeledMean = {
    cwes: n,
    vulnerable,
    safe,
    tp,
    tpAtSink: sum((r) => r.tpAtSink),
    fp,
    tpr: rate(
      sum((r) => r.tpr),
      n,
    ),
    fpr: rate(
      sum((r) => r.fpr),
      n,
    ),
    score: rate(
      sum((r) => r.score),
      n,
    ),
    pooled: { tpr: rate(tp, vulnerable), fpr: rate(fp, safe), score: rate(tp, vulnerable) - rate(fp, safe) },
  };
  return { rows: sorted, mean, unmatchedFindings };
}

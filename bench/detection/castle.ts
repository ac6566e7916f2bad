/**
 * CASTLE C250 scoring. A vulnerable program is detected when a finding's line range covers
 * one of its labeled flaw lines (the looser "any finding in the file" figure is reported
 * too); every safe program with a finding is a false positive. Findings are not filtered by
 * CWE: CASTLE labels one CWE per program and its published tool figures count any report.
 */
import type { CastleTest } from "./datasets";
import type { ScoredFinding } from "./juliet";

export interface CastleFinding extends ScoredFinding {
  end_line: number;
}

export interface CastleCounts {
  vulnerable: number;
  safe: number;
  /** Vulnerable programs with a finding on a flaw line. */
  tp: number;
  /** Vulnerable programs with any finding. */
  tpAnyLine: number;
  /** Safe programs with any finding. */
  fp: number;
  /** Findings in safe programs. */
  fpFindings: number;
  /** Findings in all programs. */
  findings: number;
}

export interface CastleResult extends CastleCounts {
  /** CASTLE's CWE → counts. */
  perCwe: Record<string, CastleCounts>;
  /** analyzer → counts from that analyzer's findings alone (within the same run). */
  perAnalyzer: Record<string, CastleCounts>;
  /** "analyzer:rule" → programs it detected (flaw line) and safe programs it flagged. */
  perRule: Record<string, { tp: number; fp: number }>;
  /** Names of the detected vulnerable programs. */
  detected: string[];
  /** Names of the flagged safe programs. */
  flaggedSafe: string[];
}

/** Every analyzer and rule that reported a (possibly merged) finding. */
function sourcesOf(f: CastleFinding): { analyzer: string; rule_id: string }[] {
  return f.sources?.length ? f.sources : [{ analyzer: f.analyzer, rule_id: f.rule_id }];
}

const empty = (): CastleCounts => ({ vulnerable: 0, safe: 0, tp: 0, tpAnyLine: 0, fp: 0, fpFindings: 0, findings: 0 });

function count(
  tests: readonly CastleTest[],
  findings: readonly CastleFinding[],
): CastleCounts & { detected: string[]; flaggedSafe: string[] } {
  const byFile = new Map<string, CastleFinding[]>();
  for (const f of findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const c = { ...empty(), detected: [] as string[], flaggedSafe: [] as string[] };
  for (const t of tests) {
    const inFile = byFile.get(t.name) ?? [];
    c.findings += inFile.length;
    if (t.vulnerable) {
      c.vulnerable++;
      if (inFile.length > 0) c.tpAnyLine++;
      const onFlaw = inFile.some((f) => t.lines.some((line) => f.start_line <= line && line <= Math.max(f.start_line, f.end_line)));
      if (onFlaw) {
        c.tp++;
        c.detected.push(t.name);
      }
    } else {
      c.safe++;
      c.fpFindings += inFile.length;
      if (inFile.length > 0) {
        c.fp++;
        c.flaggedSafe.push(t.name);
      }
    }
  }
  return c;
}

/** `findings` paths are relative to the folder the programs were written to (just the file name). */
export function scoreCastle(tests: readonly CastleTest[], findings: readonly CastleFinding[]): CastleResult {
  const { detected, flaggedSafe, ...total } = count(tests, findings);
  const perCwe: Record<string, CastleCounts> = {};
  for (const cwe of [...new Set(tests.map((t) => t.cwe))].sort((a, b) => a - b)) {
    const {
      detected: _d,
      flaggedSafe: _f,
      ...c
    } = count(
      tests.filter((t) => t.cwe === cwe),
      findings,
    );
    perCwe[`CWE-${cwe}`] = c;
  }
  const perAnalyzer: Record<string, CastleCounts> = {};
  const names = new Set<string>();
  for (const f of findings) for (const s of sourcesOf(f)) names.add(s.analyzer);
  for (const name of [...names].sort()) {
    const own = findings.filter((f) => sourcesOf(f).some((s) => s.analyzer === name));
    const { detected: _d, flaggedSafe: _f, ...c } = count(tests, own);
    perAnalyzer[name] = c;
  }
  const perRule: Record<string, { tp: number; fp: number }> = {};
  const ruleIds = new Set<string>();
  for (const f of findings) for (const s of sourcesOf(f)) ruleIds.add(`${s.analyzer}:${s.rule_id}`);
  for (const id of [...ruleIds].sort()) {
    const own = findings.filter((f) => sourcesOf(f).some((s) => `${s.analyzer}:${s.rule_id}` === id));
    const c = count(tests, own);
    perRule[id] = { tp: c.tp, fp: c.fp };
  }
  return { ...total, perCwe, perAnalyzer, perRule, detected, flaggedSafe };
}

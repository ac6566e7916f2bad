/**
 * Juliet scoring at function granularity. A Juliet test case (e.g.
 * CWE78_OS_Command_Injection__Environment_51, files 51a.java and 51b.java) has one bad flow —
 * `bad()` and the helpers it reaches, all named `bad*` (`badSink`, `badSource`, …) — and one
 * or more good flows, `goodG2B`, `goodB2G`, `good1`, `goodG2B2`, … each with helpers named
 * after it (`goodG2BSink`, `goodB2G1Source`, …). Each flow is one scored function: a finding
 * of the test case's CWE inside any method of the bad flow makes it a true positive, one
 * inside a method of a good flow makes that good flow a false positive. `good()` itself only
 * calls the good flows and is not a unit of its own (unless a test case has nothing else).
 * TPR = flagged bad flows / bad flows, FPR = flagged good flows / good flows, score = TPR − FPR.
 */
import { posix } from "node:path";
import { acceptedCwes, cweNumber, scopeCwes } from "./cwe";
import { enclosing, type Declaration, type DeclarationIndex, type SourceLanguage } from "./functions";

/** The part of a finding the scorer needs (a NormalizedFinding fits). */
export interface ScoredFinding {
  analyzer: string;
  rule_id: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  sources?: { analyzer: string; rule_id: string }[];
}

export interface CweFolder {
  /** e.g. "CWE78_OS_Command_Injection" */
  folder: string;
  cwe: number;
  /** Juliet's label, e.g. "OS Command Injection". */
  label: string;
}

export interface CweResult {
  cwe: number;
  folder: string;
  label: string;
  /** CWEs whose findings count for this folder. */
  accepted: number[];
  inScope: boolean;
  testCases: number;
  bad: number;
  good: number;
  tp: number;
  fp: number;
  tpr: number;
  fpr: number;
  score: number;
  /** Findings in bad/good flows whose CWE is not accepted here (reported, not scored). */
  otherCweFindings: number;
  /** Those findings' CWEs → bad / good functions they fall in. */
  otherCwes: Record<string, { bad: number; good: number }>;
  /** rule id → flagged bad / good flows. */
  rules: Record<string, { tp: number; fp: number }>;
}

export interface Averages {
  cwes: number;
  tpr: number;
  fpr: number;
  score: number;
  /** Pooled over all functions of the CWEs (micro average). */
  pooled: { bad: number; good: number; tp: number; fp: number; tpr: number; fpr: number; score: number };
}

/** "CWE78_OS_Command_Injection" → {cwe: 78, label: "OS Command Injection"}. */
export function parseCweFolder(folder: string): CweFolder | null {
  const m = /^CWE(\d+)_(.+)$/.exec(folder);
  return m ? { folder, cwe: Number(m[1]), label: (m[2] ?? "").replace(/_/g, " ") } : null;
}

/**
 * The test case a file belongs to: `..._01.java`, `..._51a.java`, `..._81_bad.java`,
 * `..._81_goodG2B.java` → `..._01`, `..._51`, `..._81`. Null for support files (Main.java).
 */
export function testCaseOf(path: string): string | null {
  const base = posix.basename(path).replace(/\.(java|c|cpp|h)$/i, "");
  const m = /^(CWE\d+_.*_\d+)(?:[a-e]|_bad|_base|_good\w*)?$/.exec(base);
  return m?.[1] ?? null;
}

/** The CWE folder a path is in (the first path segment that looks like one). */
export function folderOf(path: string): CweFolder | null {
  for (const segment of path.split("/")) {
    const folder = parseCweFolder(segment);
    if (folder) return folder;
  }
  return null;
}

export type Flow = string;
const DISPATCHER = "good";

/**
 * The flow a function name belongs to, or null. Java names are plain (`badSink`,
 * `goodG2B1Source`, `helperBad`); C names carry the test case as prefix
 * (`CWE121_..._01_bad`, `CWE121_..._52b_goodG2BSink`) or a class (`CWE..._81_bad::action`).
 */
export function flowOfName(name: string, language: SourceLanguage): Flow | null {
  let simple = name;
  if (language === "c") {
    simple = name.split("::").pop() ?? name;
    const m = /(?:^|_)((?:bad|good|helperBad|helperGood)[A-Za-z0-9]*)$/.exec(simple);
    if (!m) return null;
    simple = m[1] ?? simple;
  }
  if (/^bad/.test(simple) || /^helper\w*Bad/.test(simple)) return "bad";
  const helper = /^helper\w*Good(\d*)/.exec(simple);
  if (helper) return `good${helper[1] ?? ""}`;
  const good = /^good((?:G2B|B2G)?\d*)/.exec(simple);
  if (good) return `good${good[1] ?? ""}`;
  return null;
}

/** The flow of a class named like `..._81_bad` / `..._81_goodG2B` (Juliet's abstract-class variant). */
export function flowOfClass(name: string): Flow | null {
  const m = /_(bad|good(?:G2B|B2G)?\d*)$/.exec(name.split("::")[0] ?? name);
  if (!m) return null;
  return m[1] === "bad" ? "bad" : (m[1] ?? null);
}

/** The flow enclosing a line: the innermost function with a bad/good name, else a bad/good class. */
export function flowAt(decls: readonly Declaration[] | undefined, line: number, language: SourceLanguage): Flow | null {
  const around = enclosing(decls, line);
  for (const d of around) {
    if (d.kind !== "function") continue;
    const flow = flowOfName(d.name, language);
    if (flow) return flow;
    // C++ `X_81_bad::action`: the class is in the qualified name.
    if (language === "c" && d.name.includes("::")) {
      const fromScope = flowOfClass(d.name);
      if (fromScope) return fromScope;
    }
  }
  for (const d of around) {
    if (d.kind !== "class") continue;
    const flow = flowOfClass(d.name);
    if (flow) return flow;
  }
  return null;
}

interface TestCaseUnits {
  folder: CweFolder;
  flows: Set<Flow>;
  hasDispatcher: boolean;
}

/** Every test case and its flows, from the declaration index. */
export function collectUnits(index: DeclarationIndex, language: SourceLanguage): Map<string, TestCaseUnits> {
  const cases = new Map<string, TestCaseUnits>();
  for (const [file, decls] of index) {
    const folder = folderOf(file);
    const testCase = testCaseOf(file);
    if (!folder || !testCase) continue;
    const key = `${folder.folder}/${testCase}`;
    let unit = cases.get(key);
    if (!unit) {
      unit = { folder, flows: new Set(), hasDispatcher: false };
      cases.set(key, unit);
    }
    for (const d of decls) {
      if (d.kind === "function") {
        // Functions inside a bad/good class (81 variants) belong to that class's flow.
        const flow = flowAt(decls, d.startLine, language);
        if (flow === DISPATCHER && isDispatcherName(d.name, language)) unit.hasDispatcher = true;
        else if (flow) unit.flows.add(flow);
      }
    }
  }
  for (const unit of cases.values()) {
    const hasGood = [...unit.flows].some((f) => f.startsWith("good"));
    if (unit.hasDispatcher && !hasGood) unit.flows.add(DISPATCHER);
  }
  return cases;
}

function isDispatcherName(name: string, language: SourceLanguage): boolean {
  const simple = language === "c" ? (name.split("::").pop() ?? name) : name;
  return simple === "good" || (language === "c" && /_good$/.test(simple));
}

export interface ScoreOptions {
  language: SourceLanguage;
  /** CWEs the analyzers can report: a folder is in scope when one of them is its CWE or a direct parent. */
  coveredCwes: ReadonlySet<number>;
  /** Override of the accepted-CWE relation (default: acceptedCwes). */
  accepted?: (cwe: number) => number[];
}

/** Scores findings against the test cases in `index`, one row per CWE folder. */
export function scoreJuliet(index: DeclarationIndex, findings: readonly ScoredFinding[], opts: ScoreOptions): CweResult[] {
  const accepted = opts.accepted ?? acceptedCwes;
  const cases = collectUnits(index, opts.language);
  const rows = new Map<string, CweResult>();
  const flagged = new Map<string, Set<string>>(); // unit key → rule ids
  const otherFlagged = new Map<string, Set<string>>(); // "folder\0CWE-n" → unit keys
  const row = (folder: CweFolder): CweResult => {
    let r = rows.get(folder.folder);
    if (!r) {
      r = emptyRow(folder, accepted(folder.cwe), opts.coveredCwes);
      rows.set(folder.folder, r);
    }
    return r;
  };

  for (const f of findings) {
    const folder = folderOf(f.file);
    const testCase = testCaseOf(f.file);
    if (!folder || !testCase) continue;
    const flow = flowAt(index.get(f.file), f.start_line, opts.language);
    if (!flow) continue;
    const r = row(folder);
    const cwe = cweNumber(f.cwe_id);
    if (cwe === null || !r.accepted.includes(cwe)) {
      r.otherCweFindings++;
      const k = `${folder.folder}\0${cwe === null ? "no CWE" : `CWE-${cwe}`}`;
      otherFlagged.set(k, (otherFlagged.get(k) ?? new Set<string>()).add(`${testCase}#${flow}`));
      continue;
    }
    const key = `${folder.folder}/${testCase}#${flow}`;
    const set = flagged.get(key) ?? new Set<string>();
    const ruleIds = f.sources && f.sources.length > 0 ? f.sources.map((s) => `${s.analyzer}:${s.rule_id}`) : [`${f.analyzer}:${f.rule_id}`];
    for (const id of ruleIds) set.add(id);
    flagged.set(key, set);
    // A finding in a flow the declaration pass did not list (e.g. a lone good()) still counts.
    const unit = cases.get(`${folder.folder}/${testCase}`);
    if (unit) unit.flows.add(flow);
    else cases.set(`${folder.folder}/${testCase}`, { folder, flows: new Set([flow]), hasDispatcher: false });
  }

  for (const [caseKey, unit] of cases) countUnit(row(unit.folder), caseKey, unit, flagged);
  for (const [k, units] of otherFlagged) {
    const [folder, cwe] = k.split("\0") as [string, string];
    const r = rows.get(folder);
    if (!r) continue;
    const bad = [...units].filter((u) => u.endsWith("#bad")).length;
    r.otherCwes[cwe] = { bad, good: units.size - bad };
  }
  for (const r of rows.values()) {
    r.tpr = r.bad > 0 ? r.tp / r.bad : 0;
    r.fpr = r.good > 0 ? r.fp / r.good : 0;
    r.score = r.tpr - r.fpr;
  }
  return [...rows.values()].sort((a, b) => a.cwe - b.cwe || a.folder.localeCompare(b.folder));
}

function emptyRow(folder: CweFolder, accepted: number[], coveredCwes: ReadonlySet<number>): CweResult {
  return {
    cwe: folder.cwe,
    folder: folder.folder,
    label: folder.label,
    accepted,
    inScope: scopeCwes(folder.cwe).some((c) => coveredCwes.has(c)),
    testCases: 0,
    bad: 0,
    good: 0,
    tp: 0,
    fp: 0,
    tpr: 0,
    fpr: 0,
    score: 0,
    otherCweFindings: 0,
    otherCwes: {},
    rules: {},
  };
}

/** Counts a test case's flows into its CWE's row: bad and good functions, and those flagged (per rule too). */
function countUnit(r: CweResult, caseKey: string, unit: TestCaseUnits, flagged: ReadonlyMap<string, ReadonlySet<string>>): void {
  r.testCases++;
  for (const flow of unit.flows) {
    const isBad = flow === "bad";
    if (isBad) r.bad++;
    else r.good++;
    const hits = flagged.get(`${caseKey}#${flow}`);
    if (!hits) continue;
    if (isBad) r.tp++;
    else r.fp++;
    for (const id of hits) {
      const stat = (r.rules[id] ??= { tp: 0, fp: 0 });
      if (isBad) stat.tp++;
      else stat.fp++;
    }
  }
}

/** Macro averages over the rows (each CWE weighs the same) and pooled figures. */
export function average(rows: readonly CweResult[]): Averages {
  const n = rows.length;
  const mean = (pick: (r: CweResult) => number): number => (n > 0 ? rows.reduce((s, r) => s + pick(r), 0) / n : 0);
  const sum = (pick: (r: CweResult) => number): number => rows.reduce((s, r) => s + pick(r), 0);
  const bad = sum((r) => r.bad);
  const good = sum((r) => r.good);
  const tp = sum((r) => r.tp);
  const fp = sum((r) => r.fp);
  const tpr = bad > 0 ? tp / bad : 0;
  const fpr = good > 0 ? fp / good : 0;
  return {
    cwes: n,
    tpr: mean((r) => r.tpr),
    fpr: mean((r) => r.fpr),
    score: mean((r) => r.score),
    pooled: { bad, good, tp, fp, tpr, fpr, score: tpr - fpr },
  };
}

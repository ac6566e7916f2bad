/**
 * The three measurements: Juliet Java 1.2 and Juliet C/C++ 1.3 at function granularity, and
 * CASTLE C250 at flaw-line granularity. Each unpacks its dataset, scans it with the product's
 * runAnalyzers (scan.ts), and scores the findings.
 */
import { createHash } from "node:crypto";
import type { AppResult } from "./apps-suite";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join, posix, relative, sep } from "node:path";
import type { AnalyzerRun } from "@ax/contracts";
import type { RuleMeta } from "@ax/rules";
import { JAVA_SPEC } from "@ax/dataflow";
import { DATAFLOW } from "@ax/scanner";
import type { LabeledSuiteResult } from "./labeled-suite";
import type { PeerSuiteResult } from "./peer-suite";
import { cppcheckCatalog, flawfinderCatalog, type ToolCatalog } from "./c-scope";
import { scoreCastle, type CastleResult } from "./castle";
import { cweNumber } from "./cwe";
import {
  CASTLE_FILE,
  JULIET_C_ARCHIVE,
  JULIET_JAVA_ARCHIVE,
  loadCastle,
  sha256File,
  unpack,
  writeCastle,
  type CastleTest,
} from "./datasets";
import { indexDeclarations, type DeclarationIndex } from "./functions";
import { average, parseCweFolder, scoreJuliet, testCaseOf, type Averages, type CweResult } from "./juliet";
import { registryNames, scanTree, type ScanResult } from "./scan";

export interface DatasetInfo {
  file: string;
  sha256: string;
  version: string;
}

export interface JulietSuiteResult {
  dataset: DatasetInfo;
  /** How the test cases were chosen (all, or the sample rule). */
  selection: string;
  files: number;
  analyzers: AnalyzerRun[];
  /** Rule CWEs (Java) or tool catalog CWEs (C) that define the scope. */
  coveredCwes: number[];
  catalogs?: ToolCatalog[];
  /** CWE → rule ids (Java) whose CWE is accepted for it. */
  rulesFor?: Record<string, string[]>;
  rows: CweResult[];
  inScope: Averages;
  all: Averages;
  /**
   * Java: the same scan scored as the pattern rules alone report it (every finding of the
   * other analyzers, whatever the taint analysis said), for the before/after table.
   */
  patternOnly?: { rows: CweResult[]; inScope: Averages };
  findings: number;
  scanMs: number;
  indexMs: number;
  totalMs: number;
}

export interface CastleSuiteResult {
  dataset: DatasetInfo;
  programs: number;
  full: { analyzers: AnalyzerRun[]; result: CastleResult; scanMs: number };
  cppcheckAlone: { analyzers: AnalyzerRun[]; result: CastleResult; scanMs: number } | null;
  registry: string[];
  totalMs: number;
}

export interface BenchReport {
  generatedAt: string;
  command: string;
  rulePackVersion: string;
  node: string;
  platform: string;
  runtimeMs: number;
  java: JulietSuiteResult | null;
  castle: CastleSuiteResult | null;
  julietC: JulietSuiteResult | null;
  /** Our labeled Python and JavaScript handlers (labeled-suite.ts). */
  labeled?: LabeledSuiteResult[] | null;
  /** Other analyzers' labelled test samples (peer-suite.ts); find-sec-bugs held out. */
  peer?: PeerSuiteResult | null;
  /** Our small labelled applications (apps-suite.ts). */
  apps?: AppResult[] | null;
  /** The held-out labelled applications (apps-held/), counts only. */
  appsHeld?: AppResult[] | null;
}

type Log = (message: string) => void;

/**
 * What a suite scanned, for callers that reuse the scan (the review model's training data,
 * training/review/derive.ts): the tree, the findings and, for Juliet, the declaration index.
 */
export interface ScannedTree {
  root: string;
  findings: ScanResult["findings"];
  index?: DeclarationIndex;
  castle?: CastleTest[];
}

export type OnScanned = (tree: ScannedTree) => Promise<void>;

async function datasetInfo(path: string, version: string): Promise<DatasetInfo> {
  return { file: basename(path), sha256: await sha256File(path), version };
}

async function listFiles(root: string, keep: (rel: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const rel = relative(root, full).split(sep).join(posix.sep);
        if (keep(rel)) out.push(rel);
      }
    }
  };
  await walk(root);
  return out.sort();
}

/** Removes the CWE folders of `testcases` not in `cwes` (partial runs while tuning). */
async function keepOnlyCwes(testcases: string, cwes: number[] | null): Promise<void> {
  if (!cwes) return;
  for (const entry of await readdir(testcases, { withFileTypes: true })) {
    const folder = parseCweFolder(entry.name);
    if (entry.isDirectory() && (!folder || !cwes.includes(folder.cwe)))
      await rm(join(testcases, entry.name), { recursive: true, force: true });
  }
}

function summarize(rows: CweResult[]): { inScope: Averages; all: Averages } {
  return { inScope: average(rows.filter((r) => r.inScope)), all: average(rows) };
}

function logRuns(log: Log, runs: AnalyzerRun[]): void {
  for (const r of runs)
    log(
      `  ${r.name} ${r.version ?? "-"}: ${r.status}${r.notice ? ` (${r.notice})` : ""}, ${r.findings} findings, ${(r.duration_ms / 1000).toFixed(1)} s`,
    );
}

export async function runJulietJava(opts: {
  datasets: string;
  scratch: string;
  rules: RuleMeta[];
  cwes: number[] | null;
  log: Log;
  onScanned?: OnScanned;
}): Promise<JulietSuiteResult> {
  const started = performance.now();
  const archive = join(opts.datasets, JULIET_JAVA_ARCHIVE);
  const dest = join(opts.scratch, "juliet-java");
  opts.log(`Juliet Java: unpacking ${JULIET_JAVA_ARCHIVE}`);
  await unpack(archive, dest);
  const root = join(dest, "src");
  await keepOnlyCwes(join(root, "testcases"), opts.cwes);
  const files = await listFiles(root, (rel) => rel.endsWith(".java"));

  opts.log(`Juliet Java: scanning ${files.length} files with ${registryNames().join(", ")}`);
  const scan = await scanTree(root);
  logRuns(opts.log, scan.analyzers);
  const indexStart = performance.now();
  const index = await indexDeclarations(root, "java");
  const indexMs = Math.round(performance.now() - indexStart);
  await opts.onScanned?.({ root, findings: scan.findings, index });

  const covered = new Set(opts.rules.map((r) => cweNumber(r.cwe)).filter((n): n is number => n !== null));
  for (const sink of JAVA_SPEC.sinks) covered.add(cweNumber(sink.cwe) ?? -1);
  // What a scan reports by default: everything but the pattern findings the taint analysis
  // found no path to (those stay, at LOW confidence, labelled unconfirmed).
  const rows = scoreJuliet(
    index,
    scan.findings.filter((f) => f.dataflow?.status !== "unconfirmed"),
    { language: "java", coveredCwes: covered },
  );
  const patternRows = scoreJuliet(
    index,
    scan.findings.filter((f) => f.analyzer !== DATAFLOW),
    { language: "java", coveredCwes: covered },
  );
  const rulesFor: Record<string, string[]> = {};
  for (const row of rows) {
    const ids = opts.rules
      .filter((r) => row.accepted.includes(cweNumber(r.cwe) ?? -1))
      .map((r) => r.id)
      .sort();
    if (ids.length > 0) rulesFor[`CWE-${row.cwe}`] = ids;
  }
  return {
    dataset: await datasetInfo(archive, "Juliet Test Suite for Java 1.2 (NIST SARD)"),
    selection: opts.cwes ? `CWE folders ${opts.cwes.join(", ")} only` : "all test cases",
    files: files.length,
    analyzers: scan.analyzers,
    coveredCwes: [...covered].sort((a, b) => a - b),
    rulesFor,
    rows,
    ...summarize(rows),
    patternOnly: { rows: patternRows, inScope: summarize(patternRows).inScope },
    findings: scan.findings.length,
    scanMs: scan.durationMs,
    indexMs,
    totalMs: Math.round(performance.now() - started),
  };
}

/** Rank of a test case in the deterministic sample: sha256 of its id. */
export function sampleRank(testCase: string): string {
  return createHash("sha256").update(testCase).digest("hex");
}

/**
 * Juliet C/C++ sample: in every CWE folder, the `perCwe` test cases with the smallest
 * sha256(test case id) — a fixed, seedless draw spread over flow variants and data sources.
 * The chosen files are moved into `dest` (with testcasesupport).
 */
async function sampleJulietC(
  full: string,
  dest: string,
  perCwe: number | "all",
  cwes: number[] | null,
): Promise<{ files: string[]; description: string }> {
  const testcases = join(full, "testcases");
  await keepOnlyCwes(testcases, cwes);
  const all = await listFiles(testcases, (rel) => /\.(c|cpp|h)$/i.test(rel));
  const byFolder = new Map<string, Map<string, string[]>>();
  for (const rel of all) {
    const folder = rel.split("/")[0] ?? "";
    const testCase = testCaseOf(rel) ?? `support:${rel}`;
    const cases = byFolder.get(folder) ?? new Map<string, string[]>();
    cases.set(testCase, [...(cases.get(testCase) ?? []), rel]);
    byFolder.set(folder, cases);
  }
  const chosen: string[] = [];
  for (const cases of byFolder.values()) {
    const ids = [...cases.keys()].filter((id) => !id.startsWith("support:")).sort((a, b) => sampleRank(a).localeCompare(sampleRank(b)));
    const take = perCwe === "all" ? ids : ids.slice(0, perCwe);
    for (const id of take) chosen.push(...(cases.get(id) ?? []));
    // Headers shared by a folder's test cases (rare) go along.
    for (const [id, files] of cases) if (id.startsWith("support:") && files.every((f) => f.endsWith(".h"))) chosen.push(...files);
  }
  await mkdir(join(dest, "testcases"), { recursive: true });
  for (const rel of chosen) {
    await mkdir(dirname(join(dest, "testcases", rel)), { recursive: true });
    await rename(join(testcases, rel), join(dest, "testcases", rel));
  }
  await rename(join(full, "testcasesupport"), join(dest, "testcasesupport"));
  const description =
    perCwe === "all"
      ? "all test cases"
      : `deterministic sample: in each CWE folder, the ${perCwe} test cases (all of their files) with the smallest sha256(test case name), or all if fewer`;
  return {
    files: chosen
      .filter((f) => !f.endsWith(".h"))
      .map((f) => `testcases/${f}`)
      .sort(),
    description,
  };
}

export async function runJulietC(opts: {
  datasets: string;
  scratch: string;
  sample: number | "all";
  cwes: number[] | null;
  log: Log;
  onScanned?: OnScanned;
}): Promise<JulietSuiteResult> {
  const started = performance.now();
  const archive = join(opts.datasets, JULIET_C_ARCHIVE);
  const full = join(opts.scratch, "juliet-c-full");
  const root = join(opts.scratch, "juliet-c");
  opts.log(`Juliet C/C++: unpacking ${JULIET_C_ARCHIVE}`);
  await unpack(archive, full);
  const { files, description } = await sampleJulietC(full, root, opts.sample, opts.cwes);
  await rm(full, { recursive: true, force: true });

  opts.log(`Juliet C/C++: scanning ${files.length} files (${description}) with ${registryNames().join(", ")}`);
  const scan = await scanTree(root);
  logRuns(opts.log, scan.analyzers);
  const indexStart = performance.now();
  const index = await indexDeclarations(root, "c");
  const indexMs = Math.round(performance.now() - indexStart);
  await opts.onScanned?.({ root, findings: scan.findings, index });

  const flawfinderRun = scan.analyzers.find((r) => r.name === "flawfinder");
  const minLevel = Number(/minlevel (\d)/.exec(flawfinderRun?.version ?? "")?.[1] ?? 1);
  const catalogs = [flawfinderCatalog(minLevel), cppcheckCatalog()];
  const ran = new Set(scan.analyzers.filter((r) => r.status === "completed").map((r) => r.name));
  const covered = new Set(catalogs.filter((c) => ran.has(c.tool)).flatMap((c) => c.cwes));
  const rows = scoreJuliet(index, scan.findings, { language: "c", coveredCwes: covered });
  return {
    dataset: await datasetInfo(archive, "Juliet Test Suite for C/C++ 1.3 (NIST SARD)"),
    selection: description,
    files: files.length,
    analyzers: scan.analyzers,
    coveredCwes: [...covered].sort((a, b) => a - b),
    catalogs,
    rows,
    ...summarize(rows),
    findings: scan.findings.length,
    scanMs: scan.durationMs,
    indexMs,
    totalMs: Math.round(performance.now() - started),
  };
}

export async function runCastle(opts: { datasets: string; scratch: string; log: Log; onScanned?: OnScanned }): Promise<CastleSuiteResult> {
  const started = performance.now();
  const path = join(opts.datasets, CASTLE_FILE);
  const dataset = await loadCastle(path);
  const dir = await writeCastle(dataset, join(opts.scratch, "castle"));
  opts.log(`CASTLE: scanning ${dataset.tests.length} programs with ${registryNames().join(", ")}`);
  const full: ScanResult = await scanTree(dir);
  logRuns(opts.log, full.analyzers);
  await opts.onScanned?.({ root: dir, findings: full.findings, castle: dataset.tests });
  const registry = registryNames();
  let cppcheckAlone: CastleSuiteResult["cppcheckAlone"] = null;
  if (registry.includes("cppcheck")) {
    opts.log("CASTLE: scanning with cppcheck alone");
    const alone = await scanTree(dir, { only: ["cppcheck"] });
    logRuns(opts.log, alone.analyzers);
    cppcheckAlone = { analyzers: alone.analyzers, result: scoreCastle(dataset.tests, alone.findings), scanMs: alone.durationMs };
  }
  return {
    dataset: await datasetInfo(path, `CASTLE-Benchmark ${dataset.version} (C250)`),
    programs: dataset.tests.length,
    full: { analyzers: full.analyzers, result: scoreCastle(dataset.tests, full.findings), scanMs: full.durationMs },
    cppcheckAlone,
    registry,
    totalMs: Math.round(performance.now() - started),
  };
}

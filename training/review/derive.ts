/**
 * `npm run ai:data` — derives the review model's labeled examples from our own scans of the
 * labeled datasets (../shared/datasets, see its README), through the same suites the
 * detection benchmark runs (bench/detection/suites.ts):
 *
 * - Juliet Java 1.2 and a Juliet C/C++ 1.3 sample: a finding whose CWE counts for its test
 *   case (bench/detection/cwe.ts acceptedCwes) is a true positive inside a `bad` function
 *   and a false positive inside a `good` one. Findings of other CWEs are left out: in a
 *   `bad` function they are not the labeled flaw, so their label is unknown.
 * - CASTLE C250: a finding on a flaw line of a vulnerable program is a true positive, any
 *   finding in a safe program a false positive; other findings in vulnerable programs are
 *   left out (unknown).
 *
 * - The peer-labelled sources (derive-peer.ts): sonar-java, sonar-python, sonarjs and bandit
 *   for training, find-sec-bugs held out (ai:eval tests on it; only its aggregate counts are
 *   logged): a reported finding matching a vulnerable label is a true positive, one matching
 *   a safe label a false positive, others left out.
 * - Our own applications (bench/detection/apps) and handler twins (taint-cases), by their
 *   labels (derive-own.ts).
 *
 * Each example keeps what the review API receives — the code around the finding with its
 * callers and callees (reviewCode(), exactly what the worker's auto-triage sends), its CWE
 * and file — and the finding's facts as the scanner reported them (dataflow verdict and
 * trace, confidence, snippet: the evidence is read from them), with comments, the suites'
 * markers and label-revealing names removed (strip.ts); plus the analyzer and rule for the
 * report, and a `group`: the Juliet test case family (flow variants _01…_84 of one
 * functional variant share their code, so they must land on the same side of the split),
 * the CASTLE program, the peer file, or the pair of twins.
 *
 *   node --import tsx training/review/derive.ts [--c-sample N] [--out FILE]
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { RelatedIndex, fsSourceReader } from "@ax/ai/review";
import { loadRules } from "@ax/rules";
import { acceptedCwes, cweNumber } from "../../bench/detection/cwe";
import { CASTLE_FILE, JULIET_C_ARCHIVE, JULIET_JAVA_ARCHIVE, PEER_ARCHIVE, requireDatasets } from "../../bench/detection/datasets";
import { flowAt, folderOf, testCaseOf } from "../../bench/detection/juliet";
import { runCastle, runJulietC, runJulietJava, type ScannedTree } from "../../bench/detection/suites";
import { deriveOwn } from "./derive-own";
import { derivePeer, type VerdictCounts } from "./derive-peer";
import { exampleOf } from "./example-of";
import type { ExampleSource, LabeledExample } from "./examples";

export { dedupKey } from "./strip";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const DEFAULT_EXAMPLES = join(repoRoot, "packages/ai/data/review-examples.jsonl.gz");
const DEFAULT_C_SAMPLE = 150;

function log(message: string): void {
  process.stderr.write(`[ai:data] ${message}\n`);
}

/** `CWE89_SQL_Injection__connect_tcp_executeBatch_01` → `…__connect_tcp_executeBatch`. */
export function julietFamily(testCase: string): string {
  return testCase.replace(/_\d+$/, "");
}

export async function julietExamples(tree: ScannedTree, source: LabeledExample["source"]): Promise<LabeledExample[]> {
  const language = source === "juliet-java" ? "java" : "c";
  const out: LabeledExample[] = [];
  const related = new RelatedIndex(fsSourceReader(tree.root));
  for (const f of tree.findings) {
    const folder = folderOf(f.file);
    const testCase = testCaseOf(f.file);
    const cwe = cweNumber(f.cwe_id);
    if (!folder || !testCase || cwe === null || !acceptedCwes(folder.cwe).includes(cwe)) continue;
    const flow = flowAt(tree.index?.get(f.file), f.start_line, language);
    if (!flow) continue;
    out.push(await exampleOf(f, { source, group: `${folder.folder}/${julietFamily(testCase)}`, label: flow === "bad" ? 1 : 0, related }));
  }
  return out;
}

export async function castleExamples(tree: ScannedTree): Promise<LabeledExample[]> {
  const out: LabeledExample[] = [];
  const tests = new Map((tree.castle ?? []).map((t) => [t.name, t]));
  const related = new RelatedIndex(fsSourceReader(tree.root));
  for (const f of tree.findings) {
    const t = tests.get(f.file);
    if (!t || !f.cwe_id) continue;
    const onFlaw = t.lines.some((l) => f.start_line <= l && l <= Math.max(f.start_line, f.end_line));
    if (t.vulnerable && !onFlaw) continue;
    out.push(await exampleOf(f, { source: "castle", group: `castle/${t.name}`, label: t.vulnerable ? 1 : 0, related }));
  }
  return out;
}

/** Juliet Java, CASTLE and the Juliet C/C++ sample, through the benchmark's suites. */
async function deriveSuites(datasets: string, scratch: string, sample: number): Promise<LabeledExample[]> {
  const examples: LabeledExample[] = [];
  const javaRules = loadRules().filter((r) => r.language === "Java");
  await runJulietJava({
    datasets,
    scratch,
    rules: javaRules,
    cwes: null,
    log,
    onScanned: async (t) => void examples.push(...(await julietExamples(t, "juliet-java"))),
  });
  await rm(join(scratch, "juliet-java"), { recursive: true, force: true });
  await runCastle({ datasets, scratch, log, onScanned: async (t) => void examples.push(...(await castleExamples(t))) });
  await runJulietC({
    datasets,
    scratch,
    sample,
    cwes: null,
    log,
    onScanned: async (t) => void examples.push(...(await julietExamples(t, "juliet-c"))),
  });
  await rm(join(scratch, "juliet-c"), { recursive: true, force: true });
  return examples;
}

const SOURCES: readonly ExampleSource[] = [
  "juliet-java",
  "juliet-c",
  "castle",
  "sonar-java",
  "sonar-python",
  "sonarjs",
  "bandit",
  "findsecbugs",
  "own-apps",
  "own-twins",
];

/** A total order: the same examples give the same file whatever order the scans reported them in. */
export function compareExamples(a: LabeledExample, b: LabeledExample): number {
  const key = (e: LabeledExample) => [e.source, e.file, String(e.line).padStart(9, "0"), e.rule_id, e.analyzer, e.cwe_id, e.code];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i++) {
    const x = ka[i] as string;
    const y = kb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
}

function logCounts(examples: readonly LabeledExample[], left: Record<string, VerdictCounts>): void {
  const count = (s: string, y: 0 | 1) => examples.filter((e) => e.source === s && e.label === y).length;
  for (const s of SOURCES) {
    const l = left[s];
    const extra = l ? ` (left out: ${l.unknown} matching no label, ${l.conflict} matching both kinds)` : "";
    log(`${s}: ${count(s, 1)} true positives, ${count(s, 0)} false positives${extra}`);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sample = Number(arg("--c-sample") ?? DEFAULT_C_SAMPLE);
  const outFile = resolve(arg("--out") ?? DEFAULT_EXAMPLES);
  const datasets = requireDatasets("ai:data", [JULIET_JAVA_ARCHIVE, CASTLE_FILE, JULIET_C_ARCHIVE, PEER_ARCHIVE]);
  const scratch = await mkdtemp(join(tmpdir(), "ax-ai-data-"));
  const examples: LabeledExample[] = [];
  const left: Record<string, VerdictCounts> = {};
  try {
    const own = await deriveOwn({ scratch, log });
    examples.push(...own.examples);
    Object.assign(left, own.counts);
    const peer = await derivePeer({ datasets, scratch, log });
    examples.push(...peer.examples);
    Object.assign(left, peer.counts);
    log(`findsecbugs: ${peer.heldOutNearDuplicates} files left out as near-duplicates of development files`);
    await rm(join(scratch, "peer"), { recursive: true, force: true });
    examples.push(...(await deriveSuites(datasets, scratch, sample)));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  examples.sort(compareExamples);
  const body = examples.map((e) => JSON.stringify(e)).join("\n") + "\n";
  // mtime 0 in the gzip header: the same examples give the same bytes.
  await writeFile(outFile, gzipSync(Buffer.from(body), { level: 9 }));
  logCounts(examples, left);
  log(`wrote ${examples.length} examples to ${outFile} (Juliet C/C++ sample ${sample} per CWE folder)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

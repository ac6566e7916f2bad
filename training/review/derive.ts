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
 * Each example keeps what the review API receives — the code around the finding with its
 * callers and callees (reviewCode(), exactly what the worker's auto-triage sends), its CWE
 * and file — plus the analyzer and rule for the
 * report, and a `group`: the Juliet test case family (flow variants _01…_84 of one
 * functional variant share their code, so they must land on the same side of the split)
 * or the CASTLE program.
 *
 *   node --import tsx training/review/derive.ts [--c-sample N] [--out FILE]
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { RelatedIndex, fsSourceReader, reviewCode } from "@ax/ai/review";
import { loadRules } from "@ax/rules";
import { acceptedCwes, cweNumber } from "../../bench/detection/cwe";
import { CASTLE_FILE, JULIET_C_ARCHIVE, JULIET_JAVA_ARCHIVE, requireDatasets } from "../../bench/detection/datasets";
import { flowAt, folderOf, testCaseOf } from "../../bench/detection/juliet";
import { runCastle, runJulietC, runJulietJava, type ScannedTree } from "../../bench/detection/suites";
import type { LabeledExample } from "./examples";

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
    out.push({
      source,
      group: `${folder.folder}/${julietFamily(testCase)}`,
      label: flow === "bad" ? 1 : 0,
      cwe_id: f.cwe_id as string,
      file: f.file,
      line: f.start_line,
      analyzer: f.analyzer,
      rule_id: f.rule_id,
      code: await reviewCode(related, f.file, f.start_line, f.end_line),
    });
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
    out.push({
      source: "castle",
      group: `castle/${t.name}`,
      label: t.vulnerable ? 1 : 0,
      cwe_id: f.cwe_id,
      file: f.file,
      line: f.start_line,
      analyzer: f.analyzer,
      rule_id: f.rule_id,
      code: await reviewCode(related, f.file, f.start_line, f.end_line),
    });
  }
  return out;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const sample = Number(arg("--c-sample") ?? DEFAULT_C_SAMPLE);
  const outFile = resolve(arg("--out") ?? DEFAULT_EXAMPLES);
  const datasets = requireDatasets("ai:data", [JULIET_JAVA_ARCHIVE, CASTLE_FILE, JULIET_C_ARCHIVE]);
  const scratch = await mkdtemp(join(tmpdir(), "ax-ai-data-"));
  const examples: LabeledExample[] = [];
  try {
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
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  examples.sort(
    (a, b) => a.source.localeCompare(b.source) || a.file.localeCompare(b.file) || a.line - b.line || a.rule_id.localeCompare(b.rule_id),
  );
  const body = examples.map((e) => JSON.stringify(e)).join("\n") + "\n";
  // mtime 0 in the gzip header: the same examples give the same bytes.
  await writeFile(outFile, gzipSync(Buffer.from(body), { level: 9 }));
  const count = (s: string, y: 0 | 1) => examples.filter((e) => e.source === s && e.label === y).length;
  for (const s of ["juliet-java", "juliet-c", "castle"]) log(`${s}: ${count(s, 1)} true positives, ${count(s, 0)} false positives`);
  log(`wrote ${examples.length} examples to ${outFile} (Juliet C/C++ sample ${sample} per CWE folder)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}

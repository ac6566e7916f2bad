/**
 * The fixed point with a worklist (only functions whose looked-up summaries changed are
 * interpreted again) against the reference that interprets every function in every round,
 * on real multi-file programs: Juliet Java test cases with their support classes (from the
 * shared datasets), the Python standard library when the machine has one, and this
 * repository's own TypeScript. The findings must be identical, traces included.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir, tempDir } from "../test-support/git-fixtures";
import { analyzeModules } from "./engine";
import type { ModuleIR } from "./ir";
import { LOWERERS, SPECS } from "./languages";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const datasets = resolve(process.env.DATASETS_DIR ?? join(repoRoot, "../shared/datasets"));

interface Corpus {
  modules: ModuleIR[];
  lines: Map<string, string[]>;
}

function walk(dir: string, keep: (path: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, e.name);
    if (e.isDirectory() && e.name !== "node_modules") walk(full, keep, out);
    else if (e.isFile() && keep(full)) out.push(full);
  }
  return out;
}

function lower(root: string, files: readonly string[], language: string): Corpus {
  const lowerer = LOWERERS.get(language);
  if (!lowerer) throw new Error(`no lowering for ${language}`);
  const corpus: Corpus = { modules: [], lines: new Map() };
  for (const full of files) {
    const file = relative(root, full);
    const source = readFileSync(full, "utf8");
    try {
      corpus.modules.push(lowerer(file, source));
    } catch {
      // As in a scan, a file the lowering cannot read is left out.
      continue;
    }
    corpus.lines.set(file, source.split("\n"));
  }
  return corpus;
}

function analyze(corpus: Corpus, everyRound: boolean) {
  return analyzeModules(corpus.modules, { specs: SPECS, lines: (f) => corpus.lines.get(f) ?? [], taxonomy: { cweName: () => null }, everyRound });
}

let scratch: string;
beforeAll(() => {
  scratch = tempDir("ax-dataflow-worklist-");
});
afterAll(() => removeDir(scratch));

it("finds in Juliet Java exactly what interpreting every function in every round finds", () => {
  const archive = join(datasets, "juliet-java-1.2.tar.gz");
  if (!existsSync(archive)) throw new Error(`${archive} is missing: set DATASETS_DIR to the shared datasets`);
  const cwes = ["CWE89_SQL_Injection", "CWE78_OS_Command_Injection", "CWE80_XSS", "CWE113_HTTP_Response_Splitting", "CWE643_Xpath_Injection", "CWE23_Relative_Path_Traversal"];
  execFileSync("tar", ["-xzf", archive, "-C", scratch, "./src/testcasesupport", ...cwes.map((c) => `./src/testcases/${c}`)], { stdio: "ignore" });
  const root = join(scratch, "src");
  const support = walk(join(root, "testcasesupport"), (p) => p.endsWith(".java"));
  // Every 20th test case: all CWEs and most flow variants, calls across files, in a few seconds.
  const cases = walk(join(root, "testcases"), (p) => p.endsWith(".java")).filter((_, i) => i % 20 === 0);
  const corpus = lower(root, [...support, ...cases], "java");
  const reference = analyze(corpus, true);
  expect(reference.length).toBeGreaterThan(50);
  expect(analyze(corpus, false)).toEqual(reference);
}, 120_000);

it("finds in Python and TypeScript exactly what interpreting every function in every round finds", () => {
  const python = readdirSync("/usr/lib").filter((d) => /^python3\.\d+$/.test(d)).sort().pop();
  const pyRoot = python ? join("/usr/lib", python) : "";
  const pyFiles = python ? walk(pyRoot, (p) => p.endsWith(".py") && !/\/(test|tests|idlelib|lib2to3|site-packages|dist-packages)\//.test(p)).filter((_, i) => i % 4 === 0) : [];
  const tsFiles = walk(join(repoRoot, "packages"), (p) => p.endsWith(".ts") && !p.endsWith(".d.ts"));
  for (const corpus of [lower(pyRoot, pyFiles, "python"), lower(repoRoot, tsFiles, "typescript")]) {
    const reference = analyze(corpus, true);
    expect(reference.length).toBeGreaterThan(5);
    expect(analyze(corpus, false)).toEqual(reference);
  }
}, 120_000);

/**
 * The fixed point with a worklist (only functions whose looked-up summaries changed are
 * interpreted again) against the reference that interprets every function in every round,
 * on real multi-file programs: Juliet Java test cases with their support classes (committed
 * under test/fixtures/juliet, see its README), the Python standard library when the machine has
 * one, and this repository's own TypeScript. Then a rescan that replays the last analysis's
 * interpretations (memo.ts) against a cold analysis, across edits that add a flow, remove
 * one and change a callee's summary. The findings must be identical, traces included.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { removeDir, tmpDir } from "@ax/testkit/temp";
import { analyzeModules } from "./engine";
import type { ModuleIR } from "./ir";
import { LOWERERS, SPECS } from "./languages";
import { engineMemo, type EngineMemo } from "./memo";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");

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

function analyze(corpus: Corpus, everyRound: boolean, memo?: EngineMemo) {
  return analyzeModules(corpus.modules, { specs: SPECS, lines: (f) => corpus.lines.get(f) ?? [], everyRound, ...(memo ? { memo } : {}) });
}

// A copy of the fixtures: the rescan test edits files in place.
let scratch: string;
let julietRoot: string;
beforeAll(() => {
  scratch = tmpDir("ax-dataflow-worklist-");
  julietRoot = join(scratch, "juliet");
  cpSync(join(here, "../test/fixtures/juliet"), julietRoot, { recursive: true });
});
afterAll(() => removeDir(scratch));

/**
 * Juliet's support classes and the committed test cases: every 40th file, in path order, of
 * six CWE folders (SQL, OS command, XSS, HTTP response splitting, XPath, path traversal), so
 * every CWE and most flow variants, calls across files included.
 */
function julietFiles(): string[] {
  const support = walk(join(julietRoot, "testcasesupport"), (p) => p.endsWith(".java"));
  return [...support, ...walk(join(julietRoot, "testcases"), (p) => p.endsWith(".java"))];
}

it("finds in Juliet Java exactly what interpreting every function in every round finds", () => {
  const corpus = lower(julietRoot, julietFiles(), "java");
  const reference = analyze(corpus, true);
  expect(reference.length).toBeGreaterThan(50);
  expect(analyze(corpus, false)).toEqual(reference);
}, 120_000);

it("finds in Python and TypeScript exactly what interpreting every function in every round finds", () => {
  // The interpreter's standard library where the machine has one (a large real program); the
  // repository's own TypeScript always.
  const python = existsSync("/usr/lib")
    ? readdirSync("/usr/lib")
        .filter((d) => /^python3\.\d+$/.test(d))
        .sort()
        .pop()
    : undefined;
  const pyRoot = python ? join("/usr/lib", python) : "";
  const pyFiles = python
    ? walk(pyRoot, (p) => p.endsWith(".py") && !/\/(test|tests|idlelib|lib2to3|site-packages|dist-packages)\//.test(p)).filter(
        (_, i) => i % 4 === 0,
      )
    : [];
  const tsFiles = walk(join(repoRoot, "packages"), (p) => p.endsWith(".ts") && !p.endsWith(".d.ts"));
  const corpora = [...(pyFiles.length > 0 ? [lower(pyRoot, pyFiles, "python")] : []), lower(repoRoot, tsFiles, "typescript")];
  for (const corpus of corpora) {
    const reference = analyze(corpus, true);
    expect(reference.length).toBeGreaterThan(5);
    expect(analyze(corpus, false)).toEqual(reference);
  }
}, 120_000);

const HELPER = `package app;
public class Helper {
  public static String pass(String s) {
    return s;
  }
}
`;
const SERVLET = (name: string, id: string) => `package app;
public class ${name} {
  public void doGet(HttpServletRequest request, java.sql.Statement stmt) throws Exception {
    String id = ${id};
    stmt.executeQuery("select * from ${name.toLowerCase()} where id=" + Helper.pass(id));
  }
}
`;

it("rescans with the last analysis's interpretations exactly as a cold analysis, through edits", () => {
  const app = join(julietRoot, "app");
  mkdirSync(app, { recursive: true });
  const write = (file: string, text: string) => writeFileSync(join(app, file), text);
  write("Helper.java", HELPER);
  write("Users.java", SERVLET("Users", 'request.getParameter("id")'));
  write("Orders.java", SERVLET("Orders", '"42"'));
  const files = [...julietFiles(), join(app, "Helper.java"), join(app, "Users.java"), join(app, "Orders.java")];
  // As the analyzer does: an unchanged file comes back as the same IR and lines.
  const lowered = new Map<string, Corpus>();
  const current = (): Corpus => {
    const corpus: Corpus = { modules: [], lines: new Map() };
    for (const full of files) {
      const key = `${full}\0${readFileSync(full, "utf8")}`;
      let one = lowered.get(key);
      if (!one) {
        one = lower(julietRoot, [full], "java");
        lowered.set(key, one);
      }
      corpus.modules.push(...one.modules);
      for (const [f, l] of one.lines) corpus.lines.set(f, l);
    }
    return corpus;
  };
  const memo = engineMemo();
  const sqlIn = (findings: { file: string; rule_id: string }[]) =>
    findings
      .filter((f) => f.file.startsWith("app/") && f.rule_id === "java-taint-sql")
      .map((f) => f.file)
      .sort();
  const rescan = () => {
    const corpus = current();
    const incremental = analyze(corpus, false, memo);
    expect(incremental).toEqual(analyze(corpus, false));
    return incremental;
  };

  expect(sqlIn(rescan())).toEqual(["app/Users.java"]);
  expect(memo.replayed).toBe(0);
  // Nothing changed: every interpretation is replayed.
  expect(sqlIn(rescan())).toEqual(["app/Users.java"]);
  expect(memo.replayed).toBeGreaterThan(1000);

  // A comment added at the end of a Juliet file and of a servlet.
  const [someCase] = files.filter((f) => f.includes("/testcases/"));
  writeFileSync(someCase!, `${readFileSync(someCase!, "utf8")}\n// edited\n`);
  write("Users.java", `${SERVLET("Users", 'request.getParameter("id")')}\n// edited\n`);
  expect(sqlIn(rescan())).toEqual(["app/Users.java"]);
  expect(memo.replayed).toBeGreaterThan(1000);

  // A flow added: the constant becomes a request parameter.
  write("Orders.java", SERVLET("Orders", 'request.getParameter("id")'));
  expect(sqlIn(rescan())).toEqual(["app/Orders.java", "app/Users.java"]);

  // The callee's summary changes: it no longer passes its parameter on.
  write("Helper.java", HELPER.replace("return s;", 'return "x";'));
  expect(sqlIn(rescan())).toEqual([]);

  // Back, and a flow removed at its source.
  write("Helper.java", HELPER);
  write("Users.java", SERVLET("Users", '"7"'));
  expect(sqlIn(rescan())).toEqual(["app/Orders.java"]);
  expect(memo.replayed).toBeGreaterThan(1000);
}, 120_000);

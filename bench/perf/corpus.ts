/**
 * Benchmark repositories, assembled as real git repositories in /tmp:
 * - Java and C from the Juliet suites in DATASETS_DIR (default ../shared/datasets; the OWASP
 *   Benchmark and Juice Shop are reserved for evaluation and never used here);
 * - Python from the interpreter's standard library (/usr/lib/python3.*), JavaScript from
 *   unminified library sources in node_modules, shell from the system's shell scripts —
 *   the datasets hold no code in those languages.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import { basename, dirname, extname, join, relative } from "node:path";
import { datasetsDir, JULIET_C_ARCHIVE, JULIET_JAVA_ARCHIVE } from "../detection/datasets";
import { repoRoot } from "./stack";

/** What buildLargeRepo reads from the datasets (bench/perf/main.ts checks for them first). */
export const CORPUS_DATASETS = [JULIET_JAVA_ARCHIVE, JULIET_C_ARCHIVE];

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@bench.test",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@bench.test",
  GIT_CONFIG_NOSYSTEM: "1",
};
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 }).trim();

function walk(dir: string, keep: (p: string) => boolean, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full, keep, out);
    else if (e.isFile() && keep(full)) out.push(full);
  }
  return out;
}

const lineCount = (f: string): number => readFileSync(f, "utf8").split("\n").length;

/** Copies files (every `stride`-th) under `destRoot/sub` until `lines` lines; returns the lines copied. */
function take(
  files: string[],
  srcRoot: string,
  destRoot: string,
  sub: string,
  lines: number,
  stride = 1,
  rename?: (rel: string) => string,
): { lines: number; files: number } {
  let got = 0;
  let n = 0;
  for (const [i, f] of files.entries()) {
    if (got >= lines) break;
    if (i % stride !== 0) continue;
    if (statSync(f).size > 256 * 1024) continue;
    let rel = relative(srcRoot, f);
    if (rename) rel = rename(rel);
    const dest = join(destRoot, sub, rel);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileSync(f, dest);
    got += lineCount(f);
    n++;
  }
  return { lines: got, files: n };
}

export interface Corpus {
  dir: string;
  lines: number;
  files: number;
  byLanguage: Record<string, { files: number; lines: number }>;
}

function isShellScript(f: string): boolean {
  try {
    const head = readFileSync(f).subarray(0, 64).toString("latin1");
    return /^#!\s*\/(usr\/)?bin\/(env )?(ba|da)?sh\b/.test(head) && statSync(f).size < 64 * 1024;
  } catch {
    return false;
  }
}

/** A few CWE folders of Juliet Java and Juliet C/C++ from the datasets, unpacked under `src`. */
function unpackJuliet(src: string): void {
  // A few CWE folders of each suite are plenty (and unpacking all of Juliet C costs a minute).
  const javaCwes = [
    "CWE89_SQL_Injection",
    "CWE190_Integer_Overflow",
    "CWE113_HTTP_Response_Splitting",
    "CWE134_Uncontrolled_Format_String",
    "CWE80_XSS",
    "CWE643_Xpath_Injection",
  ];
  const datasets = datasetsDir();
  execFileSync(
    "tar",
    ["-xzf", join(datasets, JULIET_JAVA_ARCHIVE), "-C", src, "./src/testcasesupport", ...javaCwes.map((c) => `./src/testcases/${c}`)],
    { stdio: "ignore" },
  );
  mkdirSync(join(src, "c"), { recursive: true });
  const cCwes = [
    "CWE78_OS_Command_Injection",
    "CWE134_Uncontrolled_Format_String",
    "CWE190_Integer_Overflow",
    "CWE23_Relative_Path_Traversal",
  ];
  execFileSync(
    "tar",
    ["-xzf", join(datasets, JULIET_C_ARCHIVE), "-C", join(src, "c"), "./testcasesupport", ...cCwes.map((c) => `./testcases/${c}`)],
    { stdio: "ignore" },
  );
}

/** The large mixed repository (about `total` lines), committed once on main. */
export function buildLargeRepo(scratch: string, total: number): Corpus {
  const dir = join(scratch, "large");
  const src = join(scratch, "src");
  mkdirSync(src, { recursive: true });
  unpackJuliet(src);
  const share = (f: number) => Math.round(total * f);
  const byLanguage: Corpus["byLanguage"] = {};
  const javaRoot = join(src, "src");
  byLanguage.java = take(
    [
      ...walk(join(javaRoot, "testcasesupport"), (p) => p.endsWith(".java")),
      ...walk(join(javaRoot, "testcases"), (p) => p.endsWith(".java")),
    ],
    javaRoot,
    dir,
    "java",
    share(0.38),
    11,
  );
  const cRoot = join(src, "c");
  const cFiles = walk(cRoot, (p) => /\.(c|h)$/.test(p));
  const support = cFiles.filter((p) => p.includes("testcasesupport"));
  byLanguage.c = take([...support, ...cFiles.filter((p) => !p.includes("testcasesupport"))], cRoot, dir, "c", share(0.32), 13);
  const py = readdirSync("/usr/lib")
    .filter((d) => /^python3\.\d+$/.test(d))
    .sort()
    .pop();
  const pyRoot = py ? join("/usr/lib", py) : "";
  byLanguage.python = py
    ? take(
        walk(pyRoot, (p) => p.endsWith(".py") && !/\/(test|tests|idlelib|lib2to3|site-packages|dist-packages)\//.test(p)),
        pyRoot,
        dir,
        "python",
        share(0.15),
        3,
      )
    : { files: 0, lines: 0 };
  const nm = join(repoRoot, "node_modules");
  const jsFiles = [
    "express/lib",
    "body-parser/lib",
    "ioredis/built",
    "pg/lib",
    "winston/lib",
    "zod/v3",
    "helmet",
    "kysely/dist/cjs/query-builder",
  ].flatMap((p) => walk(join(nm, p), (f) => /\.(js|mjs|cjs)$/.test(f) && !/\.min\./.test(f) && !f.endsWith(".d.ts")));
  byLanguage.javascript = take(jsFiles, nm, dir, "web", share(0.12), 1, (rel) => rel.replace(/(^|\/)(dist|build|lib)(?=\/)/g, "$1src"));
  const shFiles = [...walk("/usr/bin", isShellScript), ...walk("/usr/sbin", isShellScript), ...walk("/etc", isShellScript)];
  byLanguage.shell = take(shFiles, "/", dir, "scripts", share(0.03), 1, (rel) => {
    // Flattened: "bin" is a vendored folder name, which the selection would skip.
    const name = basename(rel);
    return extname(name) === ".sh" ? name : `${name}.sh`;
  });
  execFileSync("rm", ["-rf", src]);
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "benchmark corpus");
  const lines = Object.values(byLanguage).reduce((s, l) => s + l.lines, 0);
  const files = Object.values(byLanguage).reduce((s, l) => s + l.files, 0);
  return { dir, lines, files, byLanguage };
}

/** Appends a comment line to `fraction` of the tracked source files (spread evenly) and commits. */
export function changeFraction(dir: string, fraction: number, tag: string): number {
  const files = git(dir, "ls-files")
    .split("\n")
    .filter((f) => /\.(java|c|h|py|js|mjs|cjs|sh)$/.test(f));
  const every = Math.max(1, Math.round(1 / fraction));
  let changed = 0;
  for (const [i, f] of files.entries()) {
    if (i % every !== 0) continue;
    const hash = /\.(py|sh)$/.test(f) ? "#" : "//";
    appendFileSync(join(dir, f), `\n${hash} ${tag}\n`);
    changed++;
  }
  git(dir, "commit", "-q", "-am", `change ${changed} files (${tag})`);
  return changed;
}

/** `count` small repositories (a few files in several languages each, about `lines` lines). */
export function buildSmallRepos(scratch: string, count: number, large: string): string[] {
  const files = git(large, "ls-files").split("\n");
  const byLang = ["java/", "c/", "python/", "web/", "scripts/"].map((p) =>
    files.filter((f) => f.startsWith(p) && !f.includes("testcasesupport")),
  );
  const out: string[] = [];
  for (let r = 0; r < count; r++) {
    const dir = join(scratch, `small-${r}`);
    for (const list of byLang) {
      for (let k = 0; k < 2; k++) {
        const f = list[(r * 7 + k * 3) % Math.max(1, list.length)];
        if (!f) continue;
        const dest = join(dir, f);
        mkdirSync(dirname(dest), { recursive: true });
        copyFileSync(join(large, f), dest);
      }
    }
    writeFileSync(join(dir, "README.md"), `# small repository ${r}\n`);
    git(dir, "init", "-q", "-b", "main");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", `small ${r}`);
    out.push(dir);
  }
  return out;
}

export { basename };

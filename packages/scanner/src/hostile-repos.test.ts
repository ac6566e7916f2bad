/**
 * Hostile repositories through the real pipeline, as the worker runs it: checkoutRepository
 * (through a kept repository) into a withWorkspace directory, then runAnalyzers with the real analyzers. Every
 * repository is built here with the real git. What is checked throughout: nothing outside the
 * checkout is read or written, nothing from the repository runs (scripts would touch a file in
 * `markers/`), and each scan ends in a completed analysis or a short ScanInputError, with the
 * workspace removed.
 *
 * The repositories are served over file://, which needs allowInsecure; the hardening is the
 * same either way apart from which transports git may use. The URL policy itself is covered at
 * the end ("hostile git_uri in the worker") with allowInsecure off. The only network traffic
 * in this file goes to servers on 127.0.0.1 started here.
 *
 * The 100,000-file case runs only with AX_SLOW_TESTS=1.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { spawnSync } from "node:child_process";
import type { NormalizedFinding } from "@ax/contracts";
import { MemoryAnalysisCache } from "./cache";
import { checkoutRepository, cloneRepository } from "./clone";
import { ScanInputError } from "./errors";
import { hardenedGitConfig, hardenedGitEnv } from "./git/hardening";
import type { ResolveHost } from "./git/resolve-host";
import {
  connectionRecorder,
  fastImportCommit,
  gitIn,
  hashBlob,
  initRepo,
  loopbackHostsName,
  mktreeCommit,
  removeTree,
  walk,
  writeZeroBlob,
  type TreeEntry,
} from "./hostile-fixtures";
import { runAnalyzers, type RunAnalyzersResult } from "./run";
import { tempDir } from "../test/git-fixtures";
import { withWorkspace } from "./workspace";

const MIB = 1024 * 1024;
const CANARY = `AX_CANARY_${randomBytes(8).toString("hex")}`;
const C_GETS = "#include <stdio.h>\nint main(void) {\n  char buf[16];\n  gets(buf);\n  return 0;\n}\n";
const PY_EXEC = "import os\n\ndef run(cmd):\n    os.system(cmd)\n    return eval(cmd)\n";
const SH_RM = "#!/bin/sh\nrm -rf $1/*\n";
/** Vulnerable content for a name: C and Python by extension, else a shell script (found by its shebang). */
const byExtension = (name: string): string => (name.endsWith(".c") ? C_GETS : name.endsWith(".py") ? PY_EXEC : SH_RM);

let root: string;
let workspaces: string;
let markers: string;
let outside: string;
/** Hostile inputs tried, for the one-line summary (docs/reliability.md quotes the figure). */
const tried = { repo: new Set<string>(), uri: new Set<string>() };
const hostile = (what: string) => (what.startsWith("git_uri") ? tried.uri : tried.repo).add(what);

beforeAll(() => {
  root = tempDir("ax-hostile-repos-");
  workspaces = join(root, "workspaces");
  markers = join(root, "markers");
  outside = join(root, "outside");
  mkdirSync(markers);
  mkdirSync(join(outside, "dir"), { recursive: true });
  writeFileSync(
    join(outside, "canary.py"),
    `import os\n\ndef handler(cmd):\n    os.system("${CANARY} " + cmd)\n    return eval("${CANARY}")\n`,
  );
  writeFileSync(join(outside, "dir", "vuln.c"), `/* ${CANARY} */\n${C_GETS}`);
});
afterEach(() => {
  // A marker means a script from a repository ran. Controls remove the ones they cause.
  expect(readdirSync(markers)).toEqual([]);
});
afterAll(() => {
  process.stdout.write(
    `hostile-repos: ${tried.repo.size} hostile repository inputs and ${tried.uri.size} hostile git_uri values (worker path) tried\n`,
  );
  removeTree(root);
});

interface ScanOutcome {
  result: RunAnalyzersResult | null;
  error: Error | null;
  ms: number;
  /** The workspace directory still existed after withWorkspace returned (it is removed here then). */
  workspaceLeft: boolean;
}

let projects = 0;

/** The worker's sequence. `inCheckout` runs after the analyzers, before the workspace goes. */
async function scanRepo(
  url: string,
  opts: {
    maxRepoBytes?: number;
    analyzerTimeoutMs?: number;
    onCheckout?: (checkout: string) => void;
    inCheckout?: (checkout: string) => Promise<void>;
  } = {},
): Promise<ScanOutcome> {
  const started = performance.now();
  let checkout = "";
  let result: RunAnalyzersResult | null = null;
  let error: Error | null = null;
  try {
    result = await withWorkspace(workspaces, async (dir) => {
      checkout = join(dir, "src");
      opts.onCheckout?.(checkout);
      // As the worker does: through a repository kept for the project (kept-repo.ts), here
      // a new one per scan, outside the workspaces.
      const stateDir = join(root, "state", `project-${++projects}`);
      const { blobs } = await checkoutRepository({
        gitUri: url,
        dest: checkout,
        allowInsecure: true,
        timeoutMs: 300_000,
        maxRepoBytes: opts.maxRepoBytes ?? 64 * MIB,
        stateDir,
      });
      const analysis = await runAnalyzers({
        dir: checkout,
        timeoutMs: opts.analyzerTimeoutMs ?? 120_000,
        maxOutputBytes: 16 * MIB,
        blobs,
        cache: new MemoryAnalysisCache(),
      });
      await opts.inCheckout?.(checkout);
      return analysis;
    });
  } catch (err) {
    // Errors from Node's own modules come from another realm under Jest: no instanceof Error.
    error = typeof err === "object" && err !== null && "message" in err ? (err as Error) : new Error(String(err));
  }
  const ms = performance.now() - started;
  const workspaceLeft = checkout !== "" && existsSync(dirname(checkout));
  if (workspaceLeft) removeTree(dirname(checkout));
  return { result, error, ms, workspaceLeft };
}

function expectCompleted(o: ScanOutcome): RunAnalyzersResult {
  expect({ error: o.error?.message.slice(0, 300) ?? null, workspaceLeft: o.workspaceLeft }).toEqual({ error: null, workspaceLeft: false });
  const result = o.result as RunAnalyzersResult;
  for (const run of result.analyzers) {
    if (run.status !== "completed") expect(`${run.name}: ${run.status} ${run.notice ?? ""}`).toMatch(/skipped No files in a language/);
  }
  return result;
}

/** A refusal the submitter can act on: a short ScanInputError naming no worker path, workspace gone. */
function expectRefused(o: ScanOutcome, message: RegExp = /./): void {
  const text = o.error?.message ?? "";
  const summary = `${o.error?.name ?? "no error"}: ${text.slice(0, 200)}${text.length > 200 ? `… (${text.length} characters)` : ""}`;
  expect({ error: summary, workspaceLeft: o.workspaceLeft }).toEqual({
    error: expect.stringMatching(/^ScanInputError: /),
    workspaceLeft: false,
  });
  expect(text).toMatch(message);
  expect(text.length).toBeLessThan(300);
  expect(text).not.toContain(root);
}

const filesWithFindings = (findings: NormalizedFinding[]) => new Set(findings.map((f) => f.file));

/** Committed paths compared with what is on disk after the analyzers ran: nothing new appeared. */
async function expectOnlyCommittedFiles(checkout: string, committed: string[]): Promise<void> {
  const onDisk = [...(await walk(checkout)).entries()]
    .filter(([p, kind]) => kind !== "dir" && p !== ".git" && !p.startsWith(".git/"))
    .map(([p]) => p);
  expect(onDisk.sort()).toEqual([...committed].sort());
}

describe("symbolic links out of the checkout", () => {
  it("control: the analyzers quote the canary in a snippet when they do read the file", async () => {
    const r = await runAnalyzers({ dir: outside, timeoutMs: 60_000, maxOutputBytes: 16 * MIB });
    expect(JSON.stringify(r.findings)).toContain(CANARY);
  });

  it("links to a file and to a directory outside are checked out as plain files; the canary is never read", async () => {
    hostile("symlinks to a file and a directory outside the checkout");
    const before = JSON.stringify([...(await walk(outside)).entries()].sort());
    const repo = initRepo(join(root, "symlinks"));
    fastImportCommit(repo.path, [
      { path: "leak.py", content: join(outside, "canary.py"), mode: "120000" },
      // From <workspaces>/scan-*/src, three levels up is `root`.
      { path: "relative-leak.py", content: "../../../outside/canary.py", mode: "120000" },
      { path: "linked-dir", content: join(outside, "dir"), mode: "120000" },
      { path: "passwd.txt", content: "/etc/passwd", mode: "120000" },
      { path: "app.py", content: "print('hello')\n" },
    ]);
    const o = await scanRepo(repo.url, {
      inCheckout: async (checkout) => {
        const tree = await walk(checkout);
        expect([...tree.values()]).not.toContain("symlink");
        expect(tree.get("linked-dir")).toBe("file");
        expect(readFileSync(join(checkout, "leak.py"), "utf8")).toBe(join(outside, "canary.py"));
      },
    });
    const r = expectCompleted(o);
    expect(JSON.stringify(r)).not.toContain(CANARY);
    expect([...filesWithFindings(r.findings)].filter((f) => f.startsWith("linked-dir"))).toEqual([]);
    expect(JSON.stringify([...(await walk(outside)).entries()].sort())).toBe(before);
  });

  it("a link and a directory under one name cannot route a write outside", async () => {
    hostile("symlink and directory sharing a name (write through a link)");
    const target = join(root, "write-target");
    mkdirSync(target);
    const repo = initRepo(join(root, "link-then-write"));
    const payload = hashBlob(repo.path, "pwned\n");
    const sub = gitIn(repo.path, ["mktree"], `100644 blob ${payload}\tpwned.txt\n`).trim();
    mktreeCommit(repo.path, [`120000 blob ${hashBlob(repo.path, target)}\ta`, `040000 tree ${sub}\ta`, `100644 blob ${payload}\tREADME`]);
    const o = await scanRepo(repo.url);
    expect(readdirSync(target)).toEqual([]);
    expectCompleted(o);
  });
});

it("a submodule pointing at a local path is not fetched, and .gitmodules commands never run", async () => {
  hostile("submodule with a local-path URL, an update command and a dash URL");
  const sub = initRepo(join(root, "submodule-src"));
  fastImportCommit(sub.path, [{ path: "secret.py", content: readFileSync(join(outside, "canary.py")) }]);
  const subHead = gitIn(sub.path, ["rev-parse", "HEAD"]).trim();
  const parent = initRepo(join(root, "submodule-parent"));
  const plainEntry = `[submodule "lib/sub"]\n\tpath = lib/sub\n\turl = ${sub.path}\n`;
  const gitmodules = [
    plainEntry,
    `[submodule "lib/cmd"]\n\tpath = lib/cmd\n\turl = ${sub.path}\n\tupdate = !touch ${markers}/submodule-update\n`,
    `[submodule "lib/dash"]\n\tpath = lib/dash\n\turl = --upload-pack=touch ${markers}/submodule-upload-pack\n`,
  ].join("");
  fastImportCommit(parent.path, [
    { path: ".gitmodules", content: gitmodules },
    { path: "lib/sub", id: subHead, mode: "160000" },
    { path: "lib/cmd", id: subHead, mode: "160000" },
    { path: "lib/dash", id: subHead, mode: "160000" },
    { path: "main.c", content: C_GETS },
  ]);
  const o = await scanRepo(parent.url, {
    inCheckout: async (checkout) => {
      for (const dir of ["lib/sub", "lib/cmd", "lib/dash"]) expect(readdirSync(join(checkout, dir))).toEqual([]);
    },
  });
  const r = expectCompleted(o);
  expect([...filesWithFindings(r.findings)]).toEqual(["main.c"]);
  expect(JSON.stringify(r)).not.toContain(CANARY);

  // Control: plain git following submodules does fetch the local path. (Git itself refuses
  // the `update = !command` line, so the control repository carries only lib/sub.)
  const benign = initRepo(join(root, "submodule-benign"));
  fastImportCommit(benign.path, [
    { path: ".gitmodules", content: plainEntry },
    { path: "lib/sub", id: subHead, mode: "160000" },
  ]);
  const control = join(root, "submodule-control");
  spawnSync("git", ["-c", "protocol.file.allow=always", "clone", "-q", "--recurse-submodules", benign.url, control], {
    env: { PATH: process.env.PATH ?? "", HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
  });
  expect(existsSync(join(control, "lib/sub/secret.py"))).toBe(true);
});

it("hooks and core.fsmonitor of repositories nested in the tree never run; nor do build scripts", async () => {
  hostile("nested repository (worktree ..) with core.fsmonitor, core.hooksPath and hooks");
  hostile("nested bare repository with core.fsmonitor and hooks");
  hostile("build and test scripts (setup.py, conftest.py, Makefile, .envrc, build.sh)");
  const touch = (name: string) => `touch ${join(markers, name)}`;
  const script = (name: string) => `#!/bin/sh\n${touch(name)}\n`;
  const repo = initRepo(join(root, "nested"));
  const entries: TreeEntry[] = [
    { path: "evil/HEAD", content: "ref: refs/heads/main\n" },
    {
      path: "evil/config",
      content: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${touch("fsmonitor")}\n\thooksPath = hooks\n`,
    },
    { path: "evil/objects/info/.keep", content: "" },
    { path: "evil/refs/heads/.keep", content: "" },
    { path: "vendor-cache/bare.git/HEAD", content: "ref: refs/heads/main\n" },
    { path: "vendor-cache/bare.git/config", content: `[core]\n\tbare = true\n\tfsmonitor = ${touch("bare-fsmonitor")}\n` },
    { path: "vendor-cache/bare.git/objects/info/.keep", content: "" },
    { path: "vendor-cache/bare.git/refs/heads/.keep", content: "" },
    ...["evil", "vendor-cache/bare.git"].flatMap((dir) =>
      ["post-checkout", "pre-commit", "post-merge", "reference-transaction", "fsmonitor-watchman"].map((h) => ({
        path: `${dir}/hooks/${h}`,
        content: script(`hook-${h}`),
        mode: "100755" as const,
      })),
    ),
    { path: "setup.py", content: `open("${join(markers, "setup-py")}", "w").close()\n` },
    { path: "conftest.py", content: `open("${join(markers, "conftest-py")}", "w").close()\n` },
    { path: "Makefile", content: `all:\n\t${touch("make")}\n` },
    { path: ".envrc", content: `${touch("envrc")}\n` },
    { path: "build.sh", content: script("build-sh"), mode: "100755" },
    { path: "app.py", content: PY_EXEC },
  ];
  fastImportCommit(repo.path, entries);
  const o = await scanRepo(repo.url, {
    inCheckout: async (checkout) => {
      // Any git the worker might run on the checkout uses the hardening: inside a nested
      // repository, git refuses it instead of reading its config.
      const home = mkdtempSync(join(root, "git-home-"));
      for (const dir of ["evil", "vendor-cache/bare.git"]) {
        const status = spawnSync("git", [...hardenedGitConfig(false).flatMap((c) => ["-c", c]), "status"], {
          cwd: join(checkout, dir),
          env: hardenedGitEnv(home, false),
          encoding: "utf8",
        });
        expect({ dir, status: status.status === 0 ? "ran" : "refused", stderr: status.stderr }).toEqual({
          dir,
          status: "refused",
          stderr: expect.stringMatching(/cannot use bare repository/),
        });
      }
      await expectOnlyCommittedFiles(
        checkout,
        entries.map((e) => String(e.path)),
      );
    },
  });
  expect(readdirSync(markers)).toEqual([]);
  expect(filesWithFindings(expectCompleted(o).findings)).toContain("app.py");

  // Control: with git's old default the nested repository is used and its fsmonitor runs.
  const control = join(root, "nested-control");
  gitIn(root, ["clone", "-q", repo.url, control]);
  spawnSync("git", ["-c", "safe.bareRepository=all", "status"], {
    cwd: join(control, "evil"),
    env: { PATH: process.env.PATH ?? "", HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
  });
  expect(readdirSync(markers)).toContain("fsmonitor");
  removeTree(join(markers, "fsmonitor"));
});

describe("a 1 GiB blob of zeros (about 5 MiB packed)", () => {
  const LIMIT = 256 * MIB;
  let outcome: ScanOutcome;
  let peakOnDisk = 0;

  beforeAll(async () => {
    hostile("1 GiB highly compressible blob");
    const repo = initRepo(join(root, "gigabyte"));
    const blob = await writeZeroBlob(repo.path, 1024 ** 3);
    fastImportCommit(repo.path, [
      { path: "zeros.bin", id: blob },
      { path: "main.c", content: C_GETS },
    ]);
    let checkout = "";
    const poll = setInterval(() => {
      if (!checkout) return;
      try {
        // git writes every byte (no holes), so the length is what the disk holds.
        peakOnDisk = Math.max(peakOnDisk, statSync(join(checkout, "zeros.bin")).size);
      } catch {
        // not written yet, or already removed
      }
    }, 20);
    try {
      outcome = await scanRepo(repo.url, { maxRepoBytes: LIMIT, onCheckout: (c) => (checkout = c) });
    } finally {
      clearInterval(poll);
    }
  }, 180_000);

  it("is refused by the size limit with a clear message, promptly, and the workspace is removed", () => {
    expectRefused(outcome, /^Repository exceeds the size limit of 256 MiB\.$/);
    process.stdout.write(
      `hostile-repos: 1 GiB blob refused after ${Math.round(outcome.ms)} ms (peak ${Math.round(peakOnDisk / MIB)} MiB on disk)\n`,
    );
    expect(outcome.ms).toBeLessThan(60_000);
  });

  it("is refused before much more than the limit is written to disk", () => {
    // The transfer watcher sees ~5 MiB and the checkout walk runs after git wrote every byte,
    // so the bytes on disk are bounded by the repository's expanded size, not by the limit.
    expect(peakOnDisk).toBeLessThanOrEqual(2 * LIMIT);
  });
});

(process.env.AX_SLOW_TESTS ? describe : describe.skip)("100,000 tiny files (AX_SLOW_TESTS)", () => {
  it(
    "completes: there is no file-count limit; each analyzer is bounded by its time limit",
    async () => {
      hostile("100,000 tiny files");
      const repo = initRepo(join(root, "many"));
      const exts = ["py", "js", "c", "sh", "txt"];
      const entries: TreeEntry[] = Array.from({ length: 100_000 }, (_, i) => ({
        path: `d${Math.floor(i / 1000)}/f${i}.${exts[i % exts.length]}`,
        content: "x = 1\n",
      }));
      entries.push({ path: "needle/vuln.py", content: PY_EXEC });
      fastImportCommit(repo.path, entries);
      const o = await scanRepo(repo.url, { maxRepoBytes: 500 * MIB, analyzerTimeoutMs: 300_000 });
      process.stdout.write(
        `hostile-repos: 100,000 files scanned in ${Math.round(o.ms / 1000)} s: ${JSON.stringify(o.result?.analyzers.map((a) => [a.name, a.status, a.duration_ms]))}\n`,
      );
      const r = expectCompleted(o);
      expect(r.selection).toMatchObject({ files: 100_001, skipped: expect.objectContaining({ truncated: false }) });
      expect(filesWithFindings(r.findings)).toContain("needle/vuln.py");
      expect(o.ms).toBeLessThan(15 * 60_000);
    },
    20 * 60_000,
  );
});

describe("file names", () => {
  /** Scans a repository of vulnerable files with these names; returns the names with no finding at that exact path. */
  async function namesWithoutFindings(name: string, files: (string | Buffer)[]): Promise<{ missing: string[]; reported: string[] }> {
    const repo = initRepo(join(root, name));
    const entries = files.map((path) => ({ path, content: byExtension(String(path)) }));
    fastImportCommit(repo.path, entries);
    const o = await scanRepo(repo.url, { inCheckout: (checkout) => expectOnlyCommittedFiles(checkout, files.map(String)) });
    const reported = [...filesWithFindings(expectCompleted(o).findings)];
    return { missing: files.map(String).filter((f) => !reported.includes(f)), reported };
  }

  it("leading dashes, option look-alikes, newlines, quotes and shell syntax are file names: findings at the exact path", async () => {
    const names = [
      "-rf.py",
      "--output=x.c",
      "--help.c",
      "-e.sh",
      "--.py",
      "-",
      "dir -x/--version.sh",
      "--upload-pack=touch pwned.py",
      "-c core.fsmonitor=touch pwned.sh",
      "a\nb.py",
      "new\nline.c",
      "cr\rlf.py",
      "with space.c",
      "tab\there.py",
      'quote"s.py',
      "$(touch pwned).sh",
      "`touch pwned`.py",
      ";rm -rf ~;.py",
      "*.c",
      "[a].c",
      "..py",
      ".. .c",
    ];
    names.forEach((n) => hostile(`file name ${JSON.stringify(n)}`));
    const { missing } = await namesWithoutFindings("names-ascii", names);
    expect(missing).toEqual([]);
    for (const stray of ["x", "pwned"]) expect(existsSync(join(process.cwd(), stray))).toBe(false);
  });

  it("non-ASCII names: findings at the exact path, from every analyzer", async () => {
    const names = ["ünïcødé-日本.py", "ünïcødé-日本.c", "ünïcødé-日本.sh", "emoji-🔥.sh", "é.sh", "nfd-e\u0301.c"];
    names.forEach((n) => hostile(`file name ${JSON.stringify(n)}`));
    const { missing, reported } = await namesWithoutFindings("names-unicode", names);
    expect({ missing, reported: reported.filter((r) => !names.includes(r)) }).toEqual({ missing: [], reported: [] });
  });

  it("a backslash in a name: the finding is not attributed to the file the name imitates", async () => {
    hostile("file name with a backslash imitating a path");
    const repo = initRepo(join(root, "names-backslash"));
    fastImportCommit(repo.path, [
      { path: "src/app.py", content: "print('safe')\n" },
      { path: "src\\app.py", content: PY_EXEC },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect([...filesWithFindings(r.findings)]).toEqual(["src\\app.py"]);
  });
});

describe("non-UTF-8 content and names", () => {
  const latin1 = (s: string) => Buffer.from(s, "latin1");

  it("Latin-1 C, Python and shell files are analyzed, with findings at the repository path", async () => {
    hostile("Latin-1 encoded C, Python and shell sources");
    const repo = initRepo(join(root, "latin1"));
    fastImportCommit(repo.path, [
      { path: "legacy.c", content: latin1(`/* r\xe9sum\xe9 \xff\xfe */\n${C_GETS.replace("gets(buf);", "gets(buf); /* \xe0 */")}`) },
      {
        path: "declared.py",
        content: latin1(`# -*- coding: latin-1 -*-\nimport os\n\ndef f(x):\n    s = 'caf\xe9'\n    os.system(x)\n    return eval(x)\n`),
      },
      { path: "undeclared.py", content: latin1(`import os\n\ndef f(x):\n    s = 'caf\xe9'\n    os.system(x)\n`) },
      { path: "latin.sh", content: latin1(`#!/bin/sh\n# \xe9t\xe9\nrm -rf $1/*\n`) },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    // A finding two analyzers agree on is merged: the analyzer may be among its sources.
    const at = (file: string, analyzer: string, line: number) =>
      expect(
        r.findings.some(
          (f) =>
            f.file === file && f.start_line === line && (f.analyzer === analyzer || (f.sources ?? []).some((s) => s.analyzer === analyzer)),
        ),
      ).toBe(true);
    at("legacy.c", "flawfinder", 5); // read through a sanitized copy, reported at the repository path
    at("declared.py", "bandit", 6);
    at("latin.sh", "shellcheck", 3);
  });

  it("a Latin-1 JavaScript file is analyzed like its UTF-8 twin (ast-grep is the only JavaScript analyzer)", async () => {
    hostile("Latin-1 encoded JavaScript");
    const js = (comment: string) =>
      `// ${comment}\nconst express = require("express");\nconst app = express();\napp.get("/", (req, res) => {\n  res.send(String(eval(req.query.x)));\n});\n`;
    const repo = initRepo(join(root, "latin1-js"));
    fastImportCommit(repo.path, [
      { path: "utf8.js", content: js("caf\u00e9") },
      { path: "latin1.js", content: latin1(js("caf\xe9")) },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    const evals = r.findings.filter((f) => f.cwe_id === "CWE-95").map((f) => `${f.file}:${f.start_line}`);
    expect(evals.sort()).toEqual(["latin1.js:5", "utf8.js:5"]);
  });

  it("a file name that is not UTF-8 does not stop the scan of the other files", async () => {
    hostile("file name with Latin-1 bytes");
    const repo = initRepo(join(root, "latin1-name"));
    fastImportCommit(repo.path, [
      { path: latin1("caf\xe9.c"), content: C_GETS },
      { path: "ok.py", content: PY_EXEC },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect(filesWithFindings(r.findings)).toContain("ok.py");
  });
});

describe("paths git refuses to check out", () => {
  it.each([
    ["an entry named '..'", ".."],
    ["an entry named '.GIT' holding hooks", ".GIT"],
  ])("%s: a clear refusal, nothing written outside, no hook runs", async (_what, name) => {
    hostile(`tree entry ${name}`);
    const repo = initRepo(join(root, `escape-${name.replace(/\W/g, "_")}`));
    const hook = hashBlob(repo.path, `#!/bin/sh\ntouch ${join(markers, "escape-hook")}\n`);
    const hooks = gitIn(repo.path, ["mktree"], `100755 blob ${hook}\tpost-checkout\n`).trim();
    const entry =
      name === ".."
        ? `100644 blob ${hook}\t..`
        : `040000 tree ${gitIn(repo.path, ["mktree"], `040000 tree ${hooks}\thooks\n`).trim()}\t.GIT`;
    mktreeCommit(repo.path, [entry, `100644 blob ${hashBlob(repo.path, PY_EXEC)}\tapp.py`]);
    const o = await scanRepo(repo.url);
    expect(readdirSync(workspaces)).toEqual([]);
    expectRefused(o);
  });
});

describe("deep nesting and long paths", () => {
  it("200 directories deep and a 3,000-character path: analyzed, findings at the exact path", async () => {
    hostile("200-level directory nesting");
    hostile("3,000-character path");
    const deep = `${Array.from({ length: 200 }, (_, i) => `d${i}`).join("/")}/deep.py`;
    const long = `${Array.from({ length: 14 }, (_, i) => `${i}`.padEnd(200, "L")).join("/")}/${"n".repeat(150)}.c`;
    const repo = initRepo(join(root, "deep"));
    fastImportCommit(repo.path, [
      { path: deep, content: PY_EXEC },
      { path: long, content: C_GETS },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect([...filesWithFindings(r.findings)].sort()).toEqual([deep, long].sort());
  });

  it("a path git can check out but that is longer than PATH_MAX once joined to the workspace: a clear refusal", async () => {
    hostile("path longer than PATH_MAX inside the workspace");
    // Checkout is <workspaces>/scan-XXXXXX/src: pick a relative length git accepts (< 4096)
    // that puts the absolute path past 4096.
    const relative = 4096 - (workspaces.length + "/scan-XXXXXX/src/".length) + 24;
    expect(relative).toBeLessThan(4090);
    let path = "";
    while (path.length + 201 < relative - 10) path += `${"P".repeat(200)}/`;
    path += `${"n".repeat(relative - path.length - 2)}.c`;
    const repo = initRepo(join(root, "path-max"));
    fastImportCommit(repo.path, [{ path, content: C_GETS }]);
    expectRefused(await scanRepo(repo.url));
  });

  it("1,000 directories deep (more than git can check out): a clear refusal, workspace removed", async () => {
    hostile("1,000-level directory nesting");
    const repo = initRepo(join(root, "deeper"));
    fastImportCommit(repo.path, [
      { path: `${Array.from({ length: 1000 }, (_, i) => `d${i}`).join("/")}/deep.py`, content: PY_EXEC },
      { path: "ok.py", content: PY_EXEC },
    ]);
    expectRefused(await scanRepo(repo.url));
  });
});

describe("hostile git_uri in the worker: refused before any connection", () => {
  let recorder: Awaited<ReturnType<typeof connectionRecorder>>;
  const loopbackName = loopbackHostsName(existsSync("/etc/hosts") ? readFileSync("/etc/hosts", "utf8") : "");
  // A name that the system resolver maps to 127.x from /etc/hosts, so git, if allowed to
  // connect, would reach the recorder. Without one, the refusals still hold but prove less.
  const host = loopbackName ?? "repo.invalid";

  beforeAll(async () => {
    recorder = await connectionRecorder();
  });
  afterAll(() => recorder.close());

  async function cloneStrict(gitUri: string, answer: Awaited<ReturnType<ResolveHost>> | Error) {
    const asked: string[] = [];
    const resolveHost: ResolveHost = async (name) => {
      asked.push(name);
      if (answer instanceof Error) throw answer;
      return answer;
    };
    const dest = join(root, `strict-${randomBytes(4).toString("hex")}`);
    const error = await cloneRepository({ gitUri, dest, allowInsecure: false, timeoutMs: 15_000, maxRepoBytes: MIB, resolveHost }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    return { error, asked, destExists: existsSync(dest) };
  }

  it.each([
    "https://127.0.0.1:PORT/r.git",
    "https://127.1:PORT/r.git",
    "https://2130706433:PORT/r.git",
    "https://0x7f000001:PORT/r.git",
    "https://0177.0.0.1:PORT/r.git",
    "https://[::1]:PORT/r.git",
    "https://[::ffff:127.0.0.1]:PORT/r.git",
    "https://localhost:PORT/r.git",
    "https://LOCALHOST.:PORT/r.git",
    "https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3:PORT/r.git",
    "https://\uff11\uff12\uff17.0.0.1:PORT/r.git",
    "http://127.0.0.1:PORT/r.git",
    "https://user:pass@127.0.0.1:PORT/r.git",
    "ext::sh -c touch% MARKERS/ext",
    "--upload-pack=touch MARKERS/upload-pack",
    "-oProxyCommand=touch MARKERS/proxy",
    "file:///etc",
    "/etc",
    "git@127.0.0.1:r.git",
  ])("%s is refused at validation: no lookup, no connection", async (template) => {
    const uri = template.replace("PORT", String(recorder.port)).replace("MARKERS", markers);
    hostile(`git_uri ${uri}`);
    const { error, asked, destExists } = await cloneStrict(uri, ["203.0.113.7"]);
    expect(error).toBeInstanceOf(ScanInputError);
    expect({ asked, destExists, connections: recorder.connections() }).toEqual({ asked: [], destExists: false, connections: 0 });
  });

  it.each([
    [["10.0.0.5"]],
    [["169.254.169.254"]],
    [["127.0.0.1"]],
    [["::1"]],
    [["fe80::1"]],
    [["fd00::7"]],
    [["::ffff:10.0.0.1"]],
    [["192.168.1.1"]],
    [["100.64.0.1"]],
    [["203.0.113.7", "10.1.2.3"]],
  ])("a name resolving to %j is refused at resolution: no connection", async (answer) => {
    hostile(`git_uri host resolving to ${answer.join(",")}`);
    const { error, asked, destExists } = await cloneStrict(`https://${host}:${recorder.port}/org/repo.git`, answer);
    expect(error).toBeInstanceOf(ScanInputError);
    expect((error as Error).message).toBe(`The host ${host} resolves to a private, loopback or link-local address.`);
    expect({ asked, destExists, connections: recorder.connections() }).toEqual({ asked: [host], destExists: false, connections: 0 });
  });

  it("a name that does not resolve is refused with a reason: no connection", async () => {
    hostile("git_uri host that does not resolve");
    const { error } = await cloneStrict(
      `https://${host}:${recorder.port}/org/repo.git`,
      Object.assign(new Error("nope"), { code: "ENOTFOUND" }),
    );
    expect((error as Error).message).toBe(`The host ${host} could not be resolved.`);
    expect(recorder.connections()).toBe(0);
  });

  (loopbackName ? it : it.skip)("control: when the resolver says public, git does connect (to the loopback recorder)", async () => {
    const before = recorder.connections();
    const { error } = await cloneStrict(`https://${host}:${recorder.port}/org/repo.git`, ["203.0.113.7"]);
    expect(error).not.toBeNull();
    expect(recorder.connections()).toBeGreaterThan(before);
  });
});

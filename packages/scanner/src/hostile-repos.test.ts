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
 * Here: links, submodules, hooks and scripts, very large blobs and trees. Also
 * hostile-repo-trees.test.ts (names, encodings, paths) and hostile-git-uri.test.ts. The
 * 100,000-file case runs only with AX_SLOW_TESTS=1.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { hardenedGitConfig, hardenedGitEnv } from "./git/hardening";
import { runAnalyzers } from "./run";
import {
  fastImportCommit,
  gitIn,
  hashBlob,
  initRepo,
  mktreeCommit,
  removeTree,
  walk,
  writeZeroBlob,
  type TreeEntry,
} from "../test/hostile-fixtures";
import {
  MIB,
  CANARY,
  C_GETS,
  PY_EXEC,
  root,
  markers,
  outside,
  hostile,
  type ScanOutcome,
  scanRepo,
  expectCompleted,
  expectRefused,
  filesWithFindings,
  expectOnlyCommittedFiles,
} from "../test/hostile-harness";

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
        `hostile-repos: 100,000 files scanned in ${Math.round(o.ms / 1000)} s: ` +
          `${JSON.stringify(o.result?.analyzers.map((a) => [a.name, a.status, a.duration_ms]))}\n`,
      );
      const r = expectCompleted(o);
      expect(r.selection).toMatchObject({ files: 100_001, skipped: expect.objectContaining({ truncated: false }) });
      expect(filesWithFindings(r.findings)).toContain("needle/vuln.py");
      expect(o.ms).toBeLessThan(15 * 60_000);
    },
    20 * 60_000,
  );
});

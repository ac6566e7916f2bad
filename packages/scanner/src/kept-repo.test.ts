/**
 * The kept per-project repository, through checkoutRepository with real repositories made
 * here and fetched over file:// (no network).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkoutRepository, type CloneOptions } from "./clone";
import { ScanInputError } from "./errors";
import { claimKeptRepo, discardKeptRepo } from "./kept-repo";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../test/git-fixtures";

const MIB = 1024 * 1024;
let root: string;
beforeAll(() => (root = tempDir()));
afterAll(() => removeDir(root));

let n = 0;
const opts = (stateDir: string, gitUri: string, over: Partial<CloneOptions> = {}): CloneOptions => ({
  gitUri,
  dest: join(root, `dest-${++n}`),
  allowInsecure: true,
  timeoutMs: 30_000,
  maxRepoBytes: 10 * MIB,
  stateDir,
  ...over,
});

const kept = (stateDir: string) => join(stateDir, "git-repo");
const packs = (stateDir: string) => readdirSync(join(kept(stateDir), "git", "objects", "pack")).filter((f) => f.endsWith(".pack")).length;
const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");

describe("a rescan through the kept repository", () => {
  it("fetches only the new commit into it and checks that commit's files out", async () => {
    const src = makeRepo(root, "src-new-commit", {
      "a.py": "print(1)\n",
      "b.py": "print(2)\n",
      "gone.py": "x\n",
      link: { symlink: "/etc/passwd" },
    });
    const state = join(root, "state-new-commit");
    const first = opts(state, src.url);
    await expect(checkoutRepository(first)).resolves.toMatchObject({ commit: src.head, branch: "main" });
    expect(packs(state)).toBe(1);

    git(src.path, ["rm", "-q", "gone.py"]);
    const head = commitFiles(src.path, { "a.py": "print('changed')\n", "new/c.py": "print(3)\n" }, "second");
    const second = opts(state, src.url);
    const result = await checkoutRepository(second);
    expect(result).toMatchObject({ commit: head, branch: "main", base: null });
    // The kept repository was used: its first pack plus the second fetch's.
    expect(packs(state)).toBe(2);
    expect(read(second.dest, "a.py")).toBe("print('changed')\n");
    expect(read(second.dest, "b.py")).toBe("print(2)\n");
    expect(read(second.dest, "new/c.py")).toBe("print(3)\n");
    expect(existsSync(join(second.dest, "gone.py"))).toBe(false);
    // git replaced the changed file (a new inode): the first scan's link still reads its commit.
    expect(read(first.dest, "a.py")).toBe("print(1)\n");
    expect(lstatSync(join(second.dest, "link")).isSymbolicLink()).toBe(false);
    expect(read(second.dest, "link")).toBe("/etc/passwd");
    // dest holds the files only; the repository stays in the state directory.
    expect(existsSync(join(second.dest, ".git"))).toBe(false);
    expect([...result.blobs.keys()].sort()).toEqual(["a.py", "b.py", "link", "new/c.py"]);
    expect(result.blobs.get("a.py")).toBe(git(src.path, ["rev-parse", "HEAD:a.py"]).trim());
  });

  it("follows a path that changes between file, directory and link from one commit to the next", async () => {
    const src = makeRepo(root, "src-types", { a: "file\n", "b/inner.py": "print(1)\n" });
    const state = join(root, "state-types");
    await checkoutRepository(opts(state, src.url));
    git(src.path, ["rm", "-q", "-r", "a", "b"]);
    commitFiles(src.path, { "a/inner.py": "print(2)\n", b: { symlink: "/etc" } }, "swap");
    const swapped = opts(state, src.url);
    await checkoutRepository(swapped);
    expect(read(swapped.dest, "a/inner.py")).toBe("print(2)\n");
    expect(lstatSync(join(swapped.dest, "b")).isFile()).toBe(true);
    expect(read(swapped.dest, "b")).toBe("/etc");
    git(src.path, ["rm", "-q", "-r", "a", "b"]);
    commitFiles(src.path, { a: "file again\n" }, "back");
    const back = opts(state, src.url);
    await checkoutRepository(back);
    expect(readdirSync(back.dest)).toEqual(["a"]);
    expect(read(back.dest, "a")).toBe("file again\n");
  });

  it("keeps nothing the remote controls: one ref of ours, no remote, no hooks, no FETCH_HEAD", async () => {
    const src = makeRepo(root, "src-nothing-kept", { "a.py": "print(1)\n" });
    git(src.path, ["tag", "v1"]);
    const state = join(root, "state-nothing-kept");
    await checkoutRepository(opts(state, src.url));
    const gitDir = join(kept(state), "git");
    expect(git(root, ["--git-dir", gitDir, "for-each-ref", "--format=%(refname)"]).trim()).toBe("refs/ax/fetched");
    expect(readFileSync(join(gitDir, "config"), "utf8")).not.toMatch(/remote|url|hooks|fsmonitor/i);
    expect(existsSync(join(gitDir, "hooks"))).toBe(false);
    expect(existsSync(join(gitDir, "FETCH_HEAD"))).toBe(false);
    expect(readdirSync(state)).toEqual(["git-repo"]);
  });

  it("follows a force-push that rewrote the history", async () => {
    const src = makeRepo(root, "src-force", { "old.py": "print('old')\n", "shared.py": "same\n" });
    const state = join(root, "state-force");
    await checkoutRepository(opts(state, src.url));
    git(src.path, ["checkout", "-q", "--orphan", "rewritten"]);
    git(src.path, ["rm", "-q", "-r", "--cached", "."]);
    removeDir(join(src.path, "old.py"));
    const head = commitFiles(src.path, { "shared.py": "same\n", "fresh.py": "print('new')\n" }, "rewritten");
    git(src.path, ["branch", "-q", "-M", "rewritten", "main"]);
    const o = opts(state, src.url);
    await expect(checkoutRepository(o)).resolves.toMatchObject({ commit: head, branch: "main" });
    expect(readdirSync(o.dest).sort()).toEqual(["fresh.py", "shared.py"]);
  });

  it("checks out another branch of the same repository, then the default one again", async () => {
    const src = makeRepo(root, "src-branch", { "main.py": "print('main')\n" });
    const mainHead = src.head;
    git(src.path, ["checkout", "-q", "-b", "feature"]);
    const featureHead = commitFiles(src.path, { "feature.py": "print('feature')\n" }, "feature");
    git(src.path, ["checkout", "-q", "main"]);
    const state = join(root, "state-branch");
    await checkoutRepository(opts(state, src.url));
    const feature = opts(state, src.url, { branch: "feature" });
    await expect(checkoutRepository(feature)).resolves.toMatchObject({ commit: featureHead, branch: "feature" });
    expect(read(feature.dest, "feature.py")).toBe("print('feature')\n");
    const back = opts(state, src.url);
    await expect(checkoutRepository(back)).resolves.toMatchObject({ commit: mainHead, branch: "main" });
    expect(existsSync(join(back.dest, "feature.py"))).toBe(false);
  });

  it("does not reuse a repository kept for another URL", async () => {
    const a = makeRepo(root, "src-url-a", { "a.py": "print('a')\n" });
    const b = makeRepo(root, "src-url-b", { "b.py": "print('b')\n" });
    const state = join(root, "state-url");
    await checkoutRepository(opts(state, a.url));
    commitFiles(a.path, { "a2.py": "print('a2')\n" });
    const o = opts(state, b.url);
    await expect(checkoutRepository(o)).resolves.toMatchObject({ commit: b.head });
    expect(readdirSync(o.dest)).toEqual(["b.py"]);
    // Started from an empty repository: one pack, and none of a's objects.
    expect(packs(state)).toBe(1);
    expect(readFileSync(join(kept(state), "origin"), "utf8")).toContain(b.path);
  });

  it("fetches a baseline into the kept repository and checks out its merge-base apart, leaving the kept checkout's index alone", async () => {
    const src = makeRepo(root, "src-baseline", { "a.py": "one\ntwo\nthree\n" });
    const baseline = src.head;
    const state = join(root, "state-baseline");
    await checkoutRepository(opts(state, src.url));
    const head = commitFiles(src.path, { "a.py": "one\nTWO\nthree\n", "b.py": "new\n" });
    const baselineDest = join(root, "baseline-tree");
    const result = await checkoutRepository(opts(state, src.url, { baseline, baselineDest }));
    expect(result.base).toMatchObject({ baseline, mergeBase: baseline, dir: baselineDest });
    expect(result.base?.lineMap.files).toEqual({ "a.py": { path: "a.py", hunks: [[2, 1, 2, 1]] } });
    expect(readdirSync(baselineDest)).toEqual(["a.py"]);
    expect(readFileSync(join(baselineDest, "a.py"), "utf8")).toBe("one\ntwo\nthree\n");
    // The next scan reuses the kept checkout: it must hold the commit's files, not the baseline's.
    const again = opts(state, src.url);
    await expect(checkoutRepository(again)).resolves.toMatchObject({ commit: head });
    expect(readFileSync(join(again.dest, "a.py"), "utf8")).toBe("one\nTWO\nthree\n");
    const unknown = await checkoutRepository(opts(state, src.url, { baseline: "0".repeat(40) })).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ScanInputError);
  });
});

describe("a kept repository that cannot be trusted", () => {
  it("falls back to a fresh clone when its objects are corrupt", async () => {
    const src = makeRepo(root, "src-corrupt", { "a.py": "print(1)\n" });
    const state = join(root, "state-corrupt");
    await checkoutRepository(opts(state, src.url));
    const packDir = join(kept(state), "git", "objects", "pack");
    for (const f of readdirSync(packDir)) writeFileSync(join(packDir, f), "garbage");
    const head = commitFiles(src.path, { "b.py": "print(2)\n" });
    const o = opts(state, src.url);
    await expect(checkoutRepository(o)).resolves.toMatchObject({ commit: head });
    expect(readdirSync(o.dest).sort()).toEqual(["a.py", "b.py"]);
    expect(read(o.dest, "a.py")).toBe("print(1)\n");
  });

  it("clones as usual when the state directory cannot be used", async () => {
    const src = makeRepo(root, "src-nostate", { "a.py": "print(1)\n" });
    const blocker = join(root, "state-is-a-file");
    writeFileSync(blocker, "");
    const o = opts(join(blocker, "org", "project"), src.url);
    await expect(checkoutRepository(o)).resolves.toMatchObject({ commit: src.head });
    expect(read(o.dest, "a.py")).toBe("print(1)\n");
  });

  it("falls back to a fresh clone when its git directory is gone", async () => {
    const src = makeRepo(root, "src-nogit", { "a.py": "print(1)\n" });
    const state = join(root, "state-nogit");
    await checkoutRepository(opts(state, src.url));
    removeDir(join(kept(state), "git"));
    const o = opts(state, src.url);
    await expect(checkoutRepository(o)).resolves.toMatchObject({ commit: src.head });
    expect(read(o.dest, "a.py")).toBe("print(1)\n");
  });

  it("rewrites a kept file changed in place (same size, same mtime) and never links a planted one", async () => {
    const src = makeRepo(root, "src-tamper", { "a.py": "print(1)\n", "b.py": "print(2)\n" });
    const state = join(root, "state-tamper");
    const first = opts(state, src.url);
    await checkoutRepository(first);
    const keptFile = join(kept(state), "tree", "a.py");
    const { atime, mtime } = statSync(keptFile);
    // Written through the scan's hard link, as a misbehaving tool would.
    writeFileSync(join(first.dest, "a.py"), "print(9)\n");
    utimesSync(keptFile, atime, mtime);
    expect(readFileSync(keptFile, "utf8")).toBe("print(9)\n");
    writeFileSync(join(kept(state), "tree", "planted.py"), "import os\n");
    const o = opts(state, src.url);
    await checkoutRepository(o);
    expect(read(o.dest, "a.py")).toBe("print(1)\n");
    expect(readdirSync(o.dest).sort()).toEqual(["a.py", "b.py"]);
  });

  it("enforces the size limit on a rescan, from the object store, before writing", async () => {
    const src = makeRepo(root, "src-size", { "a.py": "print(1)\n" });
    const state = join(root, "state-size");
    await checkoutRepository(opts(state, src.url, { maxRepoBytes: MIB }));
    commitFiles(src.path, { "zeros.bin": Buffer.alloc(3 * MIB) });
    const o = opts(state, src.url, { maxRepoBytes: MIB });
    const err = await checkoutRepository(o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toBe("Repository exceeds the size limit of 1 MiB.");
    expect(existsSync(o.dest)).toBe(false);
    // The kept checkout never received the file either.
    expect(existsSync(join(kept(state), "tree", "zeros.bin"))).toBe(false);
  });
});

describe("kept repositories are per organization and project", () => {
  it("another project (or organization) scanning the same URL gets a repository of its own", async () => {
    const src = makeRepo(root, "src-projects", { "a.py": "print(1)\n" });
    const [p1, p2] = [join(root, "state-projects", "org-1", "project-1"), join(root, "state-projects", "org-2", "project-1")];
    await checkoutRepository(opts(p1, src.url));
    commitFiles(src.path, { "b.py": "print(2)\n" });
    await checkoutRepository(opts(p2, src.url));
    await checkoutRepository(opts(p1, src.url));
    // p1 fetched twice into its own; p2 started from nothing.
    expect([packs(p1), packs(p2)]).toEqual([2, 1]);
  });

  it("a claimed copy left by a worker that died is removed once older than the limit", async () => {
    const state = join(root, "state-abandoned");
    const src = makeRepo(root, "src-abandoned", { "a.py": "print(1)\n" });
    await checkoutRepository(opts(state, src.url));
    const abandoned = join(state, "git-repo.busy-0123456789ab");
    git(root, ["init", "-q", "--bare", abandoned]);
    await new Promise((r) => setTimeout(r, 20));
    const repo = await claimKeptRepo(state, "unused", 10);
    expect(existsSync(abandoned)).toBe(false);
    await discardKeptRepo(repo);
  });
});

describe("concurrent scans of one project", () => {
  it("never share a kept repository: one claims it, the other starts from an empty one", async () => {
    const src = makeRepo(root, "src-claim", { "a.py": "print(1)\n" });
    const state = join(root, "state-claim");
    await checkoutRepository(opts(state, src.url));
    const url = readFileSync(join(kept(state), "origin"), "utf8").split("\n")[1] ?? "";
    const [x, y] = await Promise.all([claimKeptRepo(state, url, 60_000), claimKeptRepo(state, url, 60_000)]);
    expect(x?.dir).not.toBe(y?.dir);
    expect([x?.reused, y?.reused].sort()).toEqual([false, true]);
    await Promise.all([x, y].map((r) => r && discardKeptRepo(r)));
  });

  it("both complete with the right files, and one repository is kept afterwards", async () => {
    const src = makeRepo(root, "src-concurrent", { "a.py": "print(1)\n" });
    const state = join(root, "state-concurrent");
    await checkoutRepository(opts(state, src.url));
    const head = commitFiles(src.path, { "b.py": "print(2)\n" });
    const [o1, o2] = [opts(state, src.url), opts(state, src.url)];
    const results = await Promise.all([checkoutRepository(o1), checkoutRepository(o2)]);
    expect(results.map((r) => r.commit)).toEqual([head, head]);
    for (const o of [o1, o2]) expect(readdirSync(o.dest).sort()).toEqual(["a.py", "b.py"]);
    expect(readdirSync(state)).toEqual(["git-repo"]);
  });
});

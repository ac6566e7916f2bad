/**
 * Issue 17: failures caused by the repository are the submitter's to fix, so each must end the
 * clone with a ScanInputError of one plain sentence (never git's own text, its progress lines,
 * paths or object ids), and refusals must come before any connection. Real repositories, broken
 * on disk after the commit, served through file://; a loopback port nobody listens on; and,
 * for names, an injected resolver: no test here sends anything beyond 127.0.0.1.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { cloneRepository, type CloneOptions } from "./clone";
import { ScanInputError } from "./errors";
import { mapCloneError } from "./git/clone-errors";
import { GitCommandError } from "./git/run";
import { gitErrorText } from "./git/stderr";
import { git, makeRepo, removeDir, tempDir } from "../test/git-fixtures";

const CORRUPT =
  "The repository could not be fetched: the server's copy is missing objects or has corrupt ones (its owner can check it with `git fsck`).";

let root: string;
beforeAll(() => (root = tempDir("ax-clone-failures-")));
afterAll(() => removeDir(root));

const clone = (over: Partial<CloneOptions> & { gitUri: string }) =>
  cloneRepository({
    dest: join(root, `dest-${Math.random().toString(36).slice(2)}`),
    allowInsecure: true,
    timeoutMs: 30_000,
    maxRepoBytes: 50 * 1024 * 1024,
    ...over,
  });

/** Enough files that git prints kilobytes of progress before it fails. */
function manyFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`src/f${i}.txt`] = `${i} ${"x".repeat(i)}\n`;
  return files;
}

/** The loose object file of `rev` in the repository at `path`. */
function objectFile(path: string, rev: string): string {
  const id = git(path, ["rev-parse", rev]).trim();
  return join(path, ".git", "objects", id.slice(0, 2), id.slice(2));
}

/** The sentence a submitter gets: short, and none of git's text, paths or object ids. */
function expectPlainSentence(err: unknown, sentence: string | RegExp): void {
  expect(err).toBeInstanceOf(ScanInputError);
  const message = (err as Error).message;
  expect(message).toMatch(sentence);
  expect(message.length).toBeLessThanOrEqual(300);
  expect(message).not.toMatch(/remote:|Counting objects|fatal:|error:|[0-9a-f]{40}/);
  expect(message).not.toContain(root);
}

describe("a repository with missing or corrupt objects", () => {
  const broken: [string, () => string][] = [
    [
      "a blob deleted after the commit",
      () => {
        const repo = makeRepo(root, "missing-blob", manyFiles());
        rmSync(objectFile(repo.path, "HEAD:src/f7.txt"));
        return repo.url;
      },
    ],
    [
      "the root tree deleted",
      () => {
        const repo = makeRepo(root, "missing-tree", { "a.py": "print(1)\n" });
        rmSync(objectFile(repo.path, "HEAD^{tree}"));
        return repo.url;
      },
    ],
    [
      "the commit itself deleted",
      () => {
        const repo = makeRepo(root, "missing-commit", { "a.py": "print(1)\n" });
        rmSync(objectFile(repo.path, "HEAD"));
        return repo.url;
      },
    ],
    [
      "a blob overwritten with garbage",
      () => {
        const repo = makeRepo(root, "corrupt-blob", { "a.py": "print(1)\n", "b.py": "print(2)\n" });
        const file = objectFile(repo.path, "HEAD:b.py");
        chmodSync(file, 0o644);
        writeFileSync(file, "not zlib at all");
        return repo.url;
      },
    ],
  ];

  it.each(broken)("%s: one plain sentence, no retry-worthy error, nothing left on disk", async (what, make) => {
    const url = make();
    const dest = join(root, `dest-${what.replace(/\W+/g, "-")}`);
    const err = await clone({ gitUri: url, dest }).catch((e: unknown) => e);
    expectPlainSentence(err, CORRUPT);
    expect(existsSync(dest)).toBe(false);
  });

  it("the same with a kept repository (the worker's path for projects)", async () => {
    const repo = makeRepo(root, "missing-blob-kept", manyFiles());
    rmSync(objectFile(repo.path, "HEAD:src/f9.txt"));
    const err = await clone({ gitUri: repo.url, stateDir: join(root, "state") }).catch((e: unknown) => e);
    expectPlainSentence(err, CORRUPT);
  });
});

describe("git's stderr as kept for classification", () => {
  it("drops the progress of a failed fetch, keeps why it failed, and stays small", () => {
    const repo = makeRepo(root, "progress-src", manyFiles());
    rmSync(objectFile(repo.path, "HEAD:src/f11.txt"));
    const into = join(root, "progress-dest");
    git(root, ["init", "-q", into]);
    // Plain git, as the clone runs it (--progress): the control shows what there is to drop.
    const run = spawnSync("git", ["-c", "protocol.file.allow=always", "fetch", "--progress", "--depth=1", "--", repo.url, "+HEAD:refs/x"], {
      cwd: into,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: root },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/remote: Counting objects: +\d+% \(\d+\/\d+\)/);
    expect(run.stderr.length).toBeGreaterThan(5_000);

    const kept = gitErrorText(run.stderr);
    expect(kept).not.toMatch(/objects: +\d|Total \d+ \(delta|\r/);
    expect(kept).not.toContain("\u001b");
    expect(kept).toMatch(/possible repository corruption/);
    expect(kept.length).toBeLessThan(1_000);
    expect(mapCloneError(new GitCommandError(kept), { branch: undefined, reason: null, sizeMessage: "", timeoutMs: 1 })).toBeInstanceOf(
      ScanInputError,
    );
  });

  it("keeps at most the last 4 KiB", () => {
    const text = gitErrorText(`${"warning: something long\n".repeat(1_000)}fatal: the reason`);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.endsWith("fatal: the reason")).toBe(true);
  });
});

describe("hosts that cannot be reached or resolved", () => {
  it("a loopback port nobody listens on: 'could not be reached', once", async () => {
    // A port the kernel just handed out and that was closed again.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const err = await clone({ gitUri: `http://127.0.0.1:${port}/o/r.git` }).catch((e: unknown) => e);
    expectPlainSentence(err, "The repository's host could not be reached (the connection was refused or timed out).");
  });

  it("an internationalised name that does not resolve fails at the DNS policy, before git runs", async () => {
    const asked: string[] = [];
    const resolveHost = async (host: string): Promise<string[]> => {
      asked.push(host);
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    };
    const dest = join(root, "idn-dest");
    const err = await clone({ gitUri: "https://exämple.com/x.git", allowInsecure: false, resolveHost, dest }).catch((e: unknown) => e);
    expectPlainSentence(err, "The host xn--exmple-cua.com could not be resolved.");
    expect(asked).toEqual(["xn--exmple-cua.com"]);
    expect(existsSync(dest)).toBe(false);
  });

  it.each([
    ["https:///x", /must name a host/],
    ["https://a/%ZZ", /'%' that is not followed by two hexadecimal digits/],
    ["https://xn--a.com/x.git", /not a valid internationalised domain name/],
    ["https://a_b.test/x.git", /not a valid host name/],
  ])("%s is refused by the clone's own check, before any name is resolved", async (gitUri, why) => {
    const asked: string[] = [];
    const resolveHost = async (host: string): Promise<string[]> => {
      asked.push(host);
      return ["127.0.0.1"];
    };
    for (const allowInsecure of [false, true]) {
      const err = await clone({ gitUri, allowInsecure, resolveHost }).catch((e: unknown) => e);
      expectPlainSentence(err, why);
    }
    expect(asked).toEqual([]);
  });

  // curl's wording, as git passes it on; producing it for real would need a DNS query.
  it("classifies curl's name-resolution and certificate failures as the repository's, and leaves transient ones to retry", () => {
    const map = (text: string) =>
      mapCloneError(new GitCommandError(text), { branch: undefined, reason: null, sizeMessage: "", timeoutMs: 1 });
    expect(map("fatal: unable to access 'https://git.example.test/o/r.git/': Could not resolve host: git.example.test")).toEqual(
      new ScanInputError("The repository's host name could not be resolved."),
    );
    expect(
      map("fatal: unable to access 'https://git.example.test/o/r.git/': SSL certificate problem: self-signed certificate"),
    ).toBeInstanceOf(ScanInputError);
    for (const transient of [
      "error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nfatal: early EOF",
      "fatal: unable to access 'https://h.test/r/': The requested URL returned error: 502",
    ]) {
      expect(map(transient)).not.toBeInstanceOf(ScanInputError);
    }
  });
});

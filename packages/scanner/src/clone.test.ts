import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cloneRepository, remoteCommit, type CloneOptions } from "./clone";
import { ScanInputError } from "./errors";
import { commitFiles, git, makeRepo, removeDir, tempDir } from "../test/git-fixtures";

const MIB = 1024 * 1024;
let root: string;
let source: { path: string; url: string; head: string };
let featureHead: string;

beforeAll(() => {
  root = tempDir();
  source = makeRepo(root, "source", { "README.md": "# demo\n", "src/app.js": "eval(x);\n" });
  git(source.path, ["checkout", "-q", "-b", "feature/login"]);
  featureHead = commitFiles(source.path, { "src/login.js": "exports.login = () => 1;\n" }, "feature");
  git(source.path, ["checkout", "-q", "main"]);
});
afterAll(() => removeDir(root));

/** A resolver that records the names it was asked for. */
function recordingResolver(addresses: string[]) {
  const asked: string[] = [];
  const resolveHost = async (host: string) => {
    asked.push(host);
    return addresses;
  };
  return { asked, resolveHost };
}

const opts = (over: Partial<CloneOptions>): CloneOptions => ({
  gitUri: source.url,
  dest: join(root, `dest-${Math.random().toString(36).slice(2)}`),
  allowInsecure: true,
  timeoutMs: 30_000,
  maxRepoBytes: 50 * MIB,
  ...over,
});

describe("cloneRepository", () => {
  it("clones the default branch over file:// and reports commit and branch", async () => {
    const o = opts({});
    await expect(cloneRepository(o)).resolves.toEqual({ commit: source.head, branch: "main" });
    expect(readFileSync(join(o.dest, "src/app.js"), "utf8")).toBe("eval(x);\n");
    expect(existsSync(join(o.dest, "src/login.js"))).toBe(false);
    // Shallow and single-branch: one commit, no other branches.
    expect(git(o.dest, ["rev-list", "--count", "HEAD"]).trim()).toBe("1");
    expect(git(o.dest, ["branch", "-r"])).not.toMatch(/feature/);
  });

  it("clones a named branch", async () => {
    const o = opts({ branch: "feature/login" });
    await expect(cloneRepository(o)).resolves.toEqual({ commit: featureHead, branch: "feature/login" });
    expect(existsSync(join(o.dest, "src/login.js"))).toBe(true);
  });

  it("accepts an absolute local path when insecure sources are allowed", async () => {
    await expect(cloneRepository(opts({ gitUri: source.path }))).resolves.toMatchObject({ commit: source.head });
  });

  it("refuses a branch that does not exist, as a permanent input error", async () => {
    const o = opts({ branch: "no-such-branch" });
    const err = await cloneRepository(o).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toBe('Branch "no-such-branch" was not found in the repository.');
    expect(existsSync(o.dest)).toBe(false);
  });

  it("refuses a repository that does not exist", async () => {
    const err = await cloneRepository(opts({ gitUri: `file://${join(root, "missing")}` })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toMatch(/not found/);
  });

  it("refuses an empty repository", async () => {
    const empty = join(root, "empty");
    git(root, ["init", "-q", empty]);
    const err = await cloneRepository(opts({ gitUri: `file://${empty}` })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toMatch(/empty/);
  });
});

describe("cloneRepository input policy (no git process is started)", () => {
  it.each([
    ["file:// under the strict policy", "file:///etc", false],
    ["a local path under the strict policy", "/tmp/repo", false],
    ["http under the strict policy", "http://github.com/a/b", false],
    ["the ext:: transport helper", "ext::sh -c touch% /tmp/pwned", true],
    ["an option-looking URL", "-uupload-pack=touch /tmp/x", true],
    ["--upload-pack", "--upload-pack=evil", true],
    ["credentials in the URL", "https://user:secret@github.com/a/b", false],
    ["a loopback literal", "https://127.0.0.1/a", false],
    ["cloud metadata", "https://169.254.169.254/latest", false],
  ])("refuses %s", async (_label, gitUri, allowInsecure) => {
    const { asked, resolveHost } = recordingResolver(["140.82.112.3"]);
    const o = opts({ gitUri, allowInsecure, resolveHost });
    await expect(cloneRepository(o)).rejects.toBeInstanceOf(ScanInputError);
    // git creates dest first thing; its absence shows git never ran.
    expect(existsSync(o.dest)).toBe(false);
    expect(asked).toEqual([]);
  });

  it.each(["-b", "--upload-pack=x", "a..b", "a b"])("refuses the branch %j", async (branch) => {
    const o = opts({ branch });
    await expect(cloneRepository(o)).rejects.toBeInstanceOf(ScanInputError);
    expect(existsSync(o.dest)).toBe(false);
  });

  it("refuses a public-looking host that resolves to an internal address, before connecting", async () => {
    const { asked, resolveHost } = recordingResolver(["140.82.112.3", "10.0.0.5"]);
    const o = opts({ gitUri: "https://git.example.com/org/repo.git", allowInsecure: false, resolveHost });
    await expect(cloneRepository(o)).rejects.toThrow(/private, loopback or link-local/);
    expect(asked).toEqual(["git.example.com"]);
    expect(existsSync(o.dest)).toBe(false);
  });

  it("refuses a host that does not resolve, as a permanent error", async () => {
    const resolveHost = async (): Promise<string[]> => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    };
    const o = opts({ gitUri: "https://nowhere.example.com/a/b", allowInsecure: false, resolveHost });
    await expect(cloneRepository(o)).rejects.toThrow(ScanInputError);
    expect(existsSync(o.dest)).toBe(false);
  });

  it("retries-worthy resolver failures are not input errors", async () => {
    const resolveHost = async (): Promise<string[]> => {
      throw Object.assign(new Error("getaddrinfo EAI_AGAIN"), { code: "EAI_AGAIN" });
    };
    const err = await cloneRepository(opts({ gitUri: "https://flaky.example.com/a/b", allowInsecure: false, resolveHost })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(ScanInputError);
  });
});

describe("remoteCommit", () => {
  it("answers what a clone would check out, without fetching, under the clone's URL policy", async () => {
    await expect(remoteCommit(opts({}))).resolves.toEqual({ commit: source.head, branch: "main" });
    await expect(remoteCommit(opts({ branch: "feature/login" }))).resolves.toEqual({ commit: featureHead, branch: "feature/login" });
    await expect(remoteCommit(opts({ branch: "no-such-branch" }))).resolves.toBeNull();
    // A file:// URL without the insecure opt-in is refused before any git process runs.
    await expect(remoteCommit(opts({ allowInsecure: false }))).resolves.toBeNull();
    // An internal host is refused as the clone refuses it.
    const { resolveHost } = recordingResolver(["10.0.0.5"]);
    await expect(
      remoteCommit(opts({ gitUri: "https://git.example.com/acme/app.git", allowInsecure: false, resolveHost })),
    ).rejects.toBeInstanceOf(ScanInputError);
  });
});

/**
 * Shallow, hardened clone of an untrusted repository into `dest`. The URL and branch are
 * validated again here (the API validated them too, but the worker must not trust the
 * queue), the host's addresses are checked before git connects, and git runs with the
 * settings of git/hardening.ts. Afterwards the checkout is measured and checked for links.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { BranchName, checkGitUri } from "@ax/contracts";
import { ScanInputError, throwIfAborted } from "./errors";
import { mapCloneError } from "./git/clone-errors";
import { watchReceivedBytes } from "./git/clone-progress";
import { hardenedGitConfig, hardenedGitEnv, SIMPLE_GIT_OPT_INS } from "./git/hardening";
import { assertPublicHost, resolveWithSystem, type ResolveHost } from "./git/resolve-host";
import { checkCheckout, sizeLimitMessage } from "./git/tree-check";
import { CheckoutError } from "./git/clone-errors";
import { removeTree } from "./workspace";

export interface CloneOptions {
  gitUri: string;
  branch?: string;
  /** Absolute or relative path that must not exist yet (git creates it). */
  dest: string;
  allowInsecure: boolean;
  timeoutMs: number;
  maxRepoBytes: number;
  signal?: AbortSignal;
  resolveHost?: ResolveHost;
}

export interface CloneResult {
  commit: string;
  branch: string;
}

/** Kill git if it prints nothing for this long, even when the wall-clock limit is further away. */
const MAX_STALL_MS = 120_000;

/** Sum of the blob sizes of HEAD's tree, from git's object store: nothing is checked out yet. */
async function treeBytes(repo: ReturnType<typeof hardenedGit>): Promise<number> {
  const listing = await repo.raw(["ls-tree", "-r", "-l", "-z", "HEAD"]);
  let total = 0;
  for (const entry of listing.split("\0")) {
    // "<mode> <type> <object> <size>\t<path>"; submodule entries have "-" as size.
    const size = Number(/^\S+ \S+ \S+\s+(\d+)\t/.exec(entry)?.[1] ?? 0);
    total += size;
  }
  return total;
}

export async function cloneRepository(opts: CloneOptions): Promise<CloneResult> {
  throwIfAborted(opts.signal);
  // Everything that can be refused is refused before any process or connection exists.
  const checked = checkGitUri(opts.gitUri, { allowInsecure: opts.allowInsecure });
  if (!checked.ok) throw new ScanInputError(checked.reason);
  if (opts.branch !== undefined) {
    const parsed = BranchName.safeParse(opts.branch);
    if (!parsed.success) throw new ScanInputError(parsed.error.issues[0]?.message ?? "branch is not valid.");
  }
  if (!opts.allowInsecure && checked.host) {
    await assertPublicHost(checked.host, opts.resolveHost ?? resolveWithSystem);
  }
  throwIfAborted(opts.signal);

  const dest = resolve(opts.dest);
  const destExisted = await exists(dest);
  const home = await mkdtemp(join(tmpdir(), "ax-git-home-"));
  const limits = new CloneLimits(opts.timeoutMs, opts.signal);
  const failure = { branch: opts.branch, sizeMessage: sizeLimitMessage(opts.maxRepoBytes), timeoutMs: opts.timeoutMs };
  try {
    const git = hardenedGit(home, home, opts, limits.signal).outputHandler((_cmd, _out, stderr) =>
      watchReceivedBytes(stderr, (bytes) => {
        if (bytes > opts.maxRepoBytes) limits.stop("size");
      }),
    );
    // --no-checkout: the transfer watcher only sees compressed bytes (a 1 GiB file of zeros
    // packs to about 1 MiB), so the tree's real size is checked before anything is written.
    const args = ["--depth=1", "--single-branch", "--no-tags", "--no-recurse-submodules", "--no-local", "--no-checkout", "--progress"];
    if (opts.branch !== undefined) args.push(`--branch=${opts.branch}`);
    // simple-git places the URL and dest after "--", so neither can be read as an option.
    await git.clone(checked.url, dest, args);
    const repo = hardenedGit(dest, home, opts, limits.signal);
    const result = await readCheckout(repo, opts.branch);
    if ((await treeBytes(repo)) > opts.maxRepoBytes) throw new ScanInputError(failure.sizeMessage);
    await repo.raw(["checkout", "--force", "--quiet"]).catch((err: unknown) => {
      throw new CheckoutError(err instanceof Error ? err.message : String(err));
    });
    await checkCheckout(dest, opts.maxRepoBytes);
    return result;
  } catch (err) {
    // Never delete a directory we did not create (a caller mistake must not cost their files).
    if (!destExisted) await removeTree(dest).catch(() => undefined);
    throw err instanceof ScanInputError ? err : mapCloneError(err, { ...failure, reason: limits.reason });
  } finally {
    limits.dispose();
    await rm(home, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The commit the clone would check out (the branch's head, or the remote's default branch),
 * asked with `git ls-remote` under the same URL policy, host check and hardening as the clone;
 * nothing is fetched. Null when the remote cannot say (the clone then reports why).
 */
export async function remoteCommit(opts: Omit<CloneOptions, "dest" | "maxRepoBytes">): Promise<CloneResult | null> {
  throwIfAborted(opts.signal);
  const checked = checkGitUri(opts.gitUri, { allowInsecure: opts.allowInsecure });
  if (!checked.ok) return null;
  if (opts.branch !== undefined && !BranchName.safeParse(opts.branch).success) return null;
  if (!opts.allowInsecure && checked.host) await assertPublicHost(checked.host, opts.resolveHost ?? resolveWithSystem);
  const home = await mkdtemp(join(tmpdir(), "ax-git-home-"));
  const limits = new CloneLimits(Math.min(opts.timeoutMs, 60_000), opts.signal);
  try {
    const git = hardenedGit(home, home, { ...opts, dest: home, maxRepoBytes: 0 }, limits.signal);
    const ref = opts.branch !== undefined ? `refs/heads/${opts.branch}` : "HEAD";
    const out = await git.raw(["ls-remote", ...(opts.branch === undefined ? ["--symref"] : []), "--", checked.url, ref]);
    let branch = opts.branch ?? null;
    let commit: string | null = null;
    for (const line of out.split("\n")) {
      const symref = /^ref: refs\/heads\/(\S+)\tHEAD$/.exec(line);
      if (symref) branch ??= symref[1] ?? null;
      const head = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)\t(\S+)$/.exec(line);
      if (head && head[2] === ref) commit = head[1] ?? null;
    }
    return commit && branch ? { commit, branch } : null;
  } finally {
    limits.dispose();
    await rm(home, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * simple-git with the hardening applied. `cwd` is the throwaway home for the clone (empty, so
 * no enclosing repository can lend its config) and the checkout for rev-parse.
 */
function hardenedGit(cwd: string, home: string, opts: CloneOptions, signal: AbortSignal): SimpleGit {
  return simpleGit({
    baseDir: cwd,
    config: hardenedGitConfig(opts.allowInsecure),
    timeout: { block: Math.min(opts.timeoutMs, MAX_STALL_MS) },
    abort: signal,
    unsafe: SIMPLE_GIT_OPT_INS,
    maxConcurrentProcesses: 1,
  }).env(hardenedGitEnv(home, opts.allowInsecure));
}

async function readCheckout(git: SimpleGit, branch: string | undefined): Promise<CloneResult> {
  let commit: string;
  try {
    commit = (await git.revparse(["--verify", "HEAD^{commit}"])).trim();
  } catch (err) {
    // Clone "succeeds" on a repository without commits; there is nothing to scan.
    if (err instanceof Error && /needed a single revision|unknown revision|ambiguous argument/i.test(err.message)) {
      throw new ScanInputError("The repository is empty (it has no commits).");
    }
    throw err;
  }
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new Error("git rev-parse returned an unexpected value.");
  const checkedOut = branch ?? (await git.revparse(["--abbrev-ref", "HEAD"])).trim();
  return { commit, branch: checkedOut };
}

/** One abort signal for git, fired by the wall clock, the caller, or the size watcher; remembers which. */
class CloneLimits {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  reason: "timeout" | "size" | "aborted" | null = null;

  constructor(timeoutMs: number, private readonly outer: AbortSignal | undefined) {
    this.timer = setTimeout(() => this.stop("timeout"), timeoutMs);
    outer?.addEventListener("abort", this.onOuterAbort, { once: true });
    if (outer?.aborted) this.stop("aborted");
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  stop(reason: "timeout" | "size" | "aborted"): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
  }

  private readonly onOuterAbort = (): void => this.stop("aborted");
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Shallow, hardened clone of an untrusted repository into `dest`. The URL and branch are
 * validated again here (the API validated them too, but the worker must not trust the
 * queue), the host's addresses are checked before git connects, and git runs with the
 * settings of git/hardening.ts. The tree's size is read from the object store before
 * anything is checked out; afterwards the checkout is measured and checked for links.
 *
 * The clone is `git init` + `git fetch --depth=1` of the one ref into a repository whose only
 * ref is ours, then a checkout of the fetched commit. With a state directory that repository
 * and its checkout are kept for the project's next scan (kept-repo.ts), which then transfers
 * and writes only what changed.
 */
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { BranchName, checkGitUri, type CommitLineMap } from "@ax/contracts";
import { ScanInputError, throwIfAborted } from "./errors";
import { CheckoutError, mapCloneError } from "./git/clone-errors";
import { watchReceivedBytes } from "./git/clone-progress";
import { hardenedGitConfig, hardenedGitEnv, SIMPLE_GIT_OPT_INS } from "./git/hardening";
import { LINE_MAP_DIFF_ARGS, parseLineMap } from "./git/line-map";
import { assertPublicHost, resolveWithSystem, type ResolveHost } from "./git/resolve-host";
import { runGit, type GitSession } from "./git/run";
import { checkCheckout, sizeLimitMessage } from "./git/tree-check";
import { claimKeptRepo, discardKeptRepo, emptyKeptRepo, linkCheckout, putBackKeptRepo, type KeptRepo, type TreeEntry } from "./kept-repo";
import { removeTree } from "./workspace";

export interface CloneOptions {
  gitUri: string;
  branch?: string;
  /** Absolute or relative path that must not exist yet (or be empty). */
  dest: string;
  allowInsecure: boolean;
  timeoutMs: number;
  maxRepoBytes: number;
  signal?: AbortSignal;
  resolveHost?: ResolveHost;
  /**
   * This organization's and project's directory of kept state on this worker: the repository
   * is then kept there between scans (kept-repo.ts) and `dest` holds only the files. Without
   * it, `dest` is a repository of its own (`dest/.git`) and nothing is kept.
   */
  stateDir?: string;
  /**
   * For diff-aware scans: the commit a pull request is compared with (its target branch's head).
   * The comparison runs from the merge-base of the two (`base`), so that what the target branch
   * changed since the fork is not counted as the pull request's.
   */
  baseline?: string;
  /** With `baseline`: where to check out the merge-base's files, for its analysis (must not exist). */
  baselineDest?: string;
  /**
   * The commits of the earlier scans whose findings this scan's are matched to, asked once the
   * commit and branch are known: `lineMaps` then says where their lines are in this commit.
   * `sameBranch`: an earlier commit of this branch, whose diff may follow renames; another
   * branch's commit shares no history with this one to rename along.
   */
  references?: (commit: string, branch: string) => Promise<{ commit: string; sameBranch: boolean }[]>;
}

export interface CloneResult {
  commit: string;
  branch: string;
}

export interface CheckoutResult extends CloneResult {
  /** path → blob id of every entry of the commit's tree (the analysis cache's keys). */
  blobs: Map<string, string>;
  /** With a baseline: the merge-base and git's line mapping from it to this commit; null without one. */
  base: BaseCommit | null;
  /** Git's line mapping from each reference commit that could be read to this one. */
  lineMaps: CommitLineMap[];
}

export interface BaseCommit {
  /** The commit asked for as baseline. */
  baseline: string;
  /** The merge-base of the baseline and this commit (the baseline itself when it is an ancestor). */
  mergeBase: string;
  /** Git's line mapping from the merge-base to this commit, renames followed. */
  lineMap: CommitLineMap;
  /** The merge-base's files, checked out at `baselineDest` (when one was given), and their blob ids by path. */
  dir: string | null;
  blobs: Map<string, string>;
}

/** Kill git if it prints nothing for this long, even when the wall-clock limit is further away. */
const MAX_STALL_MS = 120_000;
/** The one ref of our repositories: the commit the last fetch brought, named by us, never by the remote. */
const FETCHED = "refs/ax/fetched";
const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The clone alone: commit and branch. */
export async function cloneRepository(opts: CloneOptions): Promise<CloneResult> {
  const { commit, branch } = await checkoutRepository(opts);
  return { commit, branch };
}

/** The clone, with what the scan needs to know of the commit: blob ids, its merge-base with a baseline, line maps. */
export async function checkoutRepository(opts: CloneOptions): Promise<CheckoutResult> {
  throwIfAborted(opts.signal);
  // Everything that can be refused is refused before any process or connection exists.
  const checked = checkGitUri(opts.gitUri, { allowInsecure: opts.allowInsecure });
  if (!checked.ok) throw new ScanInputError(checked.reason);
  if (opts.branch !== undefined) {
    const parsed = BranchName.safeParse(opts.branch);
    if (!parsed.success) throw new ScanInputError(parsed.error.issues[0]?.message ?? "branch is not valid.");
  }
  if (opts.baseline !== undefined && !OBJECT_ID.test(opts.baseline)) throw new ScanInputError(BASELINE_MISSING);
  if (!opts.allowInsecure && checked.host) {
    await assertPublicHost(checked.host, opts.resolveHost ?? resolveWithSystem);
  }
  throwIfAborted(opts.signal);

  const dest = resolve(opts.dest);
  const destExisted = await exists(dest);
  const home = await mkdtemp(join(tmpdir(), "ax-git-home-"));
  const limits = new CloneLimits(opts.timeoutMs, opts.signal);
  const failure = { branch: opts.branch, sizeMessage: sizeLimitMessage(opts.maxRepoBytes), timeoutMs: opts.timeoutMs };
  const session: GitSession = {
    home,
    allowInsecure: opts.allowInsecure,
    signal: limits.signal,
    stallMs: Math.min(opts.timeoutMs, MAX_STALL_MS),
    onStall: () => limits.stop("timeout"),
  };
  const clone: Clone = { session, opts, url: checked.url, dest, limits };
  try {
    // The kept repository is only a speed-up: a state directory that cannot be used means a
    // clone of the usual kind.
    const kept = opts.stateDir === undefined ? null : await claimKeptRepo(opts.stateDir, checked.url, 2 * opts.timeoutMs).catch(() => null);
    if (kept && opts.stateDir !== undefined) return await keptClone(clone, kept, opts.stateDir, destExisted);
    await runGit(session, ["init", "--quiet", "--template=", "--", dest]);
    return await fetchAndCheckout(clone, { gitDir: join(dest, ".git"), workTree: dest, reused: false });
  } catch (err) {
    // Never delete a directory we did not create (a caller mistake must not cost their files).
    if (!destExisted) await removeTree(dest).catch(() => undefined);
    throw err instanceof ScanInputError ? err : mapCloneError(err, { ...failure, reason: limits.reason });
  } finally {
    limits.dispose();
    await rm(home, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface Clone {
  session: GitSession;
  opts: CloneOptions;
  url: string;
  dest: string;
  limits: CloneLimits;
}

interface Layout {
  gitDir: string;
  workTree: string;
  /** The work tree holds an earlier checkout made by git with this git directory's index. */
  reused: boolean;
}

const BASELINE_MISSING = "The baseline commit could not be fetched from the repository.";

/** The clone through the project's kept repository; put back only when the clone completed. */
async function keptClone(clone: Clone, claimed: KeptRepo, stateDir: string, destExisted: boolean): Promise<CheckoutResult> {
  let repo = claimed;
  try {
    const result = await intoKeptRepo(clone, repo).catch(async (err: unknown) => {
      await discardKeptRepo(repo);
      // A kept repository that fails is not trusted to say why (a corrupt one can look like
      // an empty repository or a missing baseline): once more from nothing, unless a limit
      // fired. A refusal of the content costs a second fetch, once: its repository is gone.
      if (!repo.reused || clone.limits.reason) throw err;
      if (!destExisted) await removeTree(clone.dest);
      repo = await emptyKeptRepo(stateDir);
      return intoKeptRepo(clone, repo);
    });
    await putBackKeptRepo(repo, stateDir, clone.url, clone.opts.maxRepoBytes);
    return result;
  } catch (err) {
    await discardKeptRepo(repo);
    throw err;
  }
}

async function intoKeptRepo(clone: Clone, repo: KeptRepo): Promise<CheckoutResult> {
  if (!repo.reused) await runGit(clone.session, ["init", "--bare", "--quiet", "--template=", "--", repo.gitDir]);
  return fetchAndCheckout(clone, repo, repo.workTree);
}

/**
 * Fetches the branch (or the remote's HEAD) into our one ref, checks the tree's size from the
 * object store, checks it out into the work tree and, when that is a kept one, links its
 * files into dest. Only new objects are transferred into a kept repository (its ref is the
 * negotiation's "have"), and git rewrites only the files that differ.
 */
async function fetchAndCheckout(clone: Clone, repo: Layout, linkFrom?: string): Promise<CheckoutResult> {
  const { session, opts, url, limits } = clone;
  const at = { gitDir: repo.gitDir };
  const ref = opts.branch !== undefined ? `refs/heads/${opts.branch}` : "HEAD";
  // --no-write-fetch-head: nothing of the remote's is stored but objects and the ref we name.
  const fetch = runGit(
    session,
    ["fetch", "--progress", "--depth=1", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--", url, `+${ref}:${FETCHED}`],
    {
      ...at,
      onStderr: (stderr) =>
        watchReceivedBytes(stderr, (bytes) => {
          if (bytes > opts.maxRepoBytes) limits.stop("size");
        }),
    },
  );
  // The default branch's name, asked at the same time: a fetch does not record it.
  const head = opts.branch === undefined ? runGit(session, ["ls-remote", "--symref", "--", url, "HEAD"]) : Promise.resolve(null);
  const tree = { gitDir: repo.gitDir, workTree: repo.workTree };
  // Every link and unlink changed the kept files' ctime: git re-hashes them against the
  // index, so only a file whose content really differs is rewritten by the checkout. It
  // touches only the index and the files, so it runs while the fetch writes objects.
  const refresh = repo.reused ? runGit(session, ["update-index", "-q", "--refresh"], tree) : Promise.resolve(null);
  const [fetched, symref] = await Promise.allSettled([fetch, head, refresh]);
  if (fetched.status === "rejected") throw fetched.reason;
  const named =
    symref.status === "fulfilled" ? /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(symref.value?.toString("utf8") ?? "")?.[1] : undefined;
  const branch = opts.branch ?? named ?? "HEAD";

  const commit = await fetchedCommit(session, repo.gitDir);
  const entries = await listTree(session, repo.gitDir, commit, opts.maxRepoBytes);
  await runGit(session, ["checkout", "--force", "--quiet", commit, "--"], tree).catch((err: unknown) => {
    throw new CheckoutError(err instanceof Error ? err.message : String(err));
  });
  if (linkFrom !== undefined) await linkCheckout(linkFrom, clone.dest, entries);
  await checkCheckout(clone.dest, opts.maxRepoBytes);
  const base = opts.baseline !== undefined ? await baseCommit(clone, repo.gitDir, opts.baseline, commit) : null;
  const lineMaps = opts.references ? await lineMapsTo(session, repo.gitDir, url, commit, await opts.references(commit, branch)) : [];
  return { commit, branch, blobs: blobsOf(entries), base, lineMaps };
}

/**
 * Every entry of a commit's tree, read from the object store. The transfer watcher only sees
 * compressed bytes (a 1 GiB file of zeros packs to about 1 MiB), so the tree's real size is
 * checked here, before anything is written.
 */
async function listTree(session: GitSession, gitDir: string, commit: string, maxBytes: number): Promise<ListedEntry[]> {
  const entries = parseTree(await runGit(session, ["ls-tree", "-r", "-l", "-z", "--full-tree", commit], { gitDir }));
  if (entries.reduce((sum, e) => sum + e.size, 0) > maxBytes) throw new ScanInputError(sizeLimitMessage(maxBytes));
  return entries;
}

/** path → blob id (the analysis cache's keys). */
const blobsOf = (entries: readonly ListedEntry[]) => new Map(entries.map((e) => [e.path.toString("utf8"), e.id]));

/** Whether the repository has `id` as a commit, after fetching it (shallow, by id) when it did not. */
async function haveCommit(session: GitSession, gitDir: string, url: string, id: string): Promise<boolean> {
  const ok = () => true;
  const no = () => false;
  if (await runGit(session, ["cat-file", "-e", `${id}^{commit}`], { gitDir }).then(ok, no)) return true;
  return runGit(
    session,
    ["fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "--", url, id],
    { gitDir },
  ).then(ok, no);
}

/** At most this many earlier commits are mapped: the branch's own (usually one) and four other branches'. */
const MAX_REFERENCES = 6;

/**
 * Git's line mapping from each reference commit to `commit`. A reference the repository lacks
 * is fetched (shallow, by id); one that cannot be (a force-push removed it) is left out, and the
 * store then matches those findings by their code and context alone.
 */
async function lineMapsTo(
  session: GitSession,
  gitDir: string,
  url: string,
  commit: string,
  references: { commit: string; sameBranch: boolean }[],
): Promise<CommitLineMap[]> {
  const maps: CommitLineMap[] = [];
  const seen = new Set<string>();
  const wanted = references.filter((r) => OBJECT_ID.test(r.commit) && r.commit !== commit && !seen.has(r.commit) && seen.add(r.commit));
  for (const { commit: ref, sameBranch } of wanted.slice(0, MAX_REFERENCES)) {
    if (!(await haveCommit(session, gitDir, url, ref))) continue;
    const diff = await runGit(
      session,
      [
        ...(sameBranch ? LINE_MAP_DIFF_ARGS : LINE_MAP_DIFF_ARGS.map((a) => (a === "--find-renames" ? "--no-renames" : a))),
        ref,
        commit,
        "--",
      ],
      { gitDir },
    ).catch(() => null);
    if (diff) maps.push(parseLineMap(ref, commit, diff));
  }
  return maps;
}

async function fetchedCommit(session: GitSession, gitDir: string): Promise<string> {
  let commit: string;
  try {
    commit = (await runGit(session, ["rev-parse", "--verify", "--quiet", `${FETCHED}^{commit}`], { gitDir })).toString("utf8").trim();
  } catch {
    // The ref names something that is not a commit (a hostile repository can do that).
    throw new ScanInputError("The repository is empty (it has no commits).");
  }
  if (!OBJECT_ID.test(commit)) throw new Error("git rev-parse returned an unexpected value.");
  return commit;
}

/** How far the shallow histories are deepened, in turn, to find the merge-base: 32, then 256, then 2,048 commits. */
const MERGE_BASE_DEPTHS = [32, 224, 1792];

/**
 * The baseline fetched, the merge-base of it and `commit` found (the shallow histories are
 * deepened until they meet; when they do not within MERGE_BASE_DEPTHS, unrelated histories or a
 * fork too far back, the scan fails and says so), git's line mapping from the merge-base, and,
 * when asked, the merge-base's files checked out through an index of their own (the kept
 * repository's index stays the checkout's).
 */
async function baseCommit(clone: Clone, gitDir: string, baseline: string, commit: string): Promise<BaseCommit> {
  const { session, url, opts } = clone;
  if (!(await haveCommit(session, gitDir, url, baseline))) throw new ScanInputError(BASELINE_MISSING);
  const mergeBase = async () => {
    const out = await runGit(session, ["merge-base", baseline, commit], { gitDir }).catch(() => null);
    const id = out?.toString("utf8").trim();
    return id && OBJECT_ID.test(id) ? id : null;
  };
  let found = await mergeBase();
  for (const depth of MERGE_BASE_DEPTHS) {
    if (found) break;
    await runGit(
      session,
      [
        "fetch",
        "--quiet",
        `--deepen=${depth}`,
        "--no-tags",
        "--no-recurse-submodules",
        "--no-write-fetch-head",
        "--",
        url,
        commit,
        baseline,
      ],
      { gitDir },
    ).catch(() => undefined);
    found = await mergeBase();
  }
  if (!found)
    throw new ScanInputError(
      `The baseline commit shares no history with the scanned commit within ${MERGE_BASE_DEPTHS.reduce((a, b) => a + b, 1)} commits.`,
    );
  const lineMap = parseLineMap(found, commit, await runGit(session, [...LINE_MAP_DIFF_ARGS, found, commit, "--"], { gitDir }));
  let dir: string | null = null;
  let entries: ListedEntry[] = [];
  if (opts.baselineDest !== undefined) {
    dir = resolve(opts.baselineDest);
    entries = await listTree(session, gitDir, found, opts.maxRepoBytes);
    const index = join(session.home, "base-index");
    const tree = { gitDir, workTree: dir, indexFile: index };
    await mkdir(dir, { recursive: true });
    await runGit(session, ["read-tree", found], tree);
    await runGit(session, ["checkout-index", "--all", "--force"], tree).catch((err: unknown) => {
      throw new CheckoutError(err instanceof Error ? err.message : String(err));
    });
    await checkCheckout(dir, opts.maxRepoBytes);
  }
  return { baseline, mergeBase: found, lineMap, dir, blobs: blobsOf(entries) };
}

type ListedEntry = TreeEntry & { id: string; size: number };

/** `git ls-tree -r -l -z`: "<mode> <type> <object> <size>\t<path>\0"; a submodule's size is "-". */
function parseTree(listing: Buffer): ListedEntry[] {
  const entries: ListedEntry[] = [];
  let start = 0;
  while (start < listing.length) {
    let end = listing.indexOf(0, start);
    if (end === -1) end = listing.length;
    const tab = listing.indexOf(9, start);
    if (tab !== -1 && tab < end) {
      const m = /^(\d+) \S+ ([0-9a-f]{40,64}) +(\d+|-)$/.exec(listing.subarray(start, tab).toString("latin1"));
      if (m?.[1] && m[2] && m[3])
        entries.push({ mode: m[1], id: m[2], size: m[3] === "-" ? 0 : Number(m[3]), path: listing.subarray(tab + 1, end) });
    }
    start = end + 1;
  }
  return entries;
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

/** One abort signal for git, fired by the wall clock, the caller, or the size watcher; remembers which. */
class CloneLimits {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  reason: "timeout" | "size" | "aborted" | null = null;

  constructor(
    timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
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

/**
 * The repository a worker keeps per organization and project between scans: a bare git
 * directory holding the last scan's shallow objects, and a checkout of that commit made by
 * git from them. A rescan fetches only the new objects, lets git bring the kept checkout to
 * the new commit (rewriting only the files that differ), and gives the scan hard links to
 * those files: creating a file is what a checkout mostly costs, a link is ~50× cheaper.
 *
 * Claimed like analyzers/kept-state.ts, by renaming it to a name of its own, so two scans of
 * one project never share it (the second starts from an empty one). It is put back only
 * after a clone that completed, with the URL it was fetched from; anything else — another
 * URL, another format, a failure half way — deletes it. It is only a speed-up: the clone is
 * correct with an empty one.
 */
import { randomBytes } from "node:crypto";
import { constants, copyFile, link, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tooLong } from "./git/tree-check";

const NAME = "git-repo";
/** First line of the record of where the objects came from; a change of layout changes it. */
const FORMAT = "ax kept repository 1";
/** Each rescan adds a pack; past this many (or past the size limit) the next scan starts afresh. */
const MAX_PACKS = 32;

export interface KeptRepo {
  /** Ours alone until put back or discarded. */
  dir: string;
  gitDir: string;
  workTree: string;
  /** Holds an earlier scan's objects and checkout (else it is empty and needs `git init`). */
  reused: boolean;
}

/**
 * Claims the project's kept repository if it was fetched from `url`; otherwise an empty one.
 * Claimed copies left by a worker that died are removed once older than `staleMs`.
 */
export async function claimKeptRepo(stateDir: string, url: string, staleMs: number): Promise<KeptRepo> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  await sweepAbandoned(stateDir, staleMs);
  const kept = join(stateDir, NAME);
  const mine = layout(`${kept}.busy-${randomBytes(6).toString("hex")}`, true);
  const claimed = await rename(kept, mine.dir).then(
    () => true,
    () => false,
  );
  if (claimed) {
    const origin = await readFile(join(mine.dir, "origin"), "utf8").catch(() => "");
    if (origin === record(url)) return mine;
    await discardKeptRepo(mine);
  }
  return emptyKeptRepo(stateDir);
}

/** A new empty repository beside the kept one: the first scan, or the fallback when the kept one failed. */
export async function emptyKeptRepo(stateDir: string): Promise<KeptRepo> {
  const repo = layout(join(stateDir, `${NAME}.busy-${randomBytes(6).toString("hex")}`), false);
  await mkdir(repo.workTree, { recursive: true, mode: 0o700 });
  return repo;
}

/**
 * Makes the repository the project's kept one, recording the URL its objects came from, unless
 * it has grown past its bounds (then it is deleted, and the next scan fetches afresh).
 */
export async function putBackKeptRepo(repo: KeptRepo, stateDir: string, url: string, maxBytes: number): Promise<void> {
  const kept = join(stateDir, NAME);
  try {
    const packs = (await readdir(join(repo.gitDir, "objects", "pack"))).filter((n) => n.endsWith(".pack"));
    let bytes = 0;
    for (const p of packs) bytes += (await stat(join(repo.gitDir, "objects", "pack", p))).size;
    if (packs.length > MAX_PACKS || bytes > maxBytes) throw new Error("kept repository past its bounds");
    await writeFile(join(repo.dir, "origin"), record(url), { mode: 0o600 });
    // Fails when another scan of the project put one back meanwhile: that one stays (deleting
    // it here could race with a third scan claiming it).
    await rename(repo.dir, kept);
  } catch {
    await discardKeptRepo(repo);
  }
}

export async function discardKeptRepo(repo: KeptRepo): Promise<void> {
  await rm(repo.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}

/** One entry of the commit's tree, as `git ls-tree -r` lists it. */
export interface TreeEntry {
  mode: string;
  /** Raw bytes: a name that is not UTF-8 must reach the file system unchanged. */
  path: Buffer;
}

const SLASH = Buffer.from("/");

/**
 * Fills `dest` with hard links to the files git checked out in the kept work tree, walking it
 * as git left it (a tree can name one path twice, as a file and as a directory; git decides
 * which one is written, and dest mirrors that) but taking only paths the tree lists: a file in
 * the kept checkout that the tree does not name never reaches a scan. Submodules are the
 * empty directories git made. Nothing is written to a linked file by the scan; if anything
 * ever did, the kept index notices (its stat data no longer match) and git rewrites that
 * file from the object store before the next scan links it again.
 */
export async function linkCheckout(workTree: string, dest: string, entries: readonly TreeEntry[]): Promise<void> {
  // latin1 maps bytes to code units one to one: a set key for a name without changing it.
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const e of entries) {
    if (e.mode === "160000") dirs.add(e.path.toString("latin1"));
    else files.add(e.path.toString("latin1"));
    for (let i = e.path.indexOf(SLASH); i !== -1; i = e.path.indexOf(SLASH, i + 1)) dirs.add(e.path.subarray(0, i).toString("latin1"));
  }
  await mkdir(dest, { recursive: true });
  const from = Buffer.from(workTree);
  const to = Buffer.from(dest);
  // Sibling directories at once: creating an entry is the slow part, and they do not depend
  // on each other (a directory only on its parent, made before its walk starts).
  const walk = async (rel: Buffer): Promise<void> => {
    const under = (root: Buffer) => (rel.length > 0 ? Buffer.concat([root, SLASH, rel]) : root);
    const work: Promise<void>[] = [];
    for (const entry of await readdir(under(from), { withFileTypes: true, encoding: "buffer" }).catch(tooLong)) {
      const path = rel.length > 0 ? Buffer.concat([rel, SLASH, entry.name]) : entry.name;
      const key = path.toString("latin1");
      if (entry.isDirectory()) {
        if (dirs.has(key)) work.push(mkdir(Buffer.concat([to, SLASH, path])).then(() => walk(path), tooLong));
      } else if (files.has(key)) {
        work.push(linkFile(Buffer.concat([from, SLASH, path]), Buffer.concat([to, SLASH, path])));
      }
    }
    // Settled, not all: on a failure nothing may still be writing when dest is removed.
    const failed = (await Promise.allSettled(work)).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  await walk(Buffer.alloc(0));
}

async function linkFile(source: Buffer, target: Buffer): Promise<void> {
  await link(source, target).catch(async (err: unknown) => {
    // A state directory on another file system than the workspace: copies, slower but right.
    if ((err as { code?: string }).code === "EXDEV") return copyFile(source, target, constants.COPYFILE_EXCL);
    if ((err as { code?: string }).code === "ENAMETOOLONG") tooLong(err);
    // The kept checkout lacks a file its tree lists: it is broken, not the repository.
    throw new Error(`kept checkout is incomplete (${(err as { code?: string }).code ?? "error"})`);
  });
}

function layout(dir: string, reused: boolean): KeptRepo {
  return { dir, gitDir: join(dir, "git"), workTree: join(dir, "tree"), reused };
}

function record(url: string): string {
  return `${FORMAT}\n${url}\n`;
}

async function sweepAbandoned(stateDir: string, staleMs: number): Promise<void> {
  const names = await readdir(stateDir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(`${NAME}.busy-`)) continue;
    const info = await lstat(join(stateDir, name)).catch(() => null);
    // A live clone holds its claim for less than the clone's time limit.
    if (info && Date.now() - info.ctimeMs > staleMs)
      await rm(join(stateDir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

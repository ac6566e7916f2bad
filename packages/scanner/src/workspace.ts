/**
 * A private scratch directory per scan. The checkout is attacker-controlled content, so it
 * lives in a fresh 0700 directory (other local users can't read or plant files in it) and is
 * removed whatever happens: success, error, or cancellation.
 */
import { execFile } from "node:child_process";
import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * Removes a directory tree. Node's rm walks by full path and gives up past PATH_MAX (a
 * repository nested 1,000 levels deep); rm(1) walks relative to each directory, so it is
 * the fallback.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch {
    await promisify(execFile)("rm", ["-rf", "--", dir], { timeout: 120_000 });
  }
}

export interface WorkspaceOptions {
  /** Called when removal fails; the scan's own result or error is kept either way. */
  onCleanupError?: (err: unknown, dir: string) => void;
}

export async function withWorkspace<T>(baseDir: string, fn: (dir: string) => Promise<T>, opts: WorkspaceOptions = {}): Promise<T> {
  await mkdir(baseDir, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(baseDir, "scan-"));
  // mkdtemp already uses 0700 on POSIX; set it explicitly so a umask or platform can't widen it.
  await chmod(dir, 0o700);
  try {
    return await fn(dir);
  } finally {
    // Retries cover files a just-killed child process was still writing.
    await removeTree(dir).catch((err: unknown) => opts.onCleanupError?.(err, dir));
  }
}

/**
 * Removes scan workspaces in `baseDir` older than `olderThanMs`: what a worker killed with
 * SIGKILL (or a crashed machine) left behind. A live scan never gets that old — its time
 * limit stops it first — so this is safe while other workers share the directory.
 */
export async function sweepStaleWorkspaces(baseDir: string, olderThanMs: number): Promise<number> {
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const e of entries) {
    if (!e.isDirectory() || !e.name.startsWith("scan-")) continue;
    const dir = join(baseDir, e.name);
    const info = await lstat(dir).catch(() => null);
    if (!info || Date.now() - info.mtimeMs < olderThanMs) continue;
    await removeTree(dir).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/**
 * A private scratch directory per scan. The checkout is attacker-controlled content, so it
 * lives in a fresh 0700 directory (other local users can't read or plant files in it) and is
 * removed whatever happens: success, error, or cancellation.
 */
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";

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
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch((err: unknown) =>
      opts.onCleanupError?.(err, dir),
    );
  }
}

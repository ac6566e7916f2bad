/**
 * Post-clone checks of the checkout: total size on disk and the absence of symlinks. The walk
 * uses lstat semantics (Dirent types), so it never follows a link out of the tree, and it
 * stops as soon as the limit is passed so a huge tree costs no more than the limit.
 */
import { readdir, lstat } from "node:fs/promises";
import { ScanInputError } from "../errors";
import { formatBytes } from "../format";

const SLASH = Buffer.from("/");

/** A path the file system refuses to name (past PATH_MAX) is the repository's problem, not ours. */
export function tooLong(err: unknown): never {
  if ((err as { code?: string }).code === "ENAMETOOLONG")
    throw new ScanInputError("The repository contains a path too long for the file system.");
  throw err;
}

export function sizeLimitMessage(maxBytes: number): string {
  return `Repository exceeds the size limit of ${formatBytes(maxBytes)}.`;
}

/** lstat calls in flight at once: enough to keep libuv's pool busy, few enough to stop soon past the limit. */
const AT_ONCE = 128;

export async function checkCheckout(root: string, maxBytes: number): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  // Names as bytes: a file name that is not UTF-8 must be checked, not mangled into one
  // that does not exist.
  const pending: Buffer[] = [Buffer.from(root)];
  while (pending.length > 0) {
    const dir = pending.pop() as Buffer;
    const sized: Buffer[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, encoding: "buffer" }).catch(tooLong)) {
      const path = Buffer.concat([dir, SLASH, entry.name]);
      if (entry.isSymbolicLink()) {
        // core.symlinks=false should make this impossible; if git ever changes, refuse the
        // tree rather than let an analyzer follow the link.
        throw new ScanInputError("The repository checkout contains a symbolic link, which is not allowed.");
      }
      if (entry.isDirectory()) pending.push(path);
      else sized.push(path);
    }
    for (let i = 0; i < sized.length; i += AT_ONCE) {
      const stats = await Promise.all(sized.slice(i, i + AT_ONCE).map((p) => lstat(p).catch(tooLong)));
      for (const st of stats) {
        files += 1;
        bytes += st.size;
      }
      if (bytes > maxBytes) throw new ScanInputError(sizeLimitMessage(maxBytes));
    }
  }
  return { bytes, files };
}

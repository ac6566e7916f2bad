/**
 * Post-clone checks of the checkout: total size on disk and the absence of symlinks. The walk
 * uses lstat semantics (Dirent types), so it never follows a link out of the tree, and it
 * stops as soon as the limit is passed so a huge tree costs no more than the limit.
 */
import { readdir, lstat } from "node:fs/promises";
import { join } from "node:path";
import { ScanInputError } from "../errors";
import { formatBytes } from "../format";

export function sizeLimitMessage(maxBytes: number): string {
  return `Repository exceeds the size limit of ${formatBytes(maxBytes)}.`;
}

export async function checkCheckout(root: string, maxBytes: number): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        // core.symlinks=false should make this impossible; if git ever changes, refuse the
        // tree rather than let an analyzer follow the link.
        throw new ScanInputError("The repository checkout contains a symbolic link, which is not allowed.");
      }
      if (entry.isDirectory()) {
        pending.push(path);
        continue;
      }
      files += 1;
      bytes += (await lstat(path)).size;
      if (bytes > maxBytes) throw new ScanInputError(sizeLimitMessage(maxBytes));
    }
  }
  return { bytes, files };
}

/**
 * The configuration files of a checkout that the taint analysis resolves loads to
 * (@ax/dataflow config-files.ts): Java `.properties`, configparser `.ini`/`.cfg`/`.conf` and
 * JSON files. The repository is hostile, so the walk is bounded — small files only, at most
 * MAX_FILES of them, at most MAX_ENTRIES directory entries looked at — skips dependency and
 * build folders, and never follows a link: a link is neither a file nor a folder here, and a
 * file is opened with O_NOFOLLOW and must still be a regular file once open.
 */
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isLockFile, VENDORED_DIRS } from "../selection";

const CONFIG_NAME = /\.(properties|ini|cfg|conf|json)$/i;
/** JSON that describes the build, not the application's settings. */
const NOT_CONFIG =
  /^(package|composer|bower|tsconfig.*|jsconfig|\.eslintrc|\.babelrc|\.prettierrc|lerna|nx|turbo|renovate|angular|project)\.json$/i;
const SKIPPED_DIRS = new Set([".git", ".hg", ".svn", ".idea", ".vscode"]);
export const MAX_CONFIG_FILES = 300;
export const MAX_CONFIG_BYTES = 64 * 1024;
const MAX_ENTRIES = 100_000;

/** Path (repo-relative, POSIX) → text of the checkout's small configuration files, shallowest first. */
export async function readConfigFiles(dir: string, signal?: AbortSignal): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let seen = 0;
  // Breadth first: configuration at the top and in resources folders before deep fixtures.
  let level: string[] = [""];
  while (level.length && out.size < MAX_CONFIG_FILES && seen < MAX_ENTRIES && !signal?.aborted) {
    const next: string[] = [];
    for (const rel of level) {
      const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (++seen > MAX_ENTRIES || out.size >= MAX_CONFIG_FILES) break;
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name) && !VENDORED_DIRS.has(entry.name)) next.push(path);
          continue;
        }
        if (!entry.isFile() || !CONFIG_NAME.test(entry.name) || NOT_CONFIG.test(entry.name) || isLockFile(entry.name)) continue;
        const text = await readSmallFile(join(dir, path));
        if (text !== null) out.set(path, text);
      }
    }
    level = next;
  }
  return out;
}

/** The file's text, or null when it is not a regular file (a link included), too large or unreadable. */
async function readSmallFile(full: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_CONFIG_BYTES) return null;
    const buf = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buf, 0, info.size, 0);
    return buf.subarray(0, bytesRead).toString("utf8");
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

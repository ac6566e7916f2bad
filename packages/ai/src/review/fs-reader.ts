/**
 * A SourceReader over a checkout on disk, for the worker and the training data alike. It
 * reads only regular files inside the root (a link is never followed: the repository may be
 * hostile), at most 1 MiB each, and lists siblings of the same language family, at most
 * 3,000 per directory.
 */
import { lstat, readdir, readFile } from "node:fs/promises";
import { posix } from "node:path";
import type { SourceReader } from "./related";

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_SIBLINGS = 3000;

const FAMILIES: readonly RegExp[] = [
  /\.(c|h|cc|cpp|cxx|hpp|hh)$/i,
  /\.java$/i,
  /\.(kt|kts)$/i,
  /\.cs$/i,
  /\.go$/i,
  /\.(js|jsx|mjs|cjs|ts|tsx)$/i,
  /\.(py|pyw)$/i,
  /\.rb$/i,
  /\.php$/i,
  /\.(sh|bash)$/i,
  /\.scala$/i,
];

function familyOf(file: string): RegExp | undefined {
  return FAMILIES.find((f) => f.test(file));
}

/** `root` is an absolute directory; files are repository-relative POSIX paths. */
export function fsSourceReader(root: string): SourceReader {
  const lines = new Map<string, Promise<readonly string[] | null>>();
  const dirs = new Map<string, Promise<string[]>>();
  const safe = (file: string) => !file.startsWith("/") && !file.split("/").includes("..") && file !== "";
  const read = async (file: string): Promise<readonly string[] | null> => {
    if (!safe(file)) return null;
    const full = posix.join(root, file);
    try {
      const info = await lstat(full);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return null;
      return (await readFile(full, "utf8")).split(/\r?\n/);
    } catch {
      return null;
    }
  };
  const list = async (dir: string): Promise<string[]> => {
    try {
      const entries = await readdir(posix.join(root, dir), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile())
        .map((e) => (dir === "." ? e.name : `${dir}/${e.name}`))
        .sort();
    } catch {
      return [];
    }
  };
  return {
    lines(file) {
      let hit = lines.get(file);
      if (!hit) {
        hit = read(file);
        lines.set(file, hit);
      }
      return hit;
    },
    async siblings(file) {
      if (!safe(file)) return [];
      const dir = posix.dirname(file);
      let hit = dirs.get(dir);
      if (!hit) {
        hit = list(dir);
        dirs.set(dir, hit);
      }
      const family = familyOf(file);
      const all = await hit;
      return (family ? all.filter((f) => family.test(f)) : all.filter((f) => f === file)).slice(0, MAX_SIBLINGS);
    },
  };
}

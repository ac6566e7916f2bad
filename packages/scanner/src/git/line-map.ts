/**
 * Git's own view of where each line of one commit went in another: `git diff --find-renames
 * --unified=0` between them, parsed into a CommitLineMap (renamed files keep their lines; an
 * unchanged line moves by the lines added and removed above it; a changed line goes nowhere).
 * The store matches a scan's findings to the earlier scan's through it first
 * (packages/db/src/identity.ts, through contracts' mapLine), the way code-scanning services
 * track alerts across commits.
 */
import type { CommitLineMap } from "@ax/contracts";

/**
 * The `git diff` arguments whose output parseLineMap reads (after the two commits): the raw
 * listing with NUL-terminated paths (`-z`: never quoted, never parsed from quoted text), then
 * the patch, whose sections come in the listing's order and give only the hunks.
 */
export const LINE_MAP_DIFF_ARGS = [
  "diff",
  "--patch-with-raw",
  "-z",
  "--find-renames",
  "--unified=0",
  "--no-color",
  "--no-ext-diff",
  "--no-textconv",
  "--src-prefix=a/",
  "--dst-prefix=b/",
];

/** One file pair of the raw listing: status letter (M, A, D, R, C, T, …), old and new path. */
interface RawEntry {
  status: string;
  oldPath: string;
  newPath: string;
}

export function parseLineMap(from: string, to: string, diff: Buffer): CommitLineMap {
  const { entries, patchStart } = parseRaw(diff);
  const sections = patchSections(diff, patchStart);
  const files: CommitLineMap["files"] = {};
  let changed = 0;
  let next = 0;
  for (const entry of entries) {
    // A type change (file ↔ symlink) is printed as a deletion and a creation: two sections.
    const own = sections.slice(next, next + (entry.status === "T" ? 2 : 1));
    next += own.length;
    const hunks = own.flatMap((s) => s.hunks);
    const binary = own.some((s) => s.binary);
    for (const [, oldCount, , newCount] of hunks) changed += oldCount + newCount;
    if (binary) changed += 1;
    if (entry.status === "A" || entry.status === "C") continue; // a new file maps nothing
    if (entry.status === "D" || entry.status === "T" || binary) files[entry.oldPath] = null;
    else if (hunks.length > 0) files[entry.oldPath] = { path: entry.newPath, hunks };
    else if (entry.newPath !== entry.oldPath) files[entry.oldPath] = { path: entry.newPath, hunks: [] };
  }
  return { from, to, changed, files };
}

/**
 * `:<mode> <mode> <id> <id> <status>\0<path>\0[<path>\0]` records; the patch follows after one
 * more NUL. Paths are bytes, read as UTF-8.
 */
function parseRaw(diff: Buffer): { entries: RawEntry[]; patchStart: number } {
  const entries: RawEntry[] = [];
  let at = 0;
  const field = () => {
    const end = diff.indexOf(0, at);
    const text = diff.subarray(at, end === -1 ? diff.length : end).toString("utf8");
    at = end === -1 ? diff.length : end + 1;
    return text;
  };
  while (at < diff.length && diff[at] === 0x3a /* ':' */) {
    const head = field();
    const status = (head.split(" ")[4] ?? "").charAt(0);
    const oldPath = field();
    const newPath = status === "R" || status === "C" ? field() : oldPath;
    entries.push({ status, oldPath, newPath });
  }
  if (at < diff.length && diff[at] === 0) at += 1;
  return { entries, patchStart: at };
}

/** The patch's per-file sections (each opens with "diff --git "), with their hunks; paths are not read here. */
function patchSections(diff: Buffer, start: number): { hunks: [number, number, number, number][]; binary: boolean }[] {
  const sections: { hunks: [number, number, number, number][]; binary: boolean }[] = [];
  let at = start;
  while (at < diff.length) {
    let end = diff.indexOf(10, at);
    if (end === -1) end = diff.length;
    const line = diff.subarray(at, end).toString("latin1");
    at = end + 1;
    // With --unified=0 every content line starts with '+', '-' or '\\': none can look like these.
    if (line.startsWith("diff --git ")) sections.push({ hunks: [], binary: false });
    const section = sections[sections.length - 1];
    if (!section) continue;
    if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m) section.hunks.push([Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])]);
    } else if (line.startsWith("Binary files ") || line === "GIT binary patch") {
      section.binary = true;
    }
  }
  return sections;
}

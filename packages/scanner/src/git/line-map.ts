/**
 * Git's own view of where each line of one commit went in another: `git diff --find-renames
 * --unified=0` between them, parsed into a CommitLineMap (renamed files keep their lines; an
 * unchanged line moves by the lines added and removed above it; a changed line goes nowhere).
 * The store matches a scan's findings to the earlier scan's through it first
 * (packages/db/src/identity.ts, through contracts' mapLine), the way code-scanning services
 * track alerts across commits.
 */
import type { CommitLineMap } from "@ax/contracts";

/** The `git diff` arguments whose output parseLineMap reads (after the two commits). */
export const LINE_MAP_DIFF_ARGS = ["diff", "--find-renames", "--unified=0", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"];

export function parseLineMap(from: string, to: string, diff: Buffer): CommitLineMap {
  const files: CommitLineMap["files"] = {};
  let changed = 0;
  let oldPath: string | null = null;
  let newPath: string | null = null;
  let hunks: [number, number, number, number][] | null = null;
  let binary = false;
  const flush = () => {
    for (const [, oldCount, , newCount] of hunks ?? []) changed += oldCount + newCount;
    if (binary) changed += 1;
    if (oldPath !== null) {
      // A new file (no old path) maps nothing; a deleted or binary-changed one loses its lines.
      if (newPath === null || binary) files[oldPath] = null;
      else if (hunks && hunks.length > 0) files[oldPath] = { path: newPath, hunks };
      else if (newPath !== oldPath) files[oldPath] = { path: newPath, hunks: [] };
    }
    oldPath = newPath = null;
    hunks = null;
    binary = false;
  };
  let start = 0;
  while (start < diff.length) {
    let end = diff.indexOf(10, start);
    if (end === -1) end = diff.length;
    const line = diff.subarray(start, end).toString("latin1");
    start = end + 1;
    if (line.startsWith("diff --git ")) {
      flush();
      hunks = [];
      // The header names the file even when no ---/+++ lines follow (binary files, mode changes).
      const named = headerPath(line.slice("diff --git ".length));
      if (named !== null) oldPath = newPath = named;
    } else if (hunks === null) {
      continue;
    } else if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m) hunks.push([Number(m[1]), m[2] === undefined ? 1 : Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])]);
    } else if (line.startsWith("rename from ")) {
      oldPath = gitPath(line.slice("rename from ".length));
    } else if (line.startsWith("rename to ")) {
      newPath = gitPath(line.slice("rename to ".length));
    } else if (line.startsWith("--- ")) {
      oldPath = line === "--- /dev/null" ? null : stripPrefix(gitPath(trimTab(line.slice(4))), "a/");
    } else if (line.startsWith("+++ ")) {
      newPath = line === "+++ /dev/null" ? null : stripPrefix(gitPath(trimTab(line.slice(4))), "b/");
    } else if (line.startsWith("Binary files ") || line === "GIT binary patch") {
      binary = true;
    }
  }
  flush();
  return { from, to, changed, files };
}

/** "a/P b/P" (or both quoted): P, when the header can be read without ambiguity; a rename's names come from its own lines. */
function headerPath(rest: string): string | null {
  if (rest.startsWith('"')) {
    const m = /^("(?:[^"\\]|\\.)*") ("(?:[^"\\]|\\.)*")$/.exec(rest);
    if (!m?.[1] || !m[2]) return null;
    const a = stripPrefix(gitPath(m[1]), "a/");
    return a === stripPrefix(gitPath(m[2]), "b/") ? a : null;
  }
  if ((rest.length - 1) % 2 !== 0) return null;
  const half = (rest.length - 1) / 2;
  const a = rest.slice(0, half);
  const b = rest.slice(half + 1);
  return a.startsWith("a/") && b.startsWith("b/") && a.slice(2) === b.slice(2) ? gitPath(a.slice(2)) : null;
}

/** Git quotes a path with unusual bytes C-style ("\303\251", "\t", "\""); the bytes are UTF-8. */
function gitPath(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"') || text.length < 2) return Buffer.from(text, "latin1").toString("utf8");
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  const escapes: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== "\\") {
      bytes.push(c.charCodeAt(0) & 0xff);
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8) & 0xff);
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Git ends a ---/+++ name that contains a space with a tab. */
function trimTab(text: string): string {
  return text.endsWith("\t") ? text.slice(0, -1) : text;
}

function stripPrefix(path: string, prefix: string): string {
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

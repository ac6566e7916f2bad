/**
 * Diff-aware scans: the lines changed since a baseline commit, parsed from `git diff
 * --unified=0` (which clone.ts runs in the scan's repository), and whether a finding lies on
 * them.
 */

/** Changed line ranges (1-based, inclusive, on the new side) per file; "all" for added files. */
export type ChangedLines = Map<string, [number, number][] | "all">;

export function parseUnifiedZero(diff: string): ChangedLines {
  const changed: ChangedLines = new Map();
  let file: string | null = null;
  let added = false;
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      file = null;
      added = false;
    } else if (line.startsWith("--- ")) {
      added = line === "--- /dev/null";
    } else if (line.startsWith("+++ ")) {
      file = line === "+++ /dev/null" ? null : unquote(line.slice(4)).replace(/^b\//, "");
      if (file && added) changed.set(file, "all");
    } else if (line.startsWith("@@") && file && changed.get(file) !== "all") {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!m) continue;
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      if (count === 0) continue; // pure deletion: nothing on the new side
      const ranges = (changed.get(file) as [number, number][] | undefined) ?? [];
      ranges.push([start, start + count - 1]);
      changed.set(file, ranges);
    }
  }
  return changed;
}

function unquote(path: string): string {
  if (!path.startsWith('"')) return path;
  try {
    return JSON.parse(path) as string;
  } catch {
    return path;
  }
}

export function isIntroduced(changed: ChangedLines, file: string, start: number, end: number): boolean {
  const ranges = changed.get(file);
  if (!ranges) return false;
  if (ranges === "all") return true;
  return ranges.some(([a, b]) => start <= b && end >= a);
}

/**
 * Read-only git queries on a checkout the scanner made: blob ids for the analysis cache, and
 * the lines changed since a baseline commit for diff-aware scans. They run with the same
 * hardened configuration and environment as the clone (the checkout is still untrusted).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { ScanInputError } from "../errors";
import { hardenedGitConfig, hardenedGitEnv } from "./hardening";

const MAX_OUTPUT = 256 * 1024 * 1024;

async function git(dir: string, args: string[], opts: { allowInsecure: boolean; signal?: AbortSignal; timeoutMs?: number }): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), "ax-git-home-"));
  try {
    const config = hardenedGitConfig(opts.allowInsecure).flatMap((c) => ["-c", c]);
    const result = await execa("git", [...config, ...args], {
      cwd: dir,
      env: hardenedGitEnv(home, opts.allowInsecure),
      extendEnv: false,
      timeout: opts.timeoutMs ?? 120_000,
      maxBuffer: MAX_OUTPUT,
      stripFinalNewline: false,
      ...(opts.signal ? { cancelSignal: opts.signal } : {}),
      reject: false,
    });
    if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${String(result.stderr).split("\n")[0] ?? ""}`);
    return String(result.stdout);
  } finally {
    await rm(home, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** path → blob id for every file in the checkout's index. */
export async function listBlobs(dir: string, opts: { signal?: AbortSignal } = {}): Promise<Map<string, string>> {
  const out = await git(dir, ["ls-files", "-s", "-z"], { allowInsecure: false, ...opts });
  const blobs = new Map<string, string>();
  for (const entry of out.split("\0")) {
    // "<mode> <blob> <stage>\t<path>"
    const m = /^\d+ ([0-9a-f]{40,64}) \d\t(.+)$/s.exec(entry);
    if (m?.[1] && m[2]) blobs.set(m[2], m[1]);
  }
  return blobs;
}

/** Changed line ranges (1-based, inclusive, on the new side) per file; "all" for added files. */
export type ChangedLines = Map<string, [number, number][] | "all">;

/**
 * Fetches `baseline` into the shallow checkout and diffs it against HEAD. Fails with a
 * ScanInputError when the commit cannot be fetched (unknown, or not reachable on the remote).
 */
export async function changedSince(dir: string, baseline: string, opts: { allowInsecure: boolean; signal?: AbortSignal; timeoutMs?: number }): Promise<ChangedLines> {
  try {
    await git(dir, ["fetch", "--quiet", "--depth=1", "--no-tags", "--no-recurse-submodules", "origin", baseline], opts);
  } catch {
    throw new ScanInputError("The baseline commit could not be fetched from the repository.");
  }
  const diff = await git(dir, ["diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", "--no-textconv", baseline, "HEAD", "--"], opts);
  return parseUnifiedZero(diff);
}

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

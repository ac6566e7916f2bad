/**
 * Temporary folders of the test helpers (tmpDir, makeGitRepo, a stack's workspace) are
 * recorded as they are made and removed when the test file ends: by the test environment
 * (jest-environment.ts) after the file's own afterAll hooks have run, since a hook of ours
 * would run before them, while their servers and workers may still use the folders. Outside
 * Jest (a benchmark, a script) they are removed when the process exits.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where the test environment collects the folders of one test file (its global). */
export const TEMP_DIRS_KEY = "__axTempDirs";

type TrackingGlobal = { [TEMP_DIRS_KEY]?: Set<string> };

let processDirs: Set<string> | undefined;

export function trackTempDir(dir: string): string {
  const perFile = (globalThis as TrackingGlobal)[TEMP_DIRS_KEY];
  if (perFile) {
    perFile.add(dir);
    return dir;
  }
  if (!processDirs) {
    const dirs = new Set<string>();
    processDirs = dirs;
    process.once("exit", () => removeDirs(dirs));
  }
  processDirs.add(dir);
  return dir;
}

/**
 * A new folder under the system's temp directory, removed when the test file ends. The
 * testkit's index re-exports it; test support that should not load the rest of the testkit
 * (its database and Redis clients) imports it from "@ax/testkit/temp".
 */
export function tmpDir(prefix = "ax-test-"): string {
  return trackTempDir(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** rm(1) as the fallback: a checkout nested past PATH_MAX defeats Node's recursive rm. */
export function removeDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    try {
      execFileSync("rm", ["-rf", "--", dir], { stdio: "ignore" });
    } catch {
      // Left for the system's temp cleaner; a failed cleanup must not fail the run.
    }
  }
}

export function removeDirs(dirs: Set<string>): void {
  for (const dir of dirs) removeDir(dir);
  dirs.clear();
}

/**
 * Shared setup for analyzer adapter tests: checkouts written to a temp dir, an
 * AnalyzerContext for them, and a hard check that the real tool is installed. These tests
 * run the real tools; when one is missing the suite fails with the package to install,
 * never skips silently.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AnalyzerContext } from "../src/analyzers/types";

/** Debian package of each tool the adapters run. */
export const DEBIAN_PACKAGES: Record<string, string> = {
  bandit: "bandit",
  flawfinder: "flawfinder",
  cppcheck: "cppcheck",
  shellcheck: "shellcheck",
};

/** Throws a clear error when `tool` is not on PATH (call it in beforeAll). */
export function requireTool(tool: string): void {
  try {
    execFileSync("sh", ["-c", 'command -v "$1"', "sh", tool], { stdio: "pipe" });
  } catch {
    const pkg = DEBIAN_PACKAGES[tool] ?? tool;
    throw new Error(`${tool} is not installed, and these tests run the real tool. Install it: apt-get install -y ${pkg}`);
  }
}

/** Writes `files` (repo-relative path → content) under root/name; returns the checkout. */
export function writeCheckout(root: string, name: string, files: Record<string, string | Buffer>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

export function analyzerContext(root: string, dir: string, files: readonly string[], over: Partial<AnalyzerContext> = {}): AnalyzerContext {
  return {
    dir,
    languages: new Set<string>(),
    timeoutMs: 60_000,
    maxOutputBytes: 64 * 1024 * 1024,
    signal: new AbortController().signal,
    scratchDir: mkdtempSync(join(root, "scratch-")),
    threads: 2,
    files,
    ...over,
  };
}

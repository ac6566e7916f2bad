/**
 * Real git repositories for tests, made with the real git binary in a temp dir. The test's
 * own git runs isolated from the developer's config (no global/system config, fixed author).
 * Temp dirs are the testkit's (@ax/testkit/temp, which loads none of its database or Redis
 * clients): removed when the test file ends, whether or not the test removes them itself.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { removeDir as removeTempDir, tmpDir } from "@ax/testkit/temp";

const TEST_GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.invalid",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.invalid",
};

export function git(cwd: string, args: string[], extraEnv: Record<string, string> = {}): string {
  return execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: { ...TEST_GIT_ENV, ...extraEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** A new folder under the system's temp directory, removed when the test file ends. */
export function tempDir(prefix = "ax-scanner-test-"): string {
  return tmpDir(prefix);
}

/** Removes a folder now (rather than when the test file ends). */
export function removeDir(dir: string): void {
  removeTempDir(dir);
}

export type FileSpec = string | Buffer | { symlink: string };

/** Writes the files and commits them; returns the new commit's sha. */
export function commitFiles(repo: string, files: Record<string, FileSpec>, message = "commit"): string {
  for (const [path, content] of Object.entries(files)) {
    const full = join(repo, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof content === "object" && !Buffer.isBuffer(content)) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
  git(repo, ["add", "-A"]);
  git(repo, ["commit", "-q", "-m", message]);
  return git(repo, ["rev-parse", "HEAD"]).trim();
}

/** A new non-bare repository on branch main with the given files committed. */
export function makeRepo(parent: string, name: string, files: Record<string, FileSpec>): { path: string; url: string; head: string } {
  const path = join(parent, name);
  mkdirSync(path, { recursive: true });
  git(path, ["init", "-q"]);
  const head = commitFiles(path, files);
  return { path, url: `file://${path}`, head };
}

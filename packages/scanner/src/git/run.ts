/**
 * One git process of a clone, with the hardening of hardening.ts and the clone's limits: the
 * abort signal (wall clock, size watcher, caller), and a stall limit that kills git when it
 * prints nothing for too long. execa directly, not simple-git: the clone runs several short
 * commands against a git directory we name, and each spawn is on the scan's critical path.
 */
import type { Readable } from "node:stream";
import { execa } from "execa";
import { hardenedGitConfig, hardenedGitEnv } from "./hardening";
import { gitErrorText } from "./stderr";

/**
 * Settings for the clone's own repository on top of the hardening: no automatic gc or
 * maintenance (it may detach and outlive the clone's limits), every fetch kept as one pack
 * (a kept repository's growth is then counted in packs), and no history walk to report
 * forced updates (the refs are ours; a shallow repository has no history to walk).
 */
const CLONE_CONFIG = [
  "gc.auto=0",
  "maintenance.auto=false",
  "fetch.unpackLimit=1",
  "transfer.unpackLimit=1",
  "fetch.showForcedUpdates=false",
];

const MAX_OUTPUT = 256 * 1024 * 1024;

export interface GitSession {
  /** Empty throwaway HOME: no user config, credentials or templates are found there. */
  home: string;
  allowInsecure: boolean;
  /** Fired by the clone's limits; kills the running git. */
  signal: AbortSignal;
  /** Silence after which git counts as stalled; onStall is called (and should fire signal). */
  stallMs: number;
  onStall: () => void;
}

export interface GitCall {
  /** The repository (`--git-dir`); omitted for commands that need none (init). */
  gitDir?: string;
  /** The checkout (`--work-tree`) for commands that write or read files. */
  workTree?: string;
  /** The index file to use instead of the repository's own (`GIT_INDEX_FILE`). */
  indexFile?: string;
  /** Sees git's stderr as it arrives (fetch progress). */
  onStderr?: (stderr: Readable) => void;
}

/** A failed git command; the message is git's stderr less its progress lines, for clone-errors.ts to classify (never shown). */
export class GitCommandError extends Error {
  override readonly name = "GitCommandError";
}

export async function runGit(session: GitSession, args: string[], call: GitCall = {}): Promise<Buffer> {
  const location = [
    ...(call.gitDir !== undefined ? [`--git-dir=${call.gitDir}`] : []),
    ...(call.workTree !== undefined ? [`--work-tree=${call.workTree}`] : []),
  ];
  const config = [...hardenedGitConfig(session.allowInsecure), ...CLONE_CONFIG].flatMap((c) => ["-c", c]);
  if (session.signal.aborted) throw new GitCommandError("git was not started: the clone was stopped");
  const child = execa("git", [...config, ...location, ...args], {
    // An empty directory as cwd: no repository around it can be discovered or lend config.
    cwd: session.home,
    env: {
      ...hardenedGitEnv(session.home, session.allowInsecure),
      ...(call.indexFile !== undefined ? { GIT_INDEX_FILE: call.indexFile } : {}),
    },
    extendEnv: false,
    stdin: "ignore",
    encoding: "buffer",
    maxBuffer: MAX_OUTPUT,
    // Its own process group: a stop must reach git's helpers too (git-remote-http, upload-pack),
    // which otherwise live on with our pipes open and the clone waits for them.
    detached: true,
    reject: false,
  });
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  };
  session.signal.addEventListener("abort", kill, { once: true });
  let stall = setTimeout(session.onStall, session.stallMs);
  const alive = () => {
    clearTimeout(stall);
    stall = setTimeout(session.onStall, session.stallMs);
  };
  child.stdout?.on("data", alive);
  child.stderr?.on("data", alive);
  if (call.onStderr && child.stderr) call.onStderr(child.stderr);
  try {
    const result = await child;
    if (result.exitCode !== 0 || session.signal.aborted) {
      throw new GitCommandError(
        gitErrorText(Buffer.from(result.stderr ?? new Uint8Array()).toString("utf8")) || `git ${args[0] ?? ""} failed`,
      );
    }
    return Buffer.from(result.stdout ?? new Uint8Array());
  } finally {
    clearTimeout(stall);
    session.signal.removeEventListener("abort", kill);
  }
}

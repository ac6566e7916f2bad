import type { Readable, Writable } from "node:stream";

/**
 * Everything a command reads from or writes to the outside, so that commands never touch
 * `process` themselves: the binary passes the real streams, tests may pass their own.
 */
export interface Io {
  out(s: string): void;
  err(s: string): void;
  env: Record<string, string | undefined>;
  stdin: Readable;
  /** For readline's echo and line editing on a terminal. */
  stdout: Writable;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  /** Columns of the terminal, when stdout is one. */
  columns?: number;
}

export function processIo(): Io {
  return {
    out: (s) => process.stdout.write(s),
    err: (s) => process.stderr.write(s),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    columns: process.stdout.columns,
  };
}

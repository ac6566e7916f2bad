/**
 * The environment analyzer processes run with (git has its own, git/hardening.ts). Built
 * from nothing (execa `extendEnv: false`) so DATABASE_URL, REDIS_URL, model keys and tokens
 * in the worker's environment never reach a tool that is parsing attacker-controlled files.
 */
export function analyzerEnv(scratchDir: string): Record<string, string> {
  return {
    PATH: toolPath(),
    HOME: scratchDir,
    TMPDIR: scratchDir,
    // C semantics with UTF-8: tools print non-ASCII file names as they are.
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    NO_COLOR: "1",
  };
}

/** PATH finds the tools (Debian packages, node_modules/.bin); it carries no secrets. */
export function toolPath(): string {
  return process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
}

const ABSOLUTE_PATH = /(?:^|[\s'"(])\/(?:[^\s'"():]+\/)*[^\s'"():]*/g;

/** The first meaningful line of a tool's stderr, without absolute paths of the worker. */
export function stderrSummary(stderr: string): string {
  const line = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  if (!line) return "";
  return line.replace(ABSOLUTE_PATH, (m) => `${m.startsWith("/") ? "" : m[0]}<path>`).slice(0, 300);
}

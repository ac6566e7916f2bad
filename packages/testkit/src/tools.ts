/**
 * The programs the suites drive (PostgreSQL's server binaries, redis-server, Chromium) are
 * looked up, never assumed at one path: Debian, other distributions and hand-built installs
 * put them in different places, and PostgreSQL's live under a versioned folder.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** A program the suite needs is not installed; the message names the package to install. */
export class MissingToolError extends Error {
  override readonly name = "MissingToolError";
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first `name` on PATH that is an executable file, as the shell would run it. */
export function findOnPath(name: string, searchPath = process.env.PATH ?? ""): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return null;
}

/** "16.2" → [16, 2]; a folder name that is not a version sorts first. */
function versionKey(name: string): number[] {
  return /^\d+(\.\d+)*$/.test(name) ? name.split(".").map(Number) : [-1];
}

function compareVersions(a: string, b: string): number {
  const [x, y] = [versionKey(a), versionKey(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export interface PgBinSearch {
  /** An explicit folder (AX_PG_BIN), taken as is when it holds initdb. */
  override?: string;
  /** Where `pg_config --bindir` is asked; null skips it. */
  pgConfig?: string | null;
  searchPath?: string;
  /** Holds one folder per installed major version, each with a bin/ (Debian's layout). */
  versionsRoot?: string;
}

/**
 * The folder of PostgreSQL's server programs (initdb, pg_ctl, postgres): AX_PG_BIN, else
 * `pg_config --bindir`, else the folder of an `initdb` on PATH, else the newest
 * `/usr/lib/postgresql/<version>/bin` (Debian keeps the server programs off PATH). A folder
 * counts only when it holds initdb: pg_config from a client-only install names one without it.
 */
export function findPgBin(opts: PgBinSearch = {}): string | null {
  const hasInitdb = (dir: string) => isExecutable(path.join(dir, "initdb"));
  const override = opts.override ?? process.env.AX_PG_BIN;
  if (override) return hasInitdb(override) ? override : null;
  const pgConfig = opts.pgConfig === undefined ? findOnPath("pg_config", opts.searchPath) : opts.pgConfig;
  if (pgConfig) {
    try {
      const dir = execFileSync(pgConfig, ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 10_000 }).trim();
      if (dir && hasInitdb(dir)) return dir;
    } catch {
      // A broken pg_config: the other places may still have the programs.
    }
  }
  const initdb = findOnPath("initdb", opts.searchPath);
  if (initdb) return path.dirname(fs.realpathSync(initdb));
  const root = opts.versionsRoot ?? "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return null;
  }
  for (const v of versions.sort(compareVersions).reverse()) {
    const dir = path.join(root, v, "bin");
    if (hasInitdb(dir)) return dir;
  }
  return null;
}

/** As findPgBin, or a MissingToolError naming the Debian package. */
export function requirePgBin(): string {
  const dir = findPgBin();
  if (dir) return dir;
  const hint = process.env.AX_PG_BIN ? ` (AX_PG_BIN=${process.env.AX_PG_BIN} holds no initdb)` : "";
  throw new MissingToolError(
    `PostgreSQL's server programs (initdb, pg_ctl) were not found${hint}: install the Debian package postgresql (apt-get install postgresql) or set AX_PG_BIN to their folder.`,
  );
}

export function requireRedisServer(): string {
  const file = findOnPath("redis-server");
  if (file) return file;
  throw new MissingToolError("redis-server was not found on PATH: install the Debian package redis-server (apt-get install redis-server).");
}

const CHROMIUM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** CHROMIUM_PATH, else the first of chromium, chromium-browser, google-chrome on PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.CHROMIUM_PATH) return isExecutable(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : null;
  for (const name of CHROMIUM_NAMES) {
    const file = findOnPath(name, env.PATH ?? "");
    if (file) return file;
  }
  return null;
}

export function requireChromium(env: NodeJS.ProcessEnv = process.env): string {
  const file = findChromium(env);
  if (file) return file;
  if (env.CHROMIUM_PATH) {
    throw new MissingToolError(
      `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file: point it at a Chromium or Chrome binary, or unset it and install the Debian package chromium.`,
    );
  }
  throw new MissingToolError(
    `Chromium was not found (looked for ${CHROMIUM_NAMES.join(", ")} on PATH): install the Debian package chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
  );
}

/**
 * The labeled datasets (DATASETS_DIR, default ../shared/datasets beside the checkout, see its
 * README): unpacked into a scratch folder outside the repository, never committed. Only the
 * benchmarks and the review model's data derivation read them; the tests do not.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const JULIET_JAVA_ARCHIVE = "juliet-java-1.2.tar.gz";
export const JULIET_C_ARCHIVE = "juliet-c-1.3.tar.gz";
export const CASTLE_FILE = "castle-c250.json";
export const PEER_ARCHIVE = "peer-labelled.tar.gz";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** DATASETS_DIR, else ../shared/datasets beside the checkout. */
export function datasetsDir(): string {
  return resolve(process.env.DATASETS_DIR ?? join(repoRoot, "..", "shared", "datasets"));
}

/**
 * The datasets folder when it holds `files`; otherwise one line on stderr that says what is
 * missing and how to point DATASETS_DIR at it, and exit code 2 (a setup problem, not a crash:
 * no stack trace). `command` is the npm script, for the line to repeat.
 */
export function requireDatasets(command: string, files: readonly string[]): string {
  const dir = datasetsDir();
  const missing = files.filter((f) => !existsSync(join(dir, f)));
  if (missing.length === 0) return dir;
  const where = process.env.DATASETS_DIR
    ? `DATASETS_DIR=${dir}`
    : `${dir} (DATASETS_DIR is unset; the default is ../shared/datasets beside the checkout)`;
  process.stderr.write(
    `${command}: the labeled datasets ${missing.join(", ")} are not in ${where}. Set DATASETS_DIR to the ` +
      `folder that holds them: DATASETS_DIR=/path/to/datasets npm run ${command}\n`,
  );
  process.exit(2);
}

export async function unpack(archive: string, dest: string): Promise<void> {
  if (!existsSync(archive)) throw new Error(`Dataset not found: ${archive}`);
  await mkdir(dest, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn("tar", ["-xzf", archive, "-C", dest, "--no-same-owner", "--no-same-permissions"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`tar -xzf ${archive} failed (${code}): ${stderr.slice(0, 500)}`)),
    );
  });
}

export async function sha256File(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

export interface CastleTest {
  name: string;
  id: string;
  cwe: number;
  vulnerable: boolean;
  /** Flaw lines (1-based). */
  lines: number[];
  code: string;
  description?: string;
}

export interface CastleDataset {
  version: string;
  tests: CastleTest[];
}

export async function loadCastle(path: string): Promise<CastleDataset> {
  const doc = JSON.parse(await readFile(path, "utf8")) as { version?: unknown; tests?: unknown };
  if (!Array.isArray(doc.tests)) throw new Error(`${path}: no tests array`);
  const tests = doc.tests.map((t: unknown, i: number): CastleTest => {
    const r = (t ?? {}) as Record<string, unknown>;
    const name = typeof r.name === "string" && /^[\w.-]+\.c$/.test(r.name) ? r.name : `castle-${i}.c`;
    return {
      name,
      id: typeof r.id === "string" ? r.id : name,
      cwe: Number(r.cwe),
      vulnerable: r.vulnerable === true,
      lines: Array.isArray(r.lines) ? r.lines.map(Number).filter(Number.isInteger) : [],
      code: typeof r.code === "string" ? r.code : "",
      ...(typeof r.description === "string" ? { description: r.description } : {}),
    };
  });
  return { version: String(doc.version ?? "unknown"), tests };
}

/** Writes each CASTLE program to `<dir>/<name>` and returns the directory. */
export async function writeCastle(dataset: CastleDataset, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const t of dataset.tests) await writeFile(join(dir, t.name), t.code.endsWith("\n") ? t.code : `${t.code}\n`);
  return dir;
}

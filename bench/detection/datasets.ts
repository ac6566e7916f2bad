/**
 * The labeled datasets (../shared/datasets, see its README): unpacked into a scratch folder
 * outside the repository, never committed.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const JULIET_JAVA_ARCHIVE = "juliet-java-1.2.tar.gz";
export const JULIET_C_ARCHIVE = "juliet-c-1.3.tar.gz";
export const CASTLE_FILE = "castle-c250.json";

export async function unpack(archive: string, dest: string): Promise<void> {
  if (!existsSync(archive)) throw new Error(`Dataset not found: ${archive}`);
  await mkdir(dest, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn("tar", ["-xzf", archive, "-C", dest, "--no-same-owner", "--no-same-permissions"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`tar -xzf ${archive} failed (${code}): ${stderr.slice(0, 500)}`))));
  });
}

export async function sha256File(path: string): Promise<string> {
  return createHash("sha256").update(await readFile(path)).digest("hex");
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

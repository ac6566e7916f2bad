// Every npm script that reads the labeled datasets stops at once when they are absent: exit
// code 2 and one line that names the missing files and DATASETS_DIR, no stack trace. The
// scripts run for real, as package.json defines them, against an empty datasets folder.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tmpDir } from "@ax/testkit";

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;

const READERS: Record<string, string[]> = {
  "bench:detection": ["juliet-java-1.2.tar.gz", "castle-c250.json", "juliet-c-1.3.tar.gz", "peer-labelled.tar.gz"],
  "bench:dataflow": ["juliet-java-1.2.tar.gz"],
  "bench:perf": ["juliet-java-1.2.tar.gz", "juliet-c-1.3.tar.gz"],
  "bench:scan": ["juliet-java-1.2.tar.gz", "juliet-c-1.3.tar.gz"],
  "bench:scale": ["juliet-java-1.2.tar.gz", "juliet-c-1.3.tar.gz"],
  "ai:data": ["juliet-java-1.2.tar.gz", "castle-c250.json", "juliet-c-1.3.tar.gz", "peer-labelled.tar.gz"],
};

it.each(Object.entries(READERS))(
  "npm run %s says which datasets are missing and how to set DATASETS_DIR",
  async (name, files) => {
    const command = scripts[name];
    expect(command).toMatch(/^node --import tsx \S+\.ts/);
    const [, ...args] = command!.split(" ");
    const empty = tmpDir("ax-no-datasets-");
    const result = await run(process.execPath, args, { cwd: repoRoot, env: { ...process.env, DATASETS_DIR: empty }, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: "" }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${name}: the labeled datasets ${files.join(", ")} are not in DATASETS_DIR=${empty}.`);
    expect(lines[0]).toContain(`DATASETS_DIR=/path/to/datasets npm run ${name}`);
  },
  90_000,
);

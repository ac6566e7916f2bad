// The folders the testkit makes for a test file are gone when that file ends, and only after
// its own afterAll hooks ran: a real Jest run (this repository's config) of a small test file,
// with a temp directory of its own so that whatever it leaves there is seen (Jest's transform
// cache stays where it is, so that the run is quick).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaults } from "jest-config";
import { tmpDir } from "./index";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const testkit = path.join(repoRoot, "packages/testkit/src/index.ts");
// The scanner's test support makes its temp folders with the testkit's tracking too.
const gitFixtures = path.join(repoRoot, "packages/scanner/test/git-fixtures.ts");

const CASE = `
import fs from "node:fs";
import { createTestStack, makeGitRepo, testConfig, tmpDir } from ${JSON.stringify(testkit)};
import { makeRepo, tempDir } from ${JSON.stringify(gitFixtures)};

const made: string[] = [];
let stack: Awaited<ReturnType<typeof createTestStack>>;
beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(async () => {
  // The suite's own cleanup still finds its folders.
  for (const dir of made) if (!fs.existsSync(dir)) throw new Error(dir + " removed before afterAll");
  await stack.close();
  fs.writeFileSync(process.env.AX_MADE_LIST!, JSON.stringify(made));
});

it("makes folders and leaves them", () => {
  made.push(tmpDir("ax-case-"), makeGitRepo({ "a.txt": "a" }), stack.config.worker.workspaceDir);
  const scannerDir = tempDir();
  makeRepo(scannerDir, "repo", { "a.txt": "a" });
  made.push(scannerDir, testConfig().worker.workspaceDir);
  expect(testConfig().worker.workspaceDir).toBe(made[4]);
  for (const dir of made) expect(fs.existsSync(dir)).toBe(true);
});
`;

it("removes tmpDir, makeGitRepo, stack, testConfig and git-fixtures folders when the test file ends", () => {
  const work = tmpDir("ax-temp-case-");
  const tmp = path.join(work, "tmp");
  fs.mkdirSync(tmp);
  const caseDir = path.join(work, "case");
  fs.mkdirSync(caseDir);
  fs.writeFileSync(path.join(caseDir, "leftovers.test.ts"), CASE);
  const list = path.join(work, "made.json");
  execFileSync(
    process.execPath,
    [
      "--experimental-vm-modules",
      "--no-warnings=ExperimentalWarning",
      path.join(repoRoot, "node_modules/jest/bin/jest.js"),
      "--roots",
      caseDir,
      "--testMatch",
      "**/leftovers.test.ts",
      "--maxWorkers",
      "1",
      "--cacheDirectory",
      defaults.cacheDirectory,
    ],
    { cwd: repoRoot, env: { ...process.env, TMPDIR: tmp, AX_MADE_LIST: list }, stdio: ["ignore", "pipe", "pipe"], timeout: 90_000 },
  );
  const made = JSON.parse(fs.readFileSync(list, "utf8")) as string[];
  expect(made).toHaveLength(5);
  expect(new Set(made).size).toBe(5);
  for (const dir of made) expect(dir.startsWith(tmp)).toBe(true);
  for (const dir of made) expect(fs.existsSync(dir)).toBe(false);
  expect(fs.readdirSync(tmp)).toEqual([]);
}, 120_000);

import { existsSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { withWorkspace } from "./workspace";
import { removeDir, tempDir } from "./test-support/git-fixtures";

let base: string;
beforeAll(() => (base = join(tempDir(), "workspaces")));
afterAll(() => removeDir(dirname(base)));

it("gives a fresh private directory and removes it after success", async () => {
  let seen = "";
  const result = await withWorkspace(base, async (dir) => {
    seen = dir;
    expect(dirname(dir)).toBe(base);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    mkdirSync(join(dir, "repo/deep"), { recursive: true });
    writeFileSync(join(dir, "repo/deep/file"), "x");
    return 42;
  });
  expect(result).toBe(42);
  expect(existsSync(seen)).toBe(false);
});

it("removes the directory when the work throws, and rethrows", async () => {
  let seen = "";
  await expect(
    withWorkspace(base, async (dir) => {
      seen = dir;
      writeFileSync(join(dir, "partial"), "x");
      throw new Error("boom");
    }),
  ).rejects.toThrow("boom");
  expect(seen).not.toBe("");
  expect(existsSync(seen)).toBe(false);
});

it("gives concurrent scans different directories", async () => {
  const dirs = await Promise.all([1, 2, 3].map(() => withWorkspace(base, async (dir) => dir)));
  expect(new Set(dirs).size).toBe(3);
});

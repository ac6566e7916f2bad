import { existsSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { withWorkspace } from "./workspace";
import { removeDir, tempDir } from "../test/git-fixtures";

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

describe("sweepStaleWorkspaces", () => {
  it("removes scan workspaces older than the limit (left by a killed worker) and keeps fresh ones and other entries", async () => {
    const { utimesSync } = await import("node:fs");
    const { sweepStaleWorkspaces } = await import("./workspace");
    const base = tempDir("ax-sweep-");
    try {
      for (const name of ["scan-old", "scan-fresh", "other-old"]) {
        mkdirSync(join(base, name, "src"), { recursive: true });
        writeFileSync(join(base, name, "src", "a.py"), "x = 1\n");
      }
      const hourAgo = new Date(Date.now() - 3600_000);
      utimesSync(join(base, "scan-old"), hourAgo, hourAgo);
      utimesSync(join(base, "other-old"), hourAgo, hourAgo);
      expect(await sweepStaleWorkspaces(base, 30 * 60_000)).toBe(1);
      expect(existsSync(join(base, "scan-old"))).toBe(false);
      expect(existsSync(join(base, "scan-fresh"))).toBe(true);
      expect(existsSync(join(base, "other-old"))).toBe(true);
      expect(await sweepStaleWorkspaces(join(base, "missing"), 0)).toBe(0);
    } finally {
      removeDir(base);
    }
  });
});

import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withKeptDir } from "./kept-state";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

it("hands a completed run's directory to the next run, one run at a time, and drops a failed run's", async () => {
  const stateDir = join(root, "org", "project");
  const opts = { stateDir, name: "tool-state", scratchDir: join(root, "scratch") };
  await withKeptDir(opts, async (dir) => writeFileSync(join(dir, "a"), "1"));
  expect(readdirSync(stateDir)).toEqual(["tool-state"]);
  // While one run holds it, a second run of the same project starts empty.
  await withKeptDir(opts, async (dir) => {
    expect(readdirSync(dir)).toEqual(["a"]);
    await withKeptDir(opts, async (other) => expect(readdirSync(other)).toEqual([]));
    writeFileSync(join(dir, "b"), "2");
  });
  expect(readdirSync(join(stateDir, "tool-state")).sort()).toEqual(["a", "b"]);
  // A failed run may have left its directory half written: it is not kept.
  await expect(
    withKeptDir(opts, async (dir) => {
      writeFileSync(join(dir, "c"), "3");
      throw new Error("tool failed");
    }),
  ).rejects.toThrow("tool failed");
  expect(readdirSync(stateDir)).toEqual([]);
  // Without a state directory, the run works in its scratch directory.
  await withKeptDir({ ...opts, stateDir: undefined }, async (dir) => expect(dir).toBe(join(root, "scratch", "tool-state")));
  expect(existsSync(join(root, "scratch", "tool-state"))).toBe(true);
});

// Git's line mapping, read from real `git diff` output of repositories made here: every line
// that git keeps must land on the same text in the new commit, and changed lines nowhere.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { mapLine } from "@ax/contracts";
import { commitFiles, git, makeGitRepo } from "@ax/testkit";
import { LINE_MAP_DIFF_ARGS, parseLineMap } from "./line-map";

function lineMapOf(repo: string, from: string, to: string) {
  return parseLineMap(from, to, execFileSync("git", [...LINE_MAP_DIFF_ARGS, from, to, "--"], { cwd: repo }));
}

function show(repo: string, commit: string, file: string): string[] {
  return git(repo, "show", `${commit}:${file}`).split("\n");
}

/** Every old line either maps to an identical new line or is reported changed; the kept count is checked too. */
function expectFaithful(repo: string, from: string, to: string, file: string, kept: number) {
  const map = lineMapOf(repo, from, to);
  const before = show(repo, from, file);
  let mapped = 0;
  before.forEach((text, i) => {
    const where = mapLine(map, file, i + 1);
    if (!where) return;
    mapped++;
    expect(show(repo, to, where.file)[where.line - 1]).toBe(text);
  });
  expect(mapped).toBe(kept);
}

const numbered = (n: number, tag = "l") => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`);

describe("parseLineMap and mapLine", () => {
  it("shifts unchanged lines by the insertions and deletions above them, and drops changed ones", () => {
    const repo = makeGitRepo({ "a.txt": `${numbered(20).join("\n")}\n` });
    const from = git(repo, "rev-parse", "HEAD");
    const lines = numbered(20);
    lines.splice(2, 0, "new-a", "new-b"); // insertion after l2
    lines.splice(8, 2); // deletes l7, l8
    lines[12] = "changed"; // l13 changed (index after the edits above)
    lines.push("tail");
    const to = commitFiles(repo, { "a.txt": `${lines.join("\n")}\n` }, "edit");
    expectFaithful(repo, from, to, "a.txt", 17);
    const map = lineMapOf(repo, from, to);
    expect(mapLine(map, "a.txt", 1)).toEqual({ file: "a.txt", line: 1 });
    expect(mapLine(map, "a.txt", 3)).toEqual({ file: "a.txt", line: 5 });
    expect(mapLine(map, "a.txt", 7)).toBeNull();
    expect(mapLine(map, "untouched.txt", 4)).toEqual({ file: "untouched.txt", line: 4 });
    // Two inserted, two deleted, one changed (one out, one in), one appended.
    expect(map.changed).toBe(7);
  });

  it("follows renames, with and without edits, through paths git quotes", () => {
    const names = ["plain.js", "with space.js", "ünï.js", 'quote"d.js', "tab\there.js"];
    const files = Object.fromEntries(names.map((n, i) => [n, `${numbered(12, `f${i}-`).join("\n")}\n`]));
    const repo = makeGitRepo(files);
    const from = git(repo, "rev-parse", "HEAD");
    fs.mkdirSync(path.join(repo, "moved dir"));
    names.forEach((n, i) => git(repo, "mv", n, path.join("moved dir", `r${i} ${n}`)));
    // One renamed file also changes a line: still a rename for git (similarity over 50%).
    const edited = path.join(repo, "moved dir", `r0 ${names[0]}`);
    fs.writeFileSync(edited, fs.readFileSync(edited, "utf8").replace("f0-6\n", "f0-6 changed\n"));
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "rename");
    const to = git(repo, "rev-parse", "HEAD");
    const map = lineMapOf(repo, from, to);
    names.forEach((n, i) => {
      expect(mapLine(map, n, 3)).toEqual({ file: `moved dir/r${i} ${n}`, line: 3 });
      expectFaithful(repo, from, to, n, i === 0 ? 11 : 12);
    });
  });

  it("maps nothing of a deleted, binary-changed or type-changed file, and keeps the files after them aligned", () => {
    const repo = makeGitRepo({
      "gone.js": "a\nb\n",
      "bin.dat": "x\u0000y\n",
      "link.js": "l1\nl2\n",
      "new\nline.js": "n1\nn2\nn3\n",
      "z.js": "z1\nz2\nz3\n",
    });
    const from = git(repo, "rev-parse", "HEAD");
    fs.rmSync(path.join(repo, "gone.js"));
    fs.writeFileSync(path.join(repo, "bin.dat"), "x\u0000z\n");
    // A file that becomes a symlink: git prints it as two patch sections (deletion, creation).
    fs.rmSync(path.join(repo, "link.js"));
    fs.symlinkSync("z.js", path.join(repo, "link.js"));
    fs.writeFileSync(path.join(repo, "new\nline.js"), "n0\nn1\nn2\nn3\n");
    fs.writeFileSync(path.join(repo, "z.js"), "z0\nz1\nz2\nz3\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "delete");
    const map = lineMapOf(repo, from, git(repo, "rev-parse", "HEAD"));
    expect(mapLine(map, "gone.js", 1)).toBeNull();
    expect(mapLine(map, "bin.dat", 1)).toBeNull();
    expect(mapLine(map, "link.js", 1)).toBeNull();
    expect(mapLine(map, "new\nline.js", 1)).toEqual({ file: "new\nline.js", line: 2 });
    expect(mapLine(map, "z.js", 3)).toEqual({ file: "z.js", line: 4 });
  });

  it("keeps every unchanged line faithful through random edits", () => {
    const repo = makeGitRepo({ "r.txt": `${numbered(60).join("\n")}\n` });
    let from = git(repo, "rev-parse", "HEAD");
    let lines = numbered(60);
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 15; round++) {
      const next = [...lines];
      for (let e = 0; e < 4; e++) {
        const at = rand(next.length + 1);
        const kind = rand(3);
        if (kind === 0) next.splice(at, 0, `ins-${round}-${e}`);
        else if (kind === 1 && next.length > 5) next.splice(Math.min(at, next.length - 1), 1 + rand(3));
        else if (next.length > 0) next[Math.min(at, next.length - 1)] = `mod-${round}-${e}`;
      }
      const to = commitFiles(repo, { "r.txt": `${next.join("\n")}\n` }, `round ${round}`);
      const map = lineMapOf(repo, from, to);
      lines.forEach((text, i) => {
        const where = mapLine(map, "r.txt", i + 1);
        if (where) expect(next[where.line - 1]).toBe(text);
        // Lines git kept are all mapped: every surviving unique line must be found.
        else expect(next.includes(text) && !isChangedByGit(map, i + 1)).toBe(false);
      });
      from = to;
      lines = next;
    }
  });
});

function isChangedByGit(map: ReturnType<typeof parseLineMap>, line: number): boolean {
  const entry = map.files["r.txt"];
  if (!entry) return true;
  return entry.hunks.some(([os, oc]) => oc > 0 && line >= os && line < os + oc);
}

/**
 * Hostile repositories through the real pipeline (see hostile-repos.test.ts and
 * test/hostile-harness.ts): file names, non-UTF-8 content and names, paths git refuses to check
 * out, deep nesting and long paths.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fastImportCommit, gitIn, hashBlob, initRepo, mktreeCommit } from "../test/hostile-fixtures";
import {
  C_GETS,
  PY_EXEC,
  byExtension,
  root,
  workspaces,
  markers,
  hostile,
  scanRepo,
  expectCompleted,
  expectRefused,
  filesWithFindings,
  expectOnlyCommittedFiles,
} from "../test/hostile-harness";

describe("file names", () => {
  /** Scans a repository of vulnerable files with these names; returns the names with no finding at that exact path. */
  async function namesWithoutFindings(name: string, files: (string | Buffer)[]): Promise<{ missing: string[]; reported: string[] }> {
    const repo = initRepo(join(root, name));
    const entries = files.map((path) => ({ path, content: byExtension(String(path)) }));
    fastImportCommit(repo.path, entries);
    const o = await scanRepo(repo.url, { inCheckout: (checkout) => expectOnlyCommittedFiles(checkout, files.map(String)) });
    const reported = [...filesWithFindings(expectCompleted(o).findings)];
    return { missing: files.map(String).filter((f) => !reported.includes(f)), reported };
  }

  it("leading dashes, option look-alikes, newlines, quotes and shell syntax are file names: findings at the exact path", async () => {
    const names = [
      "-rf.py",
      "--output=x.c",
      "--help.c",
      "-e.sh",
      "--.py",
      "-",
      "dir -x/--version.sh",
      "--upload-pack=touch pwned.py",
      "-c core.fsmonitor=touch pwned.sh",
      "a\nb.py",
      "new\nline.c",
      "cr\rlf.py",
      "with space.c",
      "tab\there.py",
      'quote"s.py',
      "$(touch pwned).sh",
      "`touch pwned`.py",
      ";rm -rf ~;.py",
      "*.c",
      "[a].c",
      "..py",
      ".. .c",
    ];
    names.forEach((n) => hostile(`file name ${JSON.stringify(n)}`));
    const { missing } = await namesWithoutFindings("names-ascii", names);
    expect(missing).toEqual([]);
    for (const stray of ["x", "pwned"]) expect(existsSync(join(process.cwd(), stray))).toBe(false);
  });

  it("non-ASCII names: findings at the exact path, from every analyzer", async () => {
    const names = ["ünïcødé-日本.py", "ünïcødé-日本.c", "ünïcødé-日本.sh", "emoji-🔥.sh", "é.sh", "nfd-e\u0301.c"];
    names.forEach((n) => hostile(`file name ${JSON.stringify(n)}`));
    const { missing, reported } = await namesWithoutFindings("names-unicode", names);
    expect({ missing, reported: reported.filter((r) => !names.includes(r)) }).toEqual({ missing: [], reported: [] });
  });

  it("a backslash in a name: the finding is not attributed to the file the name imitates", async () => {
    hostile("file name with a backslash imitating a path");
    const repo = initRepo(join(root, "names-backslash"));
    fastImportCommit(repo.path, [
      { path: "src/app.py", content: "print('safe')\n" },
      { path: "src\\app.py", content: PY_EXEC },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect([...filesWithFindings(r.findings)]).toEqual(["src\\app.py"]);
  });
});

describe("non-UTF-8 content and names", () => {
  const latin1 = (s: string) => Buffer.from(s, "latin1");

  it("Latin-1 C, Python and shell files are analyzed, with findings at the repository path", async () => {
    hostile("Latin-1 encoded C, Python and shell sources");
    const repo = initRepo(join(root, "latin1"));
    fastImportCommit(repo.path, [
      { path: "legacy.c", content: latin1(`/* r\xe9sum\xe9 \xff\xfe */\n${C_GETS.replace("gets(buf);", "gets(buf); /* \xe0 */")}`) },
      {
        path: "declared.py",
        content: latin1(`# -*- coding: latin-1 -*-\nimport os\n\ndef f(x):\n    s = 'caf\xe9'\n    os.system(x)\n    return eval(x)\n`),
      },
      { path: "undeclared.py", content: latin1(`import os\n\ndef f(x):\n    s = 'caf\xe9'\n    os.system(x)\n`) },
      { path: "latin.sh", content: latin1(`#!/bin/sh\n# \xe9t\xe9\nrm -rf $1/*\n`) },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    // A finding two analyzers agree on is merged: the analyzer may be among its sources.
    const at = (file: string, analyzer: string, line: number) =>
      expect(
        r.findings.some(
          (f) =>
            f.file === file && f.start_line === line && (f.analyzer === analyzer || (f.sources ?? []).some((s) => s.analyzer === analyzer)),
        ),
      ).toBe(true);
    at("legacy.c", "flawfinder", 5); // read through a sanitized copy, reported at the repository path
    at("declared.py", "bandit", 6);
    at("latin.sh", "shellcheck", 3);
  });

  it("a Latin-1 JavaScript file is analyzed like its UTF-8 twin (ast-grep is the only JavaScript analyzer)", async () => {
    hostile("Latin-1 encoded JavaScript");
    const js = (comment: string) =>
      `// ${comment}\nconst express = require("express");\nconst app = express();\napp.get("/", (req, res) => {\n  res.send(String(eval(req.query.x)));\n});\n`;
    const repo = initRepo(join(root, "latin1-js"));
    fastImportCommit(repo.path, [
      { path: "utf8.js", content: js("caf\u00e9") },
      { path: "latin1.js", content: latin1(js("caf\xe9")) },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    const evals = r.findings.filter((f) => f.cwe_id === "CWE-95").map((f) => `${f.file}:${f.start_line}`);
    expect(evals.sort()).toEqual(["latin1.js:5", "utf8.js:5"]);
  });

  it("a file name that is not UTF-8 does not stop the scan of the other files", async () => {
    hostile("file name with Latin-1 bytes");
    const repo = initRepo(join(root, "latin1-name"));
    fastImportCommit(repo.path, [
      { path: latin1("caf\xe9.c"), content: C_GETS },
      { path: "ok.py", content: PY_EXEC },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect(filesWithFindings(r.findings)).toContain("ok.py");
  });
});

describe("paths git refuses to check out", () => {
  it.each([
    ["an entry named '..'", ".."],
    ["an entry named '.GIT' holding hooks", ".GIT"],
  ])("%s: a clear refusal, nothing written outside, no hook runs", async (_what, name) => {
    hostile(`tree entry ${name}`);
    const repo = initRepo(join(root, `escape-${name.replace(/\W/g, "_")}`));
    const hook = hashBlob(repo.path, `#!/bin/sh\ntouch ${join(markers, "escape-hook")}\n`);
    const hooks = gitIn(repo.path, ["mktree"], `100755 blob ${hook}\tpost-checkout\n`).trim();
    const entry =
      name === ".."
        ? `100644 blob ${hook}\t..`
        : `040000 tree ${gitIn(repo.path, ["mktree"], `040000 tree ${hooks}\thooks\n`).trim()}\t.GIT`;
    mktreeCommit(repo.path, [entry, `100644 blob ${hashBlob(repo.path, PY_EXEC)}\tapp.py`]);
    const o = await scanRepo(repo.url);
    expect(readdirSync(workspaces)).toEqual([]);
    expectRefused(o);
  });
});

describe("deep nesting and long paths", () => {
  it("200 directories deep and a 3,000-character path: analyzed, findings at the exact path", async () => {
    hostile("200-level directory nesting");
    hostile("3,000-character path");
    const deep = `${Array.from({ length: 200 }, (_, i) => `d${i}`).join("/")}/deep.py`;
    const long = `${Array.from({ length: 14 }, (_, i) => `${i}`.padEnd(200, "L")).join("/")}/${"n".repeat(150)}.c`;
    const repo = initRepo(join(root, "deep"));
    fastImportCommit(repo.path, [
      { path: deep, content: PY_EXEC },
      { path: long, content: C_GETS },
    ]);
    const r = expectCompleted(await scanRepo(repo.url));
    expect([...filesWithFindings(r.findings)].sort()).toEqual([deep, long].sort());
  });

  it("a path git can check out but that is longer than PATH_MAX once joined to the workspace: a clear refusal", async () => {
    hostile("path longer than PATH_MAX inside the workspace");
    // Checkout is <workspaces>/scan-XXXXXX/src: pick a relative length git accepts (< 4096)
    // that puts the absolute path past 4096.
    const relative = 4096 - (workspaces.length + "/scan-XXXXXX/src/".length) + 24;
    expect(relative).toBeLessThan(4090);
    let path = "";
    while (path.length + 201 < relative - 10) path += `${"P".repeat(200)}/`;
    path += `${"n".repeat(relative - path.length - 2)}.c`;
    const repo = initRepo(join(root, "path-max"));
    fastImportCommit(repo.path, [{ path, content: C_GETS }]);
    expectRefused(await scanRepo(repo.url));
  });

  it("1,000 directories deep (more than git can check out): a clear refusal, workspace removed", async () => {
    hostile("1,000-level directory nesting");
    const repo = initRepo(join(root, "deeper"));
    fastImportCommit(repo.path, [
      { path: `${Array.from({ length: 1000 }, (_, i) => `d${i}`).join("/")}/deep.py`, content: PY_EXEC },
      { path: "ok.py", content: PY_EXEC },
    ]);
    expectRefused(await scanRepo(repo.url));
  });
});

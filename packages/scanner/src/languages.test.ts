import { join } from "node:path";
import { mkdirSync, writeFileSync, symlinkSync } from "node:fs";
import { detectLanguages, languageOfShebang } from "./languages";
import { removeDir, tempDir } from "../test/git-fixtures";

let root: string;
beforeAll(() => (root = tempDir()));
afterAll(() => removeDir(root));

function tree(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

it("maps extensions to languages", async () => {
  const dir = tree("mixed", {
    "a.js": "",
    "b.tsx": "",
    "c.py": "",
    "D.java": "",
    "e.go": "",
    "f.php": "",
    "g.rb": "",
    "h.cs": "",
    "i.c": "",
    "j.h": "",
    "k.cpp": "",
    "l.hpp": "",
    "m.sh": "",
    "n.kt": "",
    "o.jsp": "",
    "p.vue": "",
    "README.md": "",
  });
  expect([...(await detectLanguages(dir))].sort()).toEqual([
    "c",
    "cpp",
    "csharp",
    "go",
    "java",
    "javascript",
    "jsp",
    "kotlin",
    "php",
    "python",
    "ruby",
    "shell",
    "template",
    "typescript",
  ]);
});

it("reads shebangs of extension-less scripts", async () => {
  const dir = tree("scripts", { "bin/deploy": "#!/usr/bin/env bash\necho hi\n", "bin/tool": "#!/usr/bin/python3 -u\n", LICENSE: "MIT\n" });
  expect([...(await detectLanguages(dir))].sort()).toEqual(["python", "shell"]);
});

it("skips vendored, generated and minified code, and does not follow links", async () => {
  const dir = tree("skips", {
    "node_modules/x/index.js": "",
    "vendor/y.php": "",
    "dist/z.py": "",
    "build/w.go": "",
    ".git/hooks/h.sh": "",
    "public/app.min.js": "",
    "src/main.rb": "",
  });
  symlinkSync(join(root, "mixed"), join(dir, "link-to-mixed"));
  expect([...(await detectLanguages(dir))]).toEqual(["ruby"]);
});

it.each([
  ["#!/bin/sh", "shell"],
  ["#! /usr/bin/env -S python3 -u", "python"],
  ["#!/usr/bin/env node", "javascript"],
  ["#!/usr/bin/ruby2.7", "ruby"],
  ["#!/usr/bin/perl", null],
  ["not a shebang", null],
])("languageOfShebang(%j) = %j", (line, lang) => {
  expect(languageOfShebang(line)).toBe(lang);
});

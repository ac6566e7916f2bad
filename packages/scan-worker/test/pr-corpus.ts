/**
 * A labelled corpus of pull requests: for each, the commits (a base on main, the pull request's
 * branch forked from it, sometimes main moving on after the fork) and, worked out by hand, what
 * a diff-aware scan of the branch against main's head must report: the findings the pull
 * request introduced and the ones it suppressed (as `file:line` in its commit), and the base's
 * findings it fixed (as `file:line` in the merge-base). pull-request.test.ts runs every case.
 */

/** Files to write (a string) or delete (null), or a rename. */
export type Change = Record<string, string | null> | { rename: [string, string] };

export interface PrCase {
  name: string;
  /** Commits on the pull request's branch, in order. */
  branch: Change[];
  /** Commits on main after the fork, before the scan (a branch that is behind). */
  mainAfterFork?: Change[];
  introduced: string[];
  fixed: string[];
  suppressed: string[];
}

const lines = (...l: string[]) => `${l.join("\n")}\n`;

/** The base commit: an XSS-free handler, an eval (line 9) and an MD5 (line 12). */
export const BASE_FILES: Record<string, string> = {
  "app.js": lines(
    "const express = require('express');",
    "const crypto = require('crypto');",
    "const app = express();",
    "app.get('/hello', (req, res) => {",
    '  const name = "world";',
    "  res.send('<p>Hello ' + name + '</p>');",
    "});",
    "function run(input) {",
    "  eval(input);",
    "}",
    "function h(x) {",
    "  return crypto.createHash('md5').update(x).digest('hex');",
    "}",
    "module.exports = { app, run, h };",
  ),
  "README.md": "# demo\n",
};

const app = BASE_FILES["app.js"] as string;
const md5Function = lines("function h(x) {", "  return crypto.createHash('md5').update(x).digest('hex');", "}");

export const PR_CORPUS: PrCase[] = [
  {
    name: "a new file whose name has a space",
    branch: [
      { "lib/new file.js": lines("const c = require('crypto');", "exports.k = (x) => c.createHash('md5').update(x).digest('hex');") },
    ],
    introduced: ["lib/new file.js:2"],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a new file whose name is not ASCII",
    branch: [{ "lib/é ü.js": lines("exports.r = (s) => {", "  eval(s);", "};") }],
    introduced: ["lib/é ü.js:2"],
    fixed: [],
    suppressed: [],
  },
  {
    name: "new taint into an unchanged sink line",
    branch: [{ "app.js": app.replace('const name = "world";', "const name = req.query.name;") }],
    introduced: ["app.js:6"],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a pure rename",
    branch: [{ rename: ["app.js", "server.js"] }],
    introduced: [],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a rename with an edit elsewhere in the file",
    branch: [
      { rename: ["app.js", "src/server.js"] },
      { "src/server.js": app.replace("module.exports = { app, run, h };", "module.exports = { app, run, h, version: 2 };") },
    ],
    introduced: [],
    fixed: [],
    suppressed: [],
  },
  {
    name: "code moved within the file",
    branch: [{ "app.js": app.replace(md5Function, "").replace("function run(input) {", `${md5Function}function run(input) {`) }],
    introduced: [],
    fixed: [],
    suppressed: [],
  },
  {
    name: "code moved to another file",
    branch: [
      {
        "app.js": app.replace(md5Function, "").replace("module.exports = { app, run, h };", "module.exports = { app, run };"),
        "lib/hash.js": `const crypto = require('crypto');\n${md5Function}module.exports = { h };\n`,
      },
    ],
    introduced: [],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a branch behind main, which fixed a finding after the fork",
    mainAfterFork: [{ "app.js": app.replace("createHash('md5')", "createHash('sha256')") }, { "CHANGELOG.md": "- sha256\n" }],
    branch: [{ "README.md": "# demo\n\nA pull request that touches only the readme.\n" }],
    introduced: [],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a branch behind main that adds a finding of its own",
    mainAfterFork: [{ "app.js": app.replace("  eval(input);", "  JSON.parse(input);") }],
    branch: [{ "lib/k.js": lines("const c = require('crypto');", "", "exports.k = (x) => c.createHash('md5').update(x).digest('hex');") }],
    introduced: ["lib/k.js:3"],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a fix in the pull request",
    branch: [{ "app.js": app.replace("  eval(input);", "  return JSON.parse(input);") }],
    introduced: [],
    fixed: ["app.js:9"],
    suppressed: [],
  },
  {
    name: "identical code pasted above an existing finding",
    branch: [{ "app.js": app.replace("function run(input) {", "function run2(input) {\n  eval(input);\n}\nfunction run(input) {") }],
    introduced: ["app.js:9"],
    fixed: [],
    suppressed: [],
  },
  {
    name: "a deleted file",
    branch: [{ "app.js": null, "index.js": "module.exports = {};\n" }],
    introduced: [],
    fixed: ["app.js:9", "app.js:12"],
    suppressed: [],
  },
  {
    name: "suppressions: a comment counts, a string does not, nor another statement's trailing comment",
    branch: [
      {
        "lib/s.js": lines(
          "const c = require('crypto');",
          "// ax-ignore[js-weak-hash]: ETag only, not a security boundary",
          "exports.e = (b) => c.createHash('md5').update(b).digest('hex');",
          "exports.m = (b) => c.createHash('md5').update(b).digest('hex') + ' ax-ignore: not a comment';",
          "const t = 1; // ax-ignore: about t only",
          "exports.n = (b) => c.createHash('md5').update(b).digest('hex') + t;",
        ),
      },
    ],
    introduced: ["lib/s.js:3", "lib/s.js:4", "lib/s.js:6"],
    fixed: [],
    suppressed: ["lib/s.js:3"],
  },
];

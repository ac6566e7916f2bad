// The matching stages of identity.ts on hand-made findings and line maps (the end-to-end cases,
// with real git and analyzers, are in packages/scan-worker/src/identity.test.ts).
import type { CommitLineMap, FindingLocator } from "@ax/contracts";
import { matchFindings, type Locatable, type PriorLocatable } from "./identity";

const loc = (code: string, scope = "function f", context = "ctx"): FindingLocator => ({ code, scope, context });
const f = (file: string, line: number, locator: FindingLocator | null, rule = "r", fingerprint = `${file}:${line}`): Locatable => ({
  rule_id: rule,
  file,
  start_line: line,
  locator,
  fingerprint,
});
const p = (commit: string | null, x: Locatable): PriorLocatable => ({ ...x, commit });

describe("matchFindings", () => {
  it("follows git's line mapping before any content key, so identical code keeps its own line", () => {
    // Two identical calls in one function with identical context: content alone would pair by order.
    const prior = [p("A", f("a.js", 10, loc("eval(x)"))), p("A", f("a.js", 20, loc("eval(x)")))];
    // Git: line 10 was deleted (hunk -10,1 +9,0), so 20 is now 19.
    const map: CommitLineMap = { from: "A", to: "B", changed: 1, files: { "a.js": { path: "a.js", hunks: [[10, 1, 9, 0]] } } };
    const next = [f("a.js", 19, loc("eval(x)"))];
    expect(matchFindings(prior, next, "B", [map])).toEqual([1]);
  });

  it("does not follow git's alignment of a line into another function with other neighbours", () => {
    // Git kept "line 6" of f3 (its header and body deleted around it) as line 4 of f7, where an
    // identical call was pasted; f3 itself moved to line 14.
    const prior = [p("A", f("a.js", 6, loc("read()", "function f3", "ctx-f3")))];
    const map: CommitLineMap = {
      from: "A",
      to: "B",
      changed: 9,
      files: {
        "a.js": {
          path: "a.js",
          hunks: [
            [4, 2, 3, 0],
            [7, 1, 4, 0],
            [15, 0, 13, 4],
          ],
        },
      },
    };
    const next = [f("a.js", 4, loc("read()", "function f7", "ctx-f7")), f("a.js", 14, loc("read()", "function f3", "ctx-f3"))];
    expect(matchFindings(prior, next, "B", [map])).toEqual([null, 0]);
  });

  it("treats a finding whose line git changed as matched only by content, and not by a line that merely moved into place", () => {
    const prior = [p("A", f("a.js", 5, loc("eval(a)"))), p("A", f("a.js", 8, loc("eval(b)")))];
    // Line 5 changed (-5,1 +5,1): "eval(a)" became "eval(b)"; line 8 is unchanged.
    const map: CommitLineMap = { from: "A", to: "B", changed: 1, files: { "a.js": { path: "a.js", hunks: [[5, 1, 5, 1]] } } };
    const next = [f("a.js", 5, loc("eval(b)")), f("a.js", 8, loc("eval(b)"))];
    // The unchanged line keeps its identity; the changed line's new code is a new finding.
    expect(matchFindings(prior, next, "B", [map])).toEqual([null, 1]);
  });

  it("follows a rename, and a function moved to another file by scope and context", () => {
    const prior = [
      p("A", f("old.js", 3, loc("eval(x)", "function g", "c1"))),
      p("A", f("one.js", 7, loc("exec(y)", "function moved", "c2"))),
    ];
    const map: CommitLineMap = {
      from: "A",
      to: "B",
      changed: 1,
      files: { "old.js": { path: "new.js", hunks: [] }, "one.js": { path: "one.js", hunks: [[5, 5, 4, 0]] } },
    };
    const next = [f("two.js", 12, loc("exec(y)", "function moved", "c2")), f("new.js", 3, loc("eval(x)", "function g", "c1"))];
    expect(matchFindings(prior, next, "B", [map])).toEqual([1, 0]);
  });

  it("follows a short function to another file by its declaration when its borders changed", () => {
    const prior = [p("A", f("a.js", 9, loc("eval(input)", "function f13", "ctx-in-a")))];
    const map: CommitLineMap = { from: "A", to: "B", changed: 1, files: { "a.js": { path: "a.js", hunks: [[8, 3, 7, 0]] } } };
    const next = [f("b.js", 2, loc("eval(input)", "function f13", "ctx-in-b")), f("c.js", 5, loc("eval(input)", "", "ctx-in-b"))];
    expect(matchFindings(prior, next, "B", [map])).toEqual([0, null]);
  });

  it("without a line map, pairs equal keys in line order and falls back to rule and code in the file", () => {
    const prior = [
      p("gone", f("a.js", 4, loc("eval(x)", "function f", "c"))),
      p("gone", f("a.js", 9, loc("eval(x)", "function f", "c"))),
      p("gone", f("a.js", 30, loc("md5()", "function h", "old ctx"))),
    ];
    const next = [
      f("a.js", 40, loc("md5()", "function renamed", "new ctx")),
      f("a.js", 14, loc("eval(x)", "function f", "c")),
      f("a.js", 6, loc("eval(x)", "function f", "c")),
    ];
    expect(matchFindings(prior, next, "B", [])).toEqual([2, 1, 0]);
  });

  it("with a line map, does not pair a deleted line with an identical line added elsewhere in the file", () => {
    const prior = [p("A", f("a.js", 4, loc("eval(x)", "function f", "c1")))];
    const map: CommitLineMap = {
      from: "A",
      to: "B",
      changed: 1,
      files: {
        "a.js": {
          path: "a.js",
          hunks: [
            [4, 1, 3, 0],
            [20, 0, 20, 1],
          ],
        },
      },
    };
    const next = [f("a.js", 20, loc("eval(x)", "function other", "c2"))];
    expect(matchFindings(prior, next, "B", [map])).toEqual([null]);
  });

  it("matches findings stored before locators existed by their old fingerprint", () => {
    const prior = [p(null, f("a.js", 3, null, "r", "legacy-fp"))];
    const next = [f("a.js", 8, loc("eval(x)"), "r", "legacy-fp"), f("a.js", 3, loc("eval(y)"), "r", "other")];
    expect(matchFindings(prior, next, "B", [])).toEqual([0, null]);
  });

  it("never matches across rules", () => {
    const prior = [p("A", f("a.js", 3, loc("x"), "rule-1"))];
    expect(matchFindings(prior, [f("a.js", 3, loc("x"), "rule-2")], "A", [])).toEqual([null]);
  });
});

describe("matchFindings across branches (strict)", () => {
  it("matches another branch's finding only through the line map or code with its context", () => {
    const theirs = [p("F", f("a.js", 6, loc("md5()", "function f5", "their-ctx")))];
    // The same code added to the same function on this branch, between other lines.
    const ours = [f("a.js", 3, loc("md5()", "function f5", "our-ctx"))];
    expect(matchFindings(theirs, ours, "M", [], true)).toEqual([null]);
    expect(matchFindings(theirs, ours, "M", [], false)).toEqual([0]);
    expect(matchFindings(theirs, [f("b.js", 9, loc("md5()", "function f5", "their-ctx"))], "M", [], true)).toEqual([0]);
  });
});

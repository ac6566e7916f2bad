/**
 * The layering check of `npm run lint` (its `lint:layers` script: dependency-cruiser with
 * .dependency-cruiser.cjs) run on the small trees of fixture-tree.ts: every rule must fire on its violation, by name,
 * with a non-zero exit, and a tree that keeps the layering must pass. The script's command and
 * the configuration file are taken from the repository as they are, so a rule that stops
 * firing (a path pattern broken by an edit) fails here.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BROKEN, CLEAN, CONFIG, ROOT, writeTree } from "./fixture-tree";

/** The lint:layers command from package.json: depcruise's arguments, run with the repository's own binary. */
function layersCommand(): string[] {
  const scripts = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const [bin, ...args] = scripts["lint:layers"]!.split(/\s+/);
  expect(bin).toBe("depcruise");
  expect(args).toEqual(expect.arrayContaining(["--config", CONFIG]));
  return args;
}

/** The folders the command cruises: they must exist, even empty. */
function folders(args: string[]): string[] {
  return args.filter((arg, i) => !arg.startsWith("-") && args[i - 1] !== "--config");
}

type Violation = { rule: string; path: string[] };

/** Runs the check in `dir`; its violations as the lint prints them ("error <rule>: a → b → …"). */
function runLayers(dir: string, args: string[]): { status: number | null; violations: Violation[]; output: string } {
  const bin = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  const output = `${run.stdout}${run.stderr}`;
  const violations = output
    .split(/^\s*error /m)
    .slice(1)
    .map((entry) => {
      const [, rule = "", rest = ""] = /^([\w-]+):\s*([\s\S]*?)(?:\n\s*\n|$)/.exec(entry) ?? [];
      return { rule, path: rest.split("→").map((part) => part.trim()) };
    });
  return { status: run.status, violations, output };
}

describe("the layering check (npm run lint:layers)", () => {
  const args = layersCommand();

  it("passes a tree that keeps the layering", () => {
    const result = runLayers(writeTree(CLEAN, folders(args)), args);
    expect(result.violations).toEqual([]);
    expect(result.output).toMatch(/no dependency violations found/);
    expect(result.status).toBe(0);
  });

  it("reports each violation under its rule's name and fails", () => {
    const result = runLayers(writeTree(BROKEN, folders(args)), args);
    const found = (rule: string) => result.violations.filter((v) => v.rule === rule).map((v) => v.path);

    expect(found("no-app-to-app")).toEqual(
      expect.arrayContaining([
        ["apps/api/src/main.ts", "apps/worker/src/run.ts"], // a relative path
        ["apps/cli/src/main.ts", "apps/worker/src/main.ts"], // the @ax name, through the symlink
      ]),
    );
    expect(found("no-package-to-app")).toEqual([["packages/server/src/index.ts", "apps/api/src/main.ts"]]);
    expect(found("no-circular")).toEqual(
      expect.arrayContaining([expect.arrayContaining(["packages/core/src/a.ts", "packages/core/src/b.ts"])]),
    );
    expect(found("no-test-support-in-production")).toEqual(
      expect.arrayContaining([
        ["packages/core/src/uses-test.ts", "packages/core/test/helper.ts"],
        ["packages/core/src/uses-testkit.ts", "packages/testkit/src/index.ts"],
      ]),
    );
    // A test file may use test support, and an app its own modules.
    const sources = result.violations.map((v) => v.path[0]);
    expect(sources).not.toContain("apps/worker/src/run.test.ts");
    expect(sources).not.toContain("apps/worker/src/main.ts");
    expect(result.status).not.toBe(0);
  });
});

/**
 * The dependency diagram of docs/architecture.md (npm run docs:architecture): the committed one
 * matches the imports, and the generator finds its workspaces and edges on a tree of its own,
 * where a package nobody declared anywhere shows up by itself.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { BROKEN, CLEAN, ROOT, workspace, writeTree } from "./fixture-tree";

function diagram(...args: string[]): { status: number | null; output: string } {
  const script = path.join(ROOT, "scripts/architecture-diagram.ts");
  const run = spawnSync(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the architecture diagram", () => {
  it("in docs/architecture.md is up to date with the imports (npm run docs:architecture)", () => {
    const result = diagram("--check");
    expect(result.output).toBe("");
    expect(result.status).toBe(0);
  });

  it("has a node per workspace and an edge per imported workspace, production code only", () => {
    const dir = writeTree({
      ...CLEAN,
      ...workspace("packages", "brand-new", "./src/index.ts"),
      "packages/brand-new/src/index.ts": 'import { shared } from "@ax/core";\nexport const fresh = shared;\n',
    });
    const result = diagram("--print", "--root", dir);
    expect(result.status).toBe(0);
    const lines = result.output.split("\n").map((line) => line.trim());
    expect(lines).toEqual(expect.arrayContaining(['packages_brand_new["packages/brand-new"]', 'apps_api["apps/api"]']));
    const edges = lines.filter((line) => line.includes("-->")).sort();
    // apps/worker's test imports @ax/testkit: not an edge of the diagram.
    expect(edges).toEqual(
      [
        "apps_api --> packages_server",
        "apps_worker --> packages_core",
        "packages_brand_new --> packages_core",
        "packages_server --> packages_core",
        "packages_testkit --> packages_server",
      ].sort(),
    );
  });

  it("draws what the imports say, violations included", () => {
    const result = diagram("--print", "--root", writeTree(BROKEN));
    expect(result.output).toContain("packages_server --> apps_api");
    expect(result.output).toContain("apps_cli --> apps_worker");
  });
});

/**
 * Small workspace trees for the architecture tests: files written into a temporary folder,
 * each workspace linked under node_modules/@ax as npm links the real ones, and the
 * repository's own .dependency-cruiser.cjs copied beside them.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tmpDir } from "@ax/testkit/temp";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CONFIG = ".dependency-cruiser.cjs";

/** Repository path → file text. */
export type Tree = Record<string, string>;

export function workspace(kind: "apps" | "packages", name: string, main: string): Tree {
  return { [`${kind}/${name}/package.json`]: JSON.stringify({ name: `@ax/${name}`, main, exports: { ".": main } }) };
}

/** Writes the tree and links its workspaces; `folders` are made even when empty (the folders a command lists). */
export function writeTree(tree: Tree, folders: string[] = []): string {
  const dir = tmpDir("ax-architecture-");
  fs.copyFileSync(path.join(ROOT, CONFIG), path.join(dir, CONFIG));
  for (const [file, text] of Object.entries(tree)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  fs.mkdirSync(path.join(dir, "node_modules/@ax"), { recursive: true });
  for (const file of Object.keys(tree).filter((f) => /^(apps|packages)\/[^/]+\/package\.json$/.test(f))) {
    const folder = path.dirname(file);
    fs.symlinkSync(path.join("../..", folder), path.join(dir, "node_modules/@ax", path.basename(folder)));
  }
  for (const folder of folders) fs.mkdirSync(path.join(dir, folder), { recursive: true });
  return dir;
}

/** A layering that holds: apps on packages, packages on packages, tests on test support. */
export const CLEAN: Tree = {
  ...workspace("apps", "api", "./src/main.ts"),
  "apps/api/src/main.ts": 'import { serve } from "@ax/server";\nserve();\n',
  ...workspace("apps", "worker", "./src/main.ts"),
  "apps/worker/src/main.ts": 'import { shared } from "@ax/core";\nimport { run } from "./run";\nrun(shared);\n',
  "apps/worker/src/run.ts": "export function run(value: number): number {\n  return value;\n}\n",
  "apps/worker/src/run.test.ts": 'import { helper } from "../test/helper";\nimport { kit } from "@ax/testkit";\nhelper(kit);\n',
  "apps/worker/test/helper.ts": "export function helper(value: number): number {\n  return value;\n}\n",
  ...workspace("packages", "core", "./src/index.ts"),
  "packages/core/src/index.ts": "export const shared = 1;\n",
  ...workspace("packages", "server", "./src/index.ts"),
  "packages/server/src/index.ts": 'import { shared } from "@ax/core";\nexport function serve(): number {\n  return shared;\n}\n',
  ...workspace("packages", "testkit", "./src/index.ts"),
  "packages/testkit/src/index.ts": 'import { serve } from "@ax/server";\nexport const kit = serve();\n',
};

/** Each layering rule broken once, the clean tree's allowed imports kept beside them. */
export const BROKEN: Tree = {
  ...CLEAN,
  ...workspace("apps", "cli", "./src/main.ts"),
  "apps/api/src/main.ts": 'import { serve } from "@ax/server";\nimport "../../worker/src/run";\nserve();\n',
  "apps/cli/src/main.ts": 'import "@ax/worker";\n',
  "packages/server/src/index.ts":
    'import { shared } from "@ax/core";\nimport "@ax/api";\nexport function serve(): number {\n  return shared;\n}\n',
  "packages/core/src/a.ts": 'import { b } from "./b";\nexport const a = () => b();\n',
  "packages/core/src/b.ts": 'import { a } from "./a";\nexport const b = () => a();\n',
  "packages/core/src/uses-test.ts": 'import "../test/helper";\n',
  "packages/core/src/uses-testkit.ts": 'import "@ax/testkit";\n',
  "packages/core/test/helper.ts": "export const helper = 1;\n",
};

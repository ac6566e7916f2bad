#!/usr/bin/env node
// `npm run test:rules`: runs the rule pack's own ast-grep test cases. Plain JS so it needs no
// TypeScript loader; the binary lookup mirrors astGrepBinary() in src/index.ts.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const exe = process.platform === "win32" ? "ast-grep.exe" : "ast-grep";
const platformPackages = {
  "linux-x64": "@ast-grep/cli-linux-x64-gnu",
  "linux-arm64": "@ast-grep/cli-linux-arm64-gnu",
  "darwin-x64": "@ast-grep/cli-darwin-x64",
  "darwin-arm64": "@ast-grep/cli-darwin-arm64",
  "win32-x64": "@ast-grep/cli-win32-x64-msvc",
};

function packageDir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

const candidates = [platformPackages[`${process.platform}-${process.arch}`], "@ast-grep/cli"]
  .filter(Boolean)
  .map(packageDir)
  .filter(Boolean)
  .map((dir) => join(dir, exe));
const binary = candidates.find((file) => existsSync(file));
if (!binary) {
  console.error(`No ast-grep executable found for ${process.platform}-${process.arch}; install @ast-grep/cli.`);
  process.exit(2);
}

const args = ["test", "-c", join(root, "sgconfig.yml"), "--skip-snapshot-tests", ...process.argv.slice(2)];
const result = spawnSync(binary, args, { cwd: root, stdio: "inherit" });
process.exit(result.status ?? 1);

/**
 * Hostile repositories and hostile surroundings. Each test has a control where it matters:
 * the same thing done with plain git shows the attack would work, so the hardened path's
 * passing result means something. The HTTP servers here listen on 127.0.0.1 only.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { cloneRepository } from "./clone";
import { ScanInputError } from "./errors";
import { hardenedGitConfig } from "./git/hardening";
import { git, makeRepo, removeDir, tempDir } from "../test/git-fixtures";

let root: string;
beforeAll(() => (root = tempDir()));
afterAll(() => removeDir(root));

const clone = (gitUri: string, dest: string) =>
  cloneRepository({ gitUri, dest, allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: 50 * 1024 * 1024 });

/** git as an unhardened caller would run it: inheriting this process's environment. */
function plainGit(cwd: string, args: string[], extra: string[] = []) {
  return spawnSync("git", [...extra, ...args], { cwd, env: process.env, encoding: "utf8" });
}

/** A script that records it ran by creating `marker`. */
function evilScript(path: string, marker: string): string {
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n`);
  chmodSync(path, 0o755);
  return path;
}

it("checks a committed symlink to /etc/passwd out as a small plain file holding the link text", async () => {
  const src = makeRepo(root, "symlink-src", { leak: { symlink: "/etc/passwd" }, "docs/dir-link": { symlink: "/etc" } });
  expect(git(src.path, ["ls-files", "-s", "leak"])).toMatch(/^120000 /); // really a symlink in the repo
  const dest = join(root, "symlink-dest");
  await clone(src.url, dest);
  expect(lstatSync(join(dest, "leak")).isSymbolicLink()).toBe(false);
  expect(readFileSync(join(dest, "leak"), "utf8")).toBe("/etc/passwd");
  expect(readFileSync(join(dest, "docs/dir-link"), "utf8")).toBe("/etc");
});

it("does not fetch submodules, even ones pointing at a local path", async () => {
  const sub = makeRepo(root, "sub-src", { "secret.txt": "submodule content\n" });
  const parent = makeRepo(root, "parent-src", { "main.c": "int main(void) { return 0; }\n" });
  git(parent.path, ["submodule", "add", "-q", sub.path, "lib/sub"]);
  git(parent.path, ["commit", "-q", "-m", "add submodule"]);
  const dest = join(root, "parent-dest");
  await clone(parent.url, dest);
  expect(readFileSync(join(dest, ".gitmodules"), "utf8")).toContain(sub.path);
  expect(readdirSync(join(dest, "lib/sub"))).toEqual([]);
});

describe("config and hooks from the worker's surroundings", () => {
  let hooksDir: string;
  const injected = ["GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_KEY_1", "GIT_CONFIG_VALUE_1"];
  const hookMarker = () => join(root, "hook-ran");
  const fsmonitorMarker = () => join(root, "fsmonitor-ran");

  beforeAll(() => {
    hooksDir = join(root, "evil-hooks");
    mkdirSync(hooksDir);
    evilScript(join(hooksDir, "post-checkout"), hookMarker());
    // What a careless image or operator could leave in the worker's environment.
    Object.assign(process.env, {
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_0: "core.hooksPath",
      GIT_CONFIG_VALUE_0: hooksDir,
      GIT_CONFIG_KEY_1: "core.fsmonitor",
      GIT_CONFIG_VALUE_1: evilScript(join(root, "evil-fsmonitor"), fsmonitorMarker()),
    });
  });
  afterAll(() => {
    for (const key of injected) delete process.env[key];
  });
  afterEach(() => {
    removeDir(hookMarker());
    removeDir(fsmonitorMarker());
  });

  it("control: plain git runs the injected post-checkout hook and fsmonitor", () => {
    const src = makeRepo(root, "env-src-control", { "a.txt": "a\n" });
    const dest = join(root, "env-dest-control");
    expect(plainGit(root, ["clone", "-q", src.url, dest]).status).toBe(0);
    expect(existsSync(hookMarker())).toBe(true);
    plainGit(dest, ["status"]);
    expect(existsSync(fsmonitorMarker())).toBe(true);
  });

  it("cloneRepository runs neither: the environment is not inherited", async () => {
    const src = makeRepo(root, "env-src", { "a.txt": "a\n" });
    await clone(src.url, join(root, "env-dest"));
    expect(existsSync(hookMarker())).toBe(false);
    expect(existsSync(fsmonitorMarker())).toBe(false);
  });

  it("the hardening -c flags override injected config even when the environment is inherited", () => {
    const src = makeRepo(root, "flags-src", { "a.txt": "a\n" });
    const dest = join(root, "flags-dest");
    const flags = hardenedGitConfig(true).flatMap((kv) => ["-c", kv]);
    expect(plainGit(root, ["clone", "-q", src.url, dest], flags).status).toBe(0);
    plainGit(dest, ["status"], flags);
    expect(existsSync(hookMarker())).toBe(false);
    expect(existsSync(fsmonitorMarker())).toBe(false);
  });
});

it("git run inside a bare repository buried in the checkout refuses to use it", async () => {
  // A committed directory that looks like a bare repository whose config names a command.
  const src = makeRepo(root, "bare-src", {
    "evil/HEAD": "ref: refs/heads/main\n",
    "evil/config": `[core]\n\tbare = true\n\tfsmonitor = ${join(root, "never")}\n`,
    "evil/objects/info/.keep": "",
    "evil/refs/heads/.keep": "",
  });
  const dest = join(root, "bare-dest");
  await clone(src.url, dest);
  const inside = join(dest, "evil");
  // Control: default git discovers and uses the buried repository.
  expect(plainGit(inside, ["rev-parse", "--git-dir"], ["-c", "safe.bareRepository=all"]).stdout.trim()).toBe(".");
  const hardened = plainGit(
    inside,
    ["rev-parse", "--git-dir"],
    hardenedGitConfig(false).flatMap((kv) => ["-c", kv]),
  );
  expect(hardened.status).not.toBe(0);
  expect(hardened.stderr).toMatch(/cannot use bare repository/);
});

describe("redirects and protocols", () => {
  const servers: Server[] = [];
  const listen = async (handler: Parameters<typeof createServer>[1]): Promise<number> => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it("does not follow a redirect to another host (here: another port)", async () => {
    let targetHits = 0;
    const target = await listen((_req, res) => {
      targetHits += 1;
      res.writeHead(404).end();
    });
    const redirector = await listen((req, res) => {
      res.writeHead(302, { Location: `http://127.0.0.1:${target}${req.url ?? "/"}` }).end();
    });
    const dest = join(root, "redirect-dest");
    const err = await cloneRepository({
      gitUri: `http://127.0.0.1:${redirector}/org/repo.git`,
      dest,
      allowInsecure: true,
      timeoutMs: 10_000,
      maxRepoBytes: 1024 * 1024,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toMatch(/redirects are not followed/);
    expect(targetHits).toBe(0);
    expect(existsSync(dest)).toBe(false);
  });

  it("the strict -c set makes git itself refuse file:// and local paths, not only our URL check", () => {
    const src = makeRepo(root, "proto-src", { "a.txt": "a\n" });
    const flags = hardenedGitConfig(false).flatMap((kv) => ["-c", kv]);
    for (const [i, url] of [src.url, src.path].entries()) {
      const out = plainGit(root, ["clone", "--no-local", "--", url, join(root, `proto-dest-${i}`)], flags);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(/transport 'file' not allowed/);
    }
  });
});

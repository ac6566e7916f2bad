/**
 * Builders for the hostile repositories of hostile-repos.test.ts. Trees that a working
 * directory cannot hold (names with newlines or non-UTF-8 bytes, paths longer than the
 * filesystem allows, a symlink and a directory under one name, a `..` entry) and trees too
 * big to write file by file (100,000 files, a 1 GiB blob) go straight into the object
 * database with git fast-import, git mktree or a hand-made loose object.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, mkdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join, relative, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createDeflate } from "node:zlib";

const GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/nonexistent",
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Mallory",
  GIT_AUTHOR_EMAIL: "mallory@example.invalid",
  GIT_COMMITTER_NAME: "Mallory",
  GIT_COMMITTER_EMAIL: "mallory@example.invalid",
};

/** The test's own git (building repositories): isolated from any user or system config. */
export function gitIn(cwd: string, args: string[], input?: Buffer | string): string {
  return execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: GIT_ENV,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...(input === undefined ? { stdio: ["ignore", "pipe", "pipe"] as const } : { input }),
  });
}

export function initRepo(path: string): { path: string; url: string } {
  mkdirSync(path, { recursive: true });
  gitIn(path, ["init", "-q"]);
  return { path, url: `file://${path}` };
}

export interface TreeEntry {
  /** Repository path; a Buffer for names that are not UTF-8. */
  path: string | Buffer;
  content: string | Buffer;
  mode?: "100644" | "100755" | "120000";
}

/** An object already in the repository: a blob, or a commit for a gitlink (mode 160000). */
export interface ObjectEntry {
  path: string;
  id: string;
  mode?: "100644" | "160000";
}

/** A fast-import path, C-quoted so newlines, quotes and any byte survive. */
function quotePath(path: Buffer): string {
  let out = '"';
  for (const byte of path) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += "\\\\";
    else if (byte === 0x0a) out += "\\n";
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

/**
 * Replaces main with one commit holding exactly `entries` (identical contents share a blob,
 * so 100,000 files cost one blob plus the trees).
 */
export function fastImportCommit(repo: string, entries: readonly (TreeEntry | ObjectEntry)[], message = "hostile tree"): string {
  const parts: Buffer[] = [];
  const marks = new Map<string, number>();
  const dataref = (content: string | Buffer): string => {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const key = createHash("sha1").update(bytes).digest("hex");
    let mark = marks.get(key);
    if (mark === undefined) {
      mark = marks.size + 1;
      marks.set(key, mark);
      parts.push(Buffer.from(`blob\nmark :${mark}\ndata ${bytes.length}\n`), bytes, Buffer.from("\n"));
    }
    return `:${mark}`;
  };
  const lines = entries.map((e) => {
    const ref = "id" in e ? e.id : dataref(e.content);
    const mode = e.mode ?? "100644";
    return `M ${mode} ${ref} ${quotePath(Buffer.isBuffer(e.path) ? e.path : Buffer.from(e.path))}\n`;
  });
  const msg = Buffer.from(message);
  parts.push(
    Buffer.from(`commit refs/heads/main\ncommitter Mallory <mallory@example.invalid> 1700000000 +0000\ndata ${msg.length}\n`),
    msg,
    Buffer.from("\n"),
  );
  parts.push(Buffer.from(lines.join("")), Buffer.from("\n"));
  const run = spawnSync("git", ["fast-import", "--quiet", "--force"], {
    cwd: repo,
    env: GIT_ENV,
    input: Buffer.concat(parts),
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`git fast-import failed: ${run.stderr.toString()}`);
  return gitIn(repo, ["rev-parse", "refs/heads/main"]).trim();
}

/**
 * Points main at a commit whose root tree is written with `git mktree` from raw lines
 * ("<mode> <type> <id>\t<name>"): for trees fast-import would normalise away, such as a
 * symlink and a directory under one name, or an entry named "..".
 */
export function mktreeCommit(repo: string, rootLines: string[]): string {
  const tree = gitIn(repo, ["mktree"], `${rootLines.join("\n")}\n`).trim();
  const commit = gitIn(repo, ["commit-tree", "-m", "hostile tree", tree]).trim();
  gitIn(repo, ["update-ref", "refs/heads/main", commit]);
  return commit;
}

export function hashBlob(repo: string, content: string): string {
  return gitIn(repo, ["hash-object", "-w", "--stdin"], content).trim();
}

/**
 * A blob of `size` zero bytes, written as a loose object by this process: hashing with
 * OpenSSL and deflating at level 1 takes ~1.5 s for 1 GiB where `git hash-object` (SHA-1
 * with collision detection, default level) takes several times that. Streams, never holds it.
 */
export async function writeZeroBlob(repo: string, size: number): Promise<string> {
  const slice = Buffer.alloc(Math.min(size, 16 * 1024 * 1024));
  function* stream(): Generator<Buffer> {
    yield Buffer.from(`blob ${size}\0`);
    for (let left = size; left > 0; left -= slice.length) yield left >= slice.length ? slice : slice.subarray(0, left);
  }
  const hash = createHash("sha1");
  for (const chunk of stream()) hash.update(chunk);
  const id = hash.digest("hex");
  const dir = join(repo, ".git", "objects", id.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  await pipeline(Readable.from(stream()), createDeflate({ level: 1 }), createWriteStream(join(dir, id.slice(2))));
  return id;
}

/** Every path under `root` (relative, POSIX) with its type, without following links. */
export async function walk(root: string): Promise<Map<string, "file" | "dir" | "symlink" | "other">> {
  const found = new Map<string, "file" | "dir" | "symlink" | "other">();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const rel = relative(root, full).split(sep).join("/");
      const kind = entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "dir" : entry.isFile() ? "file" : "other";
      found.set(rel, kind);
      if (kind === "dir") pending.push(full);
    }
  }
  return found;
}

/**
 * A TCP server on 127.0.0.1 that counts connections and drops them at once. If a refusal
 * came after git connected, the count would show it.
 */
export async function connectionRecorder(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("recorder has no port");
  return {
    port: address.port,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A name other than localhost that /etc/hosts maps to a 127.x address (the machine's own
 * name, usually), or null. Read from the file itself so finding it sends no DNS query.
 */
export function loopbackHostsName(hostsText: string): string | null {
  for (const line of hostsText.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !/^127\.\d+\.\d+\.\d+$/.test(address)) continue;
    const name = names.find((n) => /^[a-z][a-z0-9-]*$/i.test(n) && !/localhost|^ip6-/i.test(n));
    if (name) return name.toLowerCase();
  }
  return null;
}

/** Removes a tree of any depth (Node's rm gives up past PATH_MAX; coreutils rm does not). */
export function removeTree(path: string): void {
  spawnSync("rm", ["-rf", "--", path], { stdio: "ignore" });
}

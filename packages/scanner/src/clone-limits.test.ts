/**
 * Size and time limits. The "slow source" is a loopback HTTP server that accepts the
 * connection and never answers: the only network traffic in this file, and it stays on
 * 127.0.0.1.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { cloneRepository } from "./clone";
import { ScanAbortedError, ScanInputError, ScanTimeoutError } from "./errors";
import { receivedBytes } from "./git/clone-progress";
import { makeRepo, removeDir, tempDir } from "../test/git-fixtures";
import { withWorkspace } from "./workspace";

const MIB = 1024 * 1024;
let root: string;
let server: Server;
const sockets = new Set<Socket>();
let hangingUrl: string;

beforeAll(async () => {
  root = tempDir();
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  hangingUrl = `http://127.0.0.1:${address.port}/org/repo.git`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
  removeDir(root);
});

describe("size limit", () => {
  it("refuses a repository with a 3 MiB incompressible file under a 1 MiB limit", async () => {
    const src = makeRepo(root, "big-random", { "blob.bin": randomBytes(3 * MIB) });
    const dest = join(root, "big-random-dest");
    const err = await cloneRepository({ gitUri: src.url, dest, allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: MIB }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toBe("Repository exceeds the size limit of 1 MiB.");
    expect(existsSync(dest)).toBe(false);
  });

  it("measures the checkout, not the compressed transfer (3 MiB of zeros packs to a few KiB)", async () => {
    const src = makeRepo(root, "big-zeros", { "zeros.bin": Buffer.alloc(3 * MIB) });
    const err = await cloneRepository({
      gitUri: src.url,
      dest: join(root, "big-zeros-dest"),
      allowInsecure: true,
      timeoutMs: 30_000,
      maxRepoBytes: MIB,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanInputError);
    expect((err as Error).message).toMatch(/size limit of 1 MiB/);
  });

  it("accepts the same repository under a larger limit", async () => {
    const src = makeRepo(root, "small", { "zeros.bin": Buffer.alloc(3 * MIB) });
    await expect(
      cloneRepository({ gitUri: src.url, dest: join(root, "small-dest"), allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: 10 * MIB }),
    ).resolves.toMatchObject({ commit: src.head });
  });

  it("reads the received-bytes figure from git's progress output", () => {
    expect(receivedBytes("Receiving objects:  45% (9/20), 1.50 MiB | 2.00 MiB/s\r")).toBe(1.5 * MIB);
    expect(
      receivedBytes("Receiving objects:  10% (1/10), 512 bytes | 1 KiB/s\rReceiving objects:  50% (5/10), 20.00 KiB | 1 KiB/s\r"),
    ).toBe(20 * 1024);
    expect(receivedBytes("Resolving deltas: 100% (3/3), done.")).toBeNull();
  });
});

describe("time limits and cancellation", () => {
  it("times out against a source that never answers, promptly, and the workspace is removed", async () => {
    let workspace = "";
    const started = Date.now();
    const err = await withWorkspace(root, async (dir) => {
      workspace = dir;
      return cloneRepository({ gitUri: hangingUrl, dest: join(dir, "repo"), allowInsecure: true, timeoutMs: 500, maxRepoBytes: MIB });
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanTimeoutError);
    expect((err as Error).message).toMatch(/took longer than the limit of 500 ms/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(workspace).not.toBe("");
    expect(existsSync(workspace)).toBe(false);
  });

  it("stops when the caller aborts mid-clone", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const dest = join(root, "aborted-dest");
    const err = await cloneRepository({
      gitUri: hangingUrl,
      dest,
      allowInsecure: true,
      timeoutMs: 30_000,
      maxRepoBytes: MIB,
      signal: controller.signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScanAbortedError);
    expect((err as Error).name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(existsSync(dest)).toBe(false);
  });

  it("does not start when the signal has already fired", async () => {
    const dest = join(root, "pre-aborted-dest");
    await expect(
      cloneRepository({ gitUri: hangingUrl, dest, allowInsecure: true, timeoutMs: 30_000, maxRepoBytes: MIB, signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(ScanAbortedError);
    expect(existsSync(dest)).toBe(false);
  });
});

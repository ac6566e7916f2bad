/**
 * For `ax` suites: the real API over HTTP on 127.0.0.1 (its own PostgreSQL database and Redis
 * queue prefix, a real BullMQ worker in this process) and the real `ax` binary run as a child
 * process against it, with HOME in a temporary directory.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import type { Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tmpDir } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The API suites' source files with known findings (vulnerable.js, safe.py…). */
export const FIXTURES = path.join(ROOT, "packages/api-server/test/fixtures");
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

export interface AxResult {
  code: number | null;
  out: string;
  err: string;
}

export interface CliHarness {
  api: ApiHarness;
  url: string;
  /** Runs `ax` with HOME = `home` (a fresh temporary directory unless given), AX_URL and AX_TOKEN set unless overridden (undefined removes one). */
  ax(
    args: string[],
    opts?: { env?: Record<string, string | undefined>; input?: string; home?: string; onOut?: (chunk: string) => void },
  ): Promise<AxResult>;
  close(): Promise<void>;
}

/** Spawned, never spawnSync: the API answering the child runs on this process's event loop. */
export function runAx(
  args: string[],
  env: Record<string, string | undefined>,
  input = "",
  onOut?: (chunk: string) => void,
): Promise<AxResult> {
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
    const child = spawn(process.execPath, ["apps/cli/bin/ax.js", ...args], { cwd: ROOT, env: clean, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      onOut?.(d.toString());
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

export async function startCliHarness(opts: { env?: Record<string, string>; worker?: boolean } = {}): Promise<CliHarness> {
  const api = await createApiHarness({ worker: opts.worker ?? true, env: { ALLOW_INSECURE_GIT_URLS: "true", ...opts.env } });
  const server: Server = api.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    api,
    url,
    ax: (args, opts = {}) =>
      runAx(
        args,
        {
          PATH: process.env.PATH,
          HOME: opts.home ?? tmpDir("ax-home-"),
          AX_URL: url,
          AX_TOKEN: api.tenant.token,
          LOG_LEVEL: "error",
          ...opts.env,
        },
        opts.input,
        opts.onOut,
      ),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api.close();
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

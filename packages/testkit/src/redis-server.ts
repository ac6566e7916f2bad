/**
 * A redis-server of a test run's own on a spare loopback port, with nothing persisted (no RDB
 * snapshots, no append-only file) and its working folder and log in a temporary folder that
 * stop() removes. The suite uses one when no Redis answers on the usual port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, portAnswers } from "./ports";
import { requireRedisServer } from "./tools";

export interface PrivateRedisOptions {
  prefix?: string;
  port?: number;
}

export class PrivateRedisServer {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly proc: ChildProcess,
  ) {}

  static async start(opts: PrivateRedisOptions = {}): Promise<PrivateRedisServer> {
    const binary = requireRedisServer();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix ?? "ax-redis-"));
    const port = opts.port ?? (await freePort());
    const log = path.join(dir, "redis.log");
    const proc = spawn(
      binary,
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", log],
      { stdio: "ignore" },
    );
    // The test run may end without stop() (a crash): the server must not keep it alive.
    proc.unref();
    const server = new PrivateRedisServer(dir, port, proc);
    const deadline = Date.now() + 10_000;
    while (!(await portAnswers(port, "127.0.0.1", 200))) {
      if (proc.exitCode !== null || proc.signalCode !== null || Date.now() > deadline) {
        const tail = fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").slice(-3).join(" | ") : "";
        server.stopSync();
        throw new Error(`redis-server did not start on 127.0.0.1:${port}${tail ? `: ${tail}` : ""}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** SIGTERM (nothing to save, so it exits at once), then the folder. */
  async stop(): Promise<void> {
    const p = this.proc;
    if (p.exitCode === null && p.signalCode === null) {
      const exited = new Promise((resolve) => p.once("exit", resolve));
      p.kill("SIGTERM");
      const timer = setTimeout(() => p.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  /** For a process that is exiting: SIGKILL and the folder, without waiting on promises. */
  stopSync(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * A redis-server of the test's own on a spare loopback port (the shared one on 6379 serves
 * every other suite and is never touched). `persistent` keeps an append-only file fsynced on
 * every write, so a SIGKILL loses nothing; without it a restart comes back empty.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { tmpDir, waitFor } from "@ax/testkit";
import { freePort, portOpen } from "./processes";

export class PrivateRedis {
  private proc: ChildProcess | undefined;
  private readonly dir = tmpDir("ax-reliability-redis-");
  persistent = false;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence = this.persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"];
    const proc = spawn(
      "redis-server",
      ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--dir", this.dir, ...persistence],
      { stdio: "ignore" },
    );
    this.proc = proc;
    await waitFor(async () => proc.exitCode === null && (await portOpen(this.port)), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: "redis-server to listen",
    });
  }

  /** SIGKILL: a crash, or the host going away. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    p.kill("SIGKILL");
    await new Promise((resolve) => p.once("exit", resolve));
  }

  /** Empties the data directory, so that the next start begins with nothing. */
  wipe(): void {
    for (const f of fs.readdirSync(this.dir)) fs.rmSync(`${this.dir}/${f}`, { recursive: true, force: true });
  }

  async destroy(): Promise<void> {
    await this.kill();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A PostgreSQL 15 cluster of the test's own (initdb into a temporary directory, trust auth,
 * 127.0.0.1 and a spare port), so that it can be stopped and started: the shared server on
 * 5432 serves every other suite and is never touched. PostgreSQL refuses to run as root, so
 * under root the binaries run as the `postgres` OS user. Every command is asynchronous: the
 * test process also hosts the API, which must keep answering while the server is down.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./processes";

const run = promisify(execFile);
const BIN = process.env.AX_PG_BIN ?? "/usr/lib/postgresql/15/bin";

export type StopMode = "fast" | "immediate";

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly asUser: string | null,
  ) {}

  static async create(): Promise<PrivatePostgres> {
    if (!fs.existsSync(path.join(BIN, "initdb"))) throw new Error(`PostgreSQL server binaries not found in ${BIN} (set AX_PG_BIN)`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ax-reliability-pg-"));
    const asUser = process.getuid?.() === 0 ? "postgres" : null;
    if (asUser) {
      const { stdout } = await run("id", ["-u", asUser]);
      const { stdout: gid } = await run("id", ["-g", asUser]);
      fs.chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    }
    const pg = new PrivatePostgres(dir, await freePort(), asUser);
    await pg.exec("initdb", ["-D", pg.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
    return pg;
  }

  get data(): string {
    return path.join(this.dir, "data");
  }

  /** The admin URL; the test uses the cluster's `postgres` database directly. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const opts = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c max_connections=100`;
    await this.exec("pg_ctl", ["-D", this.data, "-l", path.join(this.dir, "server.log"), "-o", opts, "-w", "-t", "60", "start"]);
  }

  /** fast: sessions are terminated and a checkpoint is written; immediate: like a crash (recovery on start). */
  async stop(mode: StopMode): Promise<void> {
    await this.exec("pg_ctl", ["-D", this.data, "-m", mode, "-w", "-t", "60", "stop"]);
  }

  async destroy(): Promise<void> {
    if (fs.existsSync(path.join(this.data, "postmaster.pid"))) await this.stop("immediate").catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private async exec(bin: string, args: string[]): Promise<void> {
    const [cmd, argv] = this.asUser ? ["runuser", ["-u", this.asUser, "--", path.join(BIN, bin), ...args]] : [path.join(BIN, bin), args];
    try {
      await run(cmd, argv, { cwd: this.dir, timeout: 90_000 });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`${bin} failed: ${e.stderr?.trim() || e.message}`);
    }
  }
}

/**
 * A PostgreSQL cluster of a test run's own: initdb into a temporary folder (trust auth, the
 * unix socket in that folder too), a server on 127.0.0.1 and a spare port, and a stop that
 * leaves nothing behind. The suite uses one when no server answers on the usual port; the
 * reliability tier uses one it can stop and start under load. PostgreSQL refuses to run as
 * root, so under root the programs run as the `postgres` OS user. Every command is
 * asynchronous: a test process may host an API that must keep answering meanwhile.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./ports";
import { MissingToolError, requirePgBin } from "./tools";

const run = promisify(execFile);

export type StopMode = "fast" | "immediate";

export interface PrivatePostgresOptions {
  /** Prefix of the temporary folder under the system's temp directory. */
  prefix?: string;
  port?: number;
}

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly bin: string,
    private readonly asUser: string | null,
  ) {}

  /** initdb only; start() runs the server. */
  static async create(opts: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
    const bin = requirePgBin();
    const asUser = process.getuid?.() === 0 ? "postgres" : null;
    let owner: { uid: number; gid: number } | null = null;
    if (asUser) {
      try {
        const { stdout: uid } = await run("id", ["-u", asUser]);
        const { stdout: gid } = await run("id", ["-g", asUser]);
        owner = { uid: Number(uid.trim()), gid: Number(gid.trim()) };
      } catch {
        throw new MissingToolError(
          "PostgreSQL will not run as root and there is no `postgres` user to run it as: install the Debian package postgresql (it creates one), or run the tests as another user.",
        );
      }
    }
    const dir = fs.mkdtempSync(path.join(await baseDir(asUser), opts.prefix ?? "ax-pg-"));
    try {
      if (owner) fs.chownSync(dir, owner.uid, owner.gid);
      const pg = new PrivatePostgres(dir, opts.port ?? (await freePort()), bin, asUser);
      await pg.exec("initdb", ["-D", pg.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"]);
      return pg;
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get data(): string {
    return path.join(this.dir, "data");
  }

  /** The admin URL: the `postgres` superuser on the `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    // Throwaway data: no fsync, and the socket beside it rather than in /var/run/postgresql.
    const opts = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c fsync=off -c max_connections=100`;
    await this.exec("pg_ctl", ["-D", this.data, "-l", path.join(this.dir, "server.log"), "-o", opts, "-w", "-t", "60", "start"]);
  }

  /** fast: sessions are terminated and a checkpoint is written; immediate: like a crash (recovery on start). */
  async stop(mode: StopMode): Promise<void> {
    await this.exec("pg_ctl", ["-D", this.data, "-m", mode, "-w", "-t", "60", "stop"]);
  }

  get running(): boolean {
    return fs.existsSync(path.join(this.data, "postmaster.pid"));
  }

  /** Stops the server if it runs and removes the folder. */
  async destroy(): Promise<void> {
    if (this.running) await this.stop("fast").catch(() => this.stop("immediate").catch(() => undefined));
    fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * For a process that is exiting and can no longer wait on promises: SIGQUIT to the
   * postmaster (an immediate stop), a short wait for it to go, then the folder.
   */
  destroySync(): void {
    const pid = this.postmasterPid();
    if (pid) {
      try {
        process.kill(pid, "SIGQUIT");
        for (let i = 0; i < 100 && alive(pid); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      } catch {
        // Already gone.
      }
    }
    try {
      fs.rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      execFileSync("rm", ["-rf", "--", this.dir], { stdio: "ignore" });
    }
  }

  private postmasterPid(): number | null {
    try {
      const pid = Number(fs.readFileSync(path.join(this.data, "postmaster.pid"), "utf8").split("\n")[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  private async exec(program: string, args: string[]): Promise<void> {
    const file = path.join(this.bin, program);
    const [cmd, argv] = this.asUser ? ["runuser", ["-u", this.asUser, "--", file, ...args]] : [file, args];
    try {
      await run(cmd, argv, { cwd: this.dir, timeout: 90_000 });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`${program} failed: ${e.stderr?.trim() || e.message}`);
    }
  }
}

/**
 * The system's temp directory, unless the programs run as another user who cannot enter it
 * (root with a private TMPDIR): then /tmp, which every user can.
 */
async function baseDir(asUser: string | null): Promise<string> {
  const base = os.tmpdir();
  if (!asUser) return base;
  try {
    await run("runuser", ["-u", asUser, "--", "test", "-x", base]);
    return base;
  } catch {
    return "/tmp";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

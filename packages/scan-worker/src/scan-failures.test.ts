/**
 * Issue 17, through the real job handler (real PostgreSQL, real git, the worker's own logger
 * with a capturing stream beside its format): a failure caused by the repository ends the scan
 * at once with one plain sentence; a failure that is worth a retry is retried and only at the
 * end called internal; and neither logs git's progress output nor kilobytes of anything.
 *
 * Repositories are served by file:// and, for a transfer cut short, by `git http-backend`
 * behind an HTTP server on 127.0.0.1 that closes the connection part-way through the pack.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import winston from "winston";
import { createScan, findOrCreateProject } from "@ax/db";
import { createLogger } from "@ax/logger";
import { createTestStack, freePort, makeGitRepo, tmpDir, type TestStack } from "@ax/testkit";
import { PermanentScanError, processScan } from "./process-scan";

let stack: TestStack;
const lines: string[] = [];
const logger = createLogger({ level: "debug", format: "json" });
// The worker's format (redaction, JSON) as in production; only where the lines go is the test's.
logger.clear().add(
  new winston.transports.Stream({
    stream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
        done();
      },
    }),
  }),
);

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());
beforeEach(() => {
  lines.length = 0;
});

const deps = () => ({ db: stack.handle.db, config: stack.config, logger });

async function newScan(gitUri: string) {
  const db = stack.handle.db;
  const t = stack.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: gitUri, name: "p" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri,
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  return { scan, data: { scan_id: scan.id, organization_id: scan.organization_id } };
}

const row = (id: string) => stack.handle.db.selectFrom("scans").select(["state", "error"]).where("id", "=", id).executeTakeFirstOrThrow();

/** 300 files of random text: a pack of about 600 KiB, and a page of progress to print. */
function bigRepo(dir?: string): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`src/f${i}.txt`] = randomBytes(2048).toString("base64");
  return makeGitRepo(files, dir === undefined ? {} : { dir });
}

/** What was logged holds no git progress, no server text, and no line is long. */
function expectQuietLogs(): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).not.toMatch(/Counting objects|Compressing objects|Receiving objects|remote:/);
    expect(line.length).toBeLessThan(1_000);
  }
}

describe("a repository with a missing object", () => {
  it("fails on the first attempt with one plain sentence, and logs no git output", async () => {
    const repo = bigRepo();
    const blob = execFileSync("git", ["rev-parse", "HEAD:src/f7.txt"], { cwd: repo, encoding: "utf8" }).trim();
    fs.rmSync(path.join(repo, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const { scan, data } = await newScan(repo);

    await expect(processScan(deps(), data, { attempt: 1, maxAttempts: 3 })).rejects.toBeInstanceOf(PermanentScanError);
    const { state, error } = await row(scan.id);
    expect(state).toBe("failed");
    expect(error).toBe(
      "The repository could not be fetched: the server's copy is missing objects or has corrupt ones (its owner can check it with `git fsck`).",
    );
    expect(error).not.toMatch(/internal error|attempt/);
    expectQuietLogs();
    expect(lines.filter((l) => l.includes("scan failed"))).toHaveLength(1);
    expect(lines.some((l) => l.includes("scan attempt failed"))).toBe(false);
  });

  it("a loopback port nobody listens on fails at once too", async () => {
    const { scan, data } = await newScan(`http://127.0.0.1:${await freePort()}/o/r.git`);
    await expect(processScan(deps(), data, { attempt: 1, maxAttempts: 3 })).rejects.toBeInstanceOf(PermanentScanError);
    expect(await row(scan.id)).toEqual({
      state: "failed",
      error: "The repository's host could not be reached (the connection was refused or timed out).",
    });
    expectQuietLogs();
  });
});

describe("a transfer cut short (worth a retry)", () => {
  let server: Server;
  let port = 0;
  /** The directory http-backend serves: this suite's own, holding the one repository "r". */
  let repoRoot = "";
  /** The part of each pack response sent before the connection is closed. */
  const sent: Buffer[] = [];

  beforeAll(async () => {
    repoRoot = tmpDir("ax-scan-failures-");
    fs.mkdirSync(path.join(repoRoot, "r"));
    bigRepo(path.join(repoRoot, "r"));
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const cgi = spawn("git", ["http-backend"], {
        env: {
          PATH: process.env.PATH ?? "",
          GIT_PROJECT_ROOT: repoRoot,
          GIT_HTTP_EXPORT_ALL: "1",
          GIT_CONFIG_NOSYSTEM: "1",
          HOME: repoRoot,
          REQUEST_METHOD: req.method ?? "GET",
          PATH_INFO: decodeURIComponent(url.pathname),
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: req.headers["content-type"] ?? "",
          REMOTE_ADDR: "127.0.0.1",
          ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) } : {}),
          ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
        },
        stdio: ["pipe", "pipe", "ignore"],
      });
      req.pipe(cgi.stdin);
      const packResponse = req.method === "POST" && url.pathname.endsWith("/git-upload-pack");
      let head = Buffer.alloc(0);
      let bodyBytes = 0;
      cgi.stdout.on("data", (chunk: Buffer) => {
        if (res.destroyed) return;
        if (!res.headersSent) {
          head = Buffer.concat([head, chunk]);
          const end = head.indexOf("\r\n\r\n");
          if (end === -1) return;
          for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
            const [name, ...value] = line.split(":");
            if (name?.toLowerCase() === "status") res.statusCode = Number.parseInt(value.join(":").trim(), 10);
            else if (name) res.setHeader(name, value.join(":").trim());
          }
          res.flushHeaders();
          chunk = head.subarray(end + 4);
        }
        if (packResponse) {
          sent.push(chunk);
          bodyBytes += chunk.length;
          res.write(chunk);
          // Past the progress and into the pack: the connection drops.
          if (bodyBytes > 100_000) {
            cgi.kill();
            res.destroy();
          }
          return;
        }
        res.write(chunk);
      });
      cgi.stdout.on("end", () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("is retried, logged as a short summary without git's progress, and called internal only after the last attempt", async () => {
    const { scan, data } = await newScan(`http://127.0.0.1:${port}/r/.git`);

    expect(await processScan(deps(), data, { attempt: 1, maxAttempts: 3 })).toBe("retry");
    // The control: the server did send git's progress before the pack, and it was dropped.
    expect(Buffer.concat(sent).toString("latin1")).toMatch(/Counting objects/);
    expectQuietLogs();
    const failed = lines.filter((l) => l.includes("scan attempt failed"));
    expect(failed).toHaveLength(1);
    const logged = JSON.parse(failed[0]!) as { level: string; error: { name: string; message: string } };
    expect(logged.level).toBe("error");
    expect(logged.error.message.length).toBeGreaterThan(0);
    expect(logged.error.message.length).toBeLessThanOrEqual(300);
    expect((await row(scan.id)).state).toBe("queued");

    await expect(processScan(deps(), data, { attempt: 3, maxAttempts: 3 })).rejects.toBeInstanceOf(PermanentScanError);
    expect((await row(scan.id)).error).toBe(`Scan failed after 3 attempt(s): an internal error occurred. Reference: ${scan.id}.`);
    expectQuietLogs();
  });
});

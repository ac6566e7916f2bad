/**
 * Hostile git_uri values through the real API (real PostgreSQL, real Redis, real worker where
 * noted) under the production URL policy, ALLOW_INSECURE_GIT_URLS=false. Each refusal must be
 * a 400 that names the problem without echoing the value, and leave no scan row, no project
 * row and no job behind.
 *
 * "Before any connection": values naming a public host go only to a harness without a worker,
 * so even a wrongly accepted one could only become a job nobody runs. The harness with a worker
 * only ever sees loopback targets (literals, and a name /etc/hosts maps to 127.x), and a TCP
 * server there counts connections. The API does not resolve names: a name that resolves to an
 * internal address is accepted and then refused by the worker at name resolution, shown here
 * end to end with the /etc/hosts name and in packages/scanner/src/hostile-repos.test.ts with an
 * injected resolver giving every kind of internal answer.
 *
 * The redirect case needs ALLOW_INSECURE_GIT_URLS=true (third harness): the servers are plain
 * http on 127.0.0.1, which the production policy refuses at validation before a redirect could
 * matter, and tests have no TLS certificate for a public name. Redirect handling in the worker
 * (http.followRedirects=false and its error mapping) does not depend on the scheme.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from "node:net";
import path from "node:path";
import request from "supertest";
import { makeGitRepo, tmpDir, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const PRIVATE = /must not point at a private, loopback or link-local address/;
const LOCAL = /must not point at a local or internal host/;
const WHITESPACE = /must not contain whitespace or control characters/;
const HTTPS_ONLY = /must use https/;
const SCP = /scp-style and scheme-less addresses are not allowed/;

/** A test title for a value: escaped, so controls and invisible characters show, and short. */
function shown(value: string): string {
  const escaped = JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return escaped.length > 90 ? `${escaped.slice(0, 60)}…" (${value.length} characters)` : escaped;
}

/** Hostile values tried, for the one-line summary (docs/reliability.md quotes the figure). */
const tried = new Set<string>();

afterAll(() => {
  process.stdout.write(`hostile-uri: ${tried.size} hostile git_uri/branch values tried through the API\n`);
});

async function rowsAndJobs(h: ApiHarness): Promise<{ scans: number; projects: number; jobs: number }> {
  const db = h.deps.db;
  const count = async (table: "scans" | "projects") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const jobs = Object.values(await h.deps.queue.queue("scans").getJobCounts()).reduce((a, b) => a + b, 0);
  return { scans: await count("scans"), projects: await count("projects"), jobs };
}

/** POSTs the value and checks the refusal: 400, the reason, no echo, nothing stored or queued. */
async function expectRefused(h: ApiHarness, body: Record<string, unknown>, reason: RegExp): Promise<void> {
  const before = await rowsAndJobs(h);
  const res = await request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send(body);
  expect({ status: res.status, message: res.body.message }).toEqual({ status: 400, message: expect.stringMatching(reason) });
  const message = String(res.body.message);
  for (const value of Object.values(body)) {
    if (typeof value === "string" && value.trim().length > 3) expect(message).not.toContain(value.trim());
  }
  expect(message).not.toMatch(/touch|pass@|evil/);
  expect(await rowsAndJobs(h)).toEqual(before);
}

async function scanState(h: ApiHarness, scanId: string): Promise<{ state: string; error: string | null }> {
  return waitFor(
    async () => {
      const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", h.tenant.token);
      return ["completed", "failed", "cancelled"].includes(r.body.state) ? (r.body as { state: string; error: string | null }) : undefined;
    },
    { timeoutMs: 60_000, what: `scan ${scanId} to finish` },
  );
}

/** A name other than localhost that /etc/hosts maps to 127.x, read from the file (no DNS query). */
function loopbackHostsName(): string | null {
  const text = fs.existsSync("/etc/hosts") ? fs.readFileSync("/etc/hosts", "utf8") : "";
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !/^127\.\d+\.\d+\.\d+$/.test(address)) continue;
    const name = names.find((n) => /^[a-z][a-z0-9-]*$/i.test(n) && !/localhost|^ip6-/i.test(n));
    if (name) return name.toLowerCase();
  }
  return null;
}

describe("production policy: refused at validation", () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await createApiHarness({ env: { ALLOW_INSECURE_GIT_URLS: "false" } });
    expect(h.deps.config.scan.allowInsecureGitUrls).toBe(false);
  });
  afterAll(() => h.close());

  const REFUSED: [string, RegExp][] = [
    // Transport helpers, local paths, scp-style and option injection.
    ["ext::sh -c touch% /tmp/x", /transport helpers/],
    ["fd::17", /transport helpers/],
    ["file:///etc", HTTPS_ONLY],
    ["/etc", /Local paths are not allowed/],
    ["../x", /'\.\.' segments/],
    ["./x", SCP],
    ["git@github.com:o/r.git", SCP],
    ["github.com:o/r", SCP],
    ["https:/github.com/o/r", SCP],
    ["https:\\\\github.com\\o\\r", SCP],
    ["-oProxyCommand=touch /tmp/x", /must not start with '-'/],
    ["--upload-pack=touch /tmp/x", /must not start with '-'/],
    ["-uupload-pack=touch /tmp/x", /must not start with '-'/],
    // Credentials.
    ["https://user:pass@example.com/r.git", /must not contain credentials/],
    ["https://token@example.com/r.git", /must not contain credentials/],
    ["https://localhost:443@example.com/r.git", /must not contain credentials/],
    // Schemes other than https.
    ["http://example.com/o/r", HTTPS_ONLY],
    ["HTTP://example.com/o/r", HTTPS_ONLY],
    ["ssh://git@example.com/o/r", HTTPS_ONLY],
    ["git://example.com/o/r", HTTPS_ONLY],
    ["ftp://example.com/o/r", HTTPS_ONLY],
    // Private, loopback, link-local and other internal literals, in every spelling.
    ["https://127.0.0.1/r.git", PRIVATE],
    ["https://10.0.0.1/r.git", PRIVATE],
    ["https://172.16.0.1/r", PRIVATE],
    ["https://192.168.1.1/r", PRIVATE],
    ["https://100.64.0.1/r", PRIVATE],
    ["https://169.254.169.254/latest", PRIVATE],
    ["https://0.0.0.0/r", PRIVATE],
    ["https://0/r", PRIVATE],
    ["https://224.0.0.1/r", PRIVATE],
    ["https://0x7f000001/r", PRIVATE],
    ["https://2130706433/r", PRIVATE],
    ["https://127.1/r", PRIVATE],
    ["https://0177.0.0.1/r", PRIVATE],
    ["https://0x7f.1/r", PRIVATE],
    ["https://[::1]/r", PRIVATE],
    ["https://[0:0:0:0:0:0:0:1]/r", PRIVATE],
    ["https://[::]/r", PRIVATE],
    ["https://[fe80::1]/r", PRIVATE],
    ["https://[fd00::1]/r", PRIVATE],
    ["https://[ff02::1]/r", PRIVATE],
    ["https://[::ffff:127.0.0.1]/r", PRIVATE],
    ["https://[::ffff:a9fe:a9fe]/r", PRIVATE],
    ["https://[64:ff9b::a9fe:a9fe]/r", PRIVATE],
    ["https://127.0.0.1\\@example.com/r", PRIVATE],
    // Local names.
    ["https://localhost/r", LOCAL],
    ["https://LOCALHOST./r", LOCAL],
    ["https://api.localhost/r", LOCAL],
    ["https://printer.local/r", LOCAL],
    ["https://metadata.google.internal/computeMetadata/v1", LOCAL],
    // Unicode: the URL parser maps these onto ASCII internal hosts before the check sees them.
    ["https://\u24db\u24de\u24d2\u24d0\u24db\u24d7\u24de\u24e2\u24e3/r", LOCAL],
    ["https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/r", PRIVATE],
    ["https://127\u30020\u30020\u30021/r", PRIVATE],
    ["https://%6c%6f%63%61%6c%68%6f%73%74/r", LOCAL],
    ["https://\u00df.localhost/r", LOCAL],
    ["https://example.com\u202e/r", /not a valid URL/],
    ["https://[fe80::1%25eth0]/r", /not a valid URL/],
    // Query, fragment and dot segments.
    ["https://example.com/o/r?x=1", /query string or fragment/],
    ["https://example.com#@127.0.0.1/", /query string or fragment/],
    ["https://example.com/a/../../b", /'\.\.' segments/],
    ["https://example.com/a/%2e%2e/b", /'\.\.' segments/],
    // Whitespace and control characters inside the URL.
    ["https://example.com/o r", WHITESPACE],
    ["https://exa mple.com/o/r", WHITESPACE],
    ["https://example.com/o/r\n--upload-pack=touch /tmp/x", WHITESPACE],
    ["https://example.com/o/r\r\nHost: evil.example", WHITESPACE],
    ["https://example.com/\to/r", WHITESPACE],
    // NUL may be refused earlier by the API's text-safety check; either reason is clear.
    ["https://example.com/o/r\u0000", /control characters|NUL character/],
    ["https://example.com/o/\u0085r", WHITESPACE],
    // Length and emptiness.
    [`https://example.com/${"a".repeat(2030)}`, /at most 2048 characters/],
    [`https://example.com/${"a".repeat(100_000)}`, /at most 2048 characters/],
    ["", /must not be empty/],
    ["  \n\t ", /must not be empty/],
  ];

  it.each(REFUSED.map(([uri, reason]) => [shown(uri), uri, reason] as const))("git_uri %s → 400", async (_title, uri, reason) => {
    tried.add(`git_uri ${uri}`);
    await expectRefused(h, { git_uri: uri }, reason);
  });

  it.each([[42], [["https://example.com/o/r"]], [{ href: "https://example.com/o/r" }], [null], [true]])(
    "git_uri of type %j → 400",
    async (value) => {
      tried.add(`git_uri ${JSON.stringify(value)}`);
      await expectRefused(h, { git_uri: value }, /git_uri is required and must be a string/);
    },
  );

  // The branch reaches git's command line too (`--branch=<b>`).
  it.each([
    "--upload-pack=touch /tmp/x",
    "-oProxyCommand=x",
    "main\n--upload-pack=x",
    "../../etc/passwd",
    "a..b",
    "@{-1}",
    "main.lock",
    "a b",
    "x:y",
  ])("branch %j → 400", async (branch) => {
    tried.add(`branch ${branch}`);
    await expectRefused(h, { git_uri: "https://example.com/o/r.git", branch }, /branch is not a valid git branch name/);
  });
});

describe("production policy with a worker: loopback targets are never connected to", () => {
  let h: ApiHarness;
  let server: TcpServer;
  let port = 0;
  let connections = 0;
  const name = loopbackHostsName();

  beforeAll(async () => {
    server = createTcpServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    h = await createApiHarness({ worker: true, env: { ALLOW_INSECURE_GIT_URLS: "false" } });
  });
  afterAll(async () => {
    await h.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    "https://127.0.0.1:PORT/o/r.git",
    "https://127.1:PORT/o/r.git",
    "https://2130706433:PORT/o/r.git",
    "https://0x7f000001:PORT/o/r.git",
    "https://[::1]:PORT/o/r.git",
    "https://[::ffff:127.0.0.1]:PORT/o/r.git",
    "https://localhost:PORT/o/r.git",
    "http://127.0.0.1:PORT/o/r.git",
    "https://user:pass@127.0.0.1:PORT/o/r.git",
  ])("%s → 400, no connection", async (template) => {
    const uri = template.replace("PORT", String(port));
    tried.add(`git_uri ${template}`);
    await expectRefused(h, { git_uri: uri }, /private, loopback|local or internal|must use https|credentials/);
    expect(connections).toBe(0);
  });

  (name ? it : it.skip)(
    "a name that resolves to 127.0.0.1 is accepted by the API and refused by the worker at resolution, before connecting",
    async () => {
      tried.add("git_uri https://<name in /etc/hosts → 127.0.0.1>/o/r.git");
      const res = await request(h.app)
        .post("/api/v2/scan")
        .set("X-AX-KEY", h.tenant.token)
        .send({ git_uri: `https://${name}:${port}/o/r.git` });
      expect(res.status).toBe(200);
      const scan = await scanState(h, res.body.scan_id as string);
      expect(scan).toMatchObject({ state: "failed", error: `The host ${name} resolves to a private, loopback or link-local address.` });
      expect(connections).toBe(0);
    },
  );
});

describe("ALLOW_INSECURE_GIT_URLS=true (loopback http servers): redirects and repositories git refuses", () => {
  let h: ApiHarness;
  const servers: HttpServer[] = [];
  const listen = async (handler: Parameters<typeof createHttpServer>[1]): Promise<number> => {
    const server = createHttpServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  };

  beforeAll(async () => {
    // One attempt: a permanent failure must say why at once; anything else shows as "internal error".
    h = await createApiHarness({ worker: true, env: { ALLOW_INSECURE_GIT_URLS: "true", SCAN_ATTEMPTS: "1" } });
  });
  afterAll(async () => {
    await h.close();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  it("still refuses helpers, option injection and credentials", async () => {
    for (const [uri, reason] of [
      ["ext::sh -c touch% /tmp/x", /transport helpers/],
      ["--upload-pack=touch /tmp/x", /must not start with '-'/],
      ["https://user:pass@127.0.0.1/r.git", /credentials/],
      ["ssh://127.0.0.1/r.git", /must use https, http or file/],
    ] as const) {
      tried.add(`git_uri ${uri} (insecure policy)`);
      await expectRefused(h, { git_uri: uri }, reason);
    }
  });

  it.each([301, 302, 307, 308])(
    "a %i redirect to another loopback port ends the scan failed with a reason; the target is never contacted",
    async (status) => {
      tried.add(`git_uri redirecting with ${status}`);
      let targetHits = 0;
      let redirectorHits = 0;
      const target = await listen((_req, res) => {
        targetHits += 1;
        res.writeHead(404).end();
      });
      const redirector = await listen((req, res) => {
        redirectorHits += 1;
        res.writeHead(status, { Location: `http://127.0.0.1:${target}${req.url ?? "/"}` }).end();
      });
      const res = await request(h.app)
        .post("/api/v2/scan")
        .set("X-AX-KEY", h.tenant.token)
        .send({ git_uri: `http://127.0.0.1:${redirector}/org/repo.git` });
      expect(res.status).toBe(200);
      const scan = await scanState(h, res.body.scan_id as string);
      expect(scan).toMatchObject({
        state: "failed",
        error: "The repository URL redirects elsewhere; redirects are not followed. Use the final URL.",
      });
      expect(redirectorHits).toBeGreaterThan(0);
      expect(targetHits).toBe(0);
    },
  );

  it("a repository whose tree git refuses to check out ('..' entry) ends failed with a reason, not an internal error", async () => {
    tried.add("repository with a '..' tree entry (through the API)");
    const repo = makeGitRepo({ "app.py": "print('hi')\n" });
    const dir = tmpDir("ax-hostile-uri-");
    try {
      const run = (args: string[], input?: string) =>
        execFileSync("git", args, {
          cwd: repo,
          encoding: "utf8",
          input,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: dir,
            GIT_CONFIG_NOSYSTEM: "1",
            GIT_AUTHOR_NAME: "m",
            GIT_AUTHOR_EMAIL: "m@m",
            GIT_COMMITTER_NAME: "m",
            GIT_COMMITTER_EMAIL: "m@m",
          },
        }).trim();
      const blob = run(["hash-object", "-w", "--stdin"], "x\n");
      const tree = run(["mktree"], `100644 blob ${blob}\t..\n100644 blob ${blob}\tapp.py\n`);
      run(["update-ref", "refs/heads/main", run(["commit-tree", "-m", "dots", tree])]);
      const res = await request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send({ git_uri: repo });
      expect(res.status).toBe(200);
      const scan = await scanState(h, res.body.scan_id as string);
      expect(scan.state).toBe("failed");
      expect(scan.error).not.toMatch(/internal error/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(path.resolve(repo), { recursive: true, force: true });
    }
  });
});

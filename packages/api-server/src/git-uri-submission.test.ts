/**
 * Issue 17 through the real API (real PostgreSQL, real Redis, and for the last case a real
 * worker): git_uri values that the URL parser would rewrite into another host, or that name
 * no valid host, are refused at submission with a 400 naming the problem, on POST /scan and
 * POST /public/scan alike; a repository with a missing object fails on its first attempt
 * with one plain sentence.
 *
 * No traffic beyond 127.0.0.1: the refusal harness runs no worker (an accepted https URL is
 * queued and never cloned, and the API resolves no names); the worker harness only clones a
 * file:// repository made here.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let strict: ApiHarness;
let e2e: ApiHarness;
let nextIp = 1;

beforeAll(async () => {
  [strict, e2e] = await Promise.all([
    createApiHarness({ env: { ALLOW_INSECURE_GIT_URLS: "false", TRUST_PROXY: "true" } }),
    createApiHarness({ worker: true, env: { ALLOW_INSECURE_GIT_URLS: "true" } }),
  ]);
});
afterAll(async () => {
  await Promise.all([strict, e2e].map((h) => h?.close()));
});

const endpoints = {
  "POST /api/v2/scan": (h: ApiHarness, body: object) => request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send(body),
  "POST /api/v2/public/scan": (h: ApiHarness, body: object) =>
    request(h.app).post("/api/v2/public/scan").set("X-Forwarded-For", `198.51.100.${nextIp++}`).send(body),
};

async function stored(h: ApiHarness): Promise<{ scans: number; jobs: number }> {
  const row = await h.deps.db
    .selectFrom("scans")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  const jobs = Object.values(await h.deps.queue.queue("scans").getJobCounts()).reduce((a, b) => a + b, 0);
  return { scans: Number(row.n), jobs };
}

describe.each(Object.keys(endpoints) as (keyof typeof endpoints)[])("%s refuses hosts the parser would rewrite", (endpoint) => {
  const post = endpoints[endpoint];

  it.each([
    ["https:///x", /git_uri must name a host after '\/\/'/], // once stored as https://x/: another host
    ["https:////git.example.test/o/r", /must name a host/],
    ["https://a/%ZZ", /'%' that is not followed by two hexadecimal digits/],
    ["https://git.example.test/o/r%0a", /control characters, escaped or not/],
    ["https://git%2eexample.test/o/r", /host must not contain percent-escapes/],
    ["https://@git.example.test/o/r", /must not contain credentials/],
    ["https://xn--a.test/o/r", /not a valid internationalised domain name/],
    ["https://xn--zz-.test/o/r", /not a valid host name/],
    ["https://git_server.example.test/o/r", /not a valid host name/],
    ["ssh://git.example.test/o/r", /must use https/],
  ])("%j → 400 naming the problem, nothing stored or queued", async (uri, reason) => {
    const before = await stored(strict);
    const res = await post(strict, { git_uri: uri });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, error: "validation_failed", message: expect.stringMatching(reason) });
    expect(res.body.message).not.toContain(uri);
    expect(await stored(strict)).toEqual(before);
  });

  it("accepts an internationalised host and stores its ASCII form, the host git will be given", async () => {
    const res = await post(strict, { git_uri: "https://exämple.test/o/r.git" });
    expect(res.status).toBe(200);
    const row = await strict.deps.db
      .selectFrom("scans")
      .select("git_uri")
      .where("id", "=", res.body.scan_id as string)
      .executeTakeFirstOrThrow();
    expect(row.git_uri).toBe("https://xn--exmple-cua.test/o/r.git");
  });
});

describe("a repository with a missing object, through the worker", () => {
  it("fails on the first of its attempts with one plain sentence", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`src/f${i}.py`] = `print(${i})\n`;
    const repo = makeGitRepo(files);
    const blob = execFileSync("git", ["rev-parse", "HEAD:src/f7.py"], { cwd: repo, encoding: "utf8" }).trim();
    fs.rmSync(path.join(repo, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    expect(e2e.deps.config.worker.attempts).toBeGreaterThan(1);

    const res = await request(e2e.app)
      .post("/api/v2/scan")
      .set("X-AX-KEY", e2e.tenant.token)
      .send({ git_uri: `file://${repo}` });
    expect(res.status).toBe(200);
    const scanId = res.body.scan_id as string;
    const scan = await waitFor(
      async () => {
        const r = await request(e2e.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", e2e.tenant.token);
        return ["completed", "failed"].includes(r.body.state as string) ? (r.body as { state: string; error: string }) : undefined;
      },
      { timeoutMs: 60_000, what: "the scan to end" },
    );
    expect(scan).toMatchObject({
      state: "failed",
      error:
        "The repository could not be fetched: the server's copy is missing objects or has corrupt ones (its owner can check it with `git fsck`).",
    });
    const job = await e2e.deps.queue.queue("scans").getJob(scanId);
    expect(job?.attemptsMade).toBe(1);
  });
});

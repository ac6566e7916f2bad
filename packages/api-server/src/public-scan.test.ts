// Public Scan on the real stack: PostgreSQL, Redis, a BullMQ worker in this process (its
// repeatable retention job included), the real analyzers, and git repositories made here.
// Nothing touches the network: the end-to-end harness lets public scans read local paths
// (PUBLIC_SCAN_ALLOW_INSECURE, tests only); the others run no worker, so the https URLs they
// accept are queued and never cloned, and they use reserved names (RFC 2606 .test).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import request from "supertest";
import type { NormalizedFinding } from "@ax/contracts";
import { PUBLIC_ORG_KEY, createScan, ensureInternalOrganization, findOrCreateProject, markRunning, storeScanResults } from "@ax/db";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { expirePublicScans } from "@ax/scan-worker";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures");

/** End to end: a worker, local repositories allowed for public scans, a fast retention sweep. */
let e2e: ApiHarness;
/** No worker; the production URL policy (ALLOW_INSECURE_GIT_URLS stays true, as in every test). */
let strict: ApiHarness;
/** One public scan in flight at most. */
let capped: ApiHarness;
let disabled: ApiHarness;
let repo: string;
let nextIp = 1;
const freshIp = () => `198.51.100.${nextIp++}`;
const HTTPS = "https://git.example.test/acme/app.git";

beforeAll(async () => {
  [e2e, strict, capped, disabled] = await Promise.all([
    createApiHarness({
      worker: true,
      env: { PUBLIC_SCAN_ALLOW_INSECURE: "true", PUBLIC_SCAN_READS_PER_IP_PER_MINUTE: "100000", PUBLIC_SCAN_SWEEP_INTERVAL_MS: "1000" },
    }),
    createApiHarness({ env: { TRUST_PROXY: "true", PUBLIC_SCAN_PER_IP_PER_HOUR: "2", PUBLIC_SCAN_MAX_IN_FLIGHT: "0" } }),
    createApiHarness({ env: { TRUST_PROXY: "true", PUBLIC_SCAN_MAX_IN_FLIGHT: "1" } }),
    createApiHarness({ env: { PUBLIC_SCAN_ENABLED: "false" } }),
  ]);
  repo = makeGitRepo({
    "src/db.js": fs.readFileSync(path.join(FIXTURES, "vulnerable.js"), "utf8"),
    "src/safe.js": fs.readFileSync(path.join(FIXTURES, "safe.js"), "utf8"),
  });
});
afterAll(async () => {
  await Promise.all([e2e, strict, capped, disabled].map((h) => h?.close()));
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

const submit = (h: ApiHarness, body: unknown, ip = freshIp()) =>
  request(h.app)
    .post("/api/v2/public/scan")
    .set("X-Forwarded-For", ip)
    .send(body as object);

describe("public scan, end to end", () => {
  let scanId: string;

  it("scans without a token and serves the results by id", async () => {
    const res = await submit(e2e, { git_uri: repo });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ scan_id: expect.stringMatching(/^[0-9a-f-]{36}$/), state: "queued", expires_at: expect.any(String) });
    scanId = res.body.scan_id as string;
    const hours = (Date.parse(res.body.expires_at as string) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const scan = await waitFor(
      async () => {
        const r = await request(e2e.app).get(`/api/v2/public/scan/${scanId}`);
        expect(r.status).toBe(200);
        return ["completed", "failed", "cancelled"].includes(r.body.state) ? (r.body as Record<string, unknown>) : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "public scan" },
    );
    expect(scan).toMatchObject({ scan_id: scanId, state: "completed", progress: 100, error: null, expires_at: res.body.expires_at });
    expect(scan).not.toHaveProperty("organization_id");
    expect(scan).not.toHaveProperty("project_id");

    const page = await request(e2e.app).get(`/api/v2/public/scan/${scanId}/findings?limit=500`);
    expect(page.status).toBe(200);
    const findings = page.body.findings as Record<string, unknown>[];
    expect(findings).toEqual(expect.arrayContaining([expect.objectContaining({ cwe_id: "CWE-89", file: "src/db.js", start_line: 6 })]));
    expect(findings.every((f) => f.file === "src/db.js")).toBe(true);
    // The reduced view: no triage, no AI label, no internal ids.
    expect(Object.keys(findings[0]!).sort()).toEqual([
      "confidence",
      "cwe_id",
      "end_line",
      "file",
      "finding_id",
      "message",
      "rule_id",
      "severity",
      "start_line",
      "title",
    ]);
    expect(page.body.next_cursor).toBeNull();
    // Counted from the stored findings, like a private scan's (nobody can triage these).
    expect(scan.counts).toMatchObject({ total: findings.length, to_review: findings.length, false_positive: 0, fixed: 0 });

    // Cursor pagination walks the same list.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: request.Response = await request(e2e.app).get(
        `/api/v2/public/scan/${scanId}/findings?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(r.status).toBe(200);
      seen.push(...(r.body.findings as { finding_id: string }[]).map((f) => f.finding_id));
      cursor = r.body.next_cursor as string | null;
    } while (cursor);
    expect(seen).toEqual(findings.map((f) => f.finding_id));
    expect((await request(e2e.app).get(`/api/v2/public/scan/${scanId}/findings?cursor=bm9wZQ`)).status).toBe(400);
  }, 90_000);

  it("keeps public and private scans apart (404 both ways)", async () => {
    const token = { "X-AX-KEY": e2e.tenant.token };
    for (const p of [`/api/v2/scan/${scanId}`, `/api/v2/scan/${scanId}/findings`, `/api/v2/scan/${scanId}/sarif`])
      expect((await request(e2e.app).get(p).set(token)).status).toBe(404);
    expect((await request(e2e.app).post(`/api/v2/scan/${scanId}/cancel`).set(token)).status).toBe(404);
    const listed = await request(e2e.app).get("/api/v2/scan").set(token);
    expect((listed.body.scans as { scan_id: string }[]).map((s) => s.scan_id)).not.toContain(scanId);
    const profile = await request(e2e.app).get("/api/v2/profile").set(token);
    expect((profile.body.organizations as { name: string }[]).map((o) => o.name)).not.toContain(PUBLIC_ORG_KEY);

    const mine = await request(e2e.app).post("/api/v2/scan").set(token).send({ git_uri: repo });
    expect(mine.status).toBe(200);
    for (const p of [`/api/v2/public/scan/${mine.body.scan_id}`, `/api/v2/public/scan/${mine.body.scan_id}/findings`])
      expect((await request(e2e.app).get(p)).status).toBe(404);
    expect((await request(e2e.app).get("/api/v2/public/scan/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await request(e2e.app).get("/api/v2/public/scan/not-an-id")).status).toBe(404);
  });

  it("has no write endpoints", async () => {
    expect((await request(e2e.app).post(`/api/v2/public/scan/${scanId}/cancel`)).status).toBe(404);
    // The scan's path exists, for reading only: 405 naming the methods it takes.
    const del = await request(e2e.app).delete(`/api/v2/public/scan/${scanId}`);
    expect({ status: del.status, allow: del.headers.allow }).toEqual({ status: 405, allow: "GET, HEAD, OPTIONS" });
  });
});

describe("retention", () => {
  const finding = (n: number): NormalizedFinding => ({
    analyzer: "ast-grep",
    rule_id: "js-sql-injection",
    title: "SQL injection",
    message: "Query built from input",
    cwe_id: "CWE-89",
    cwe_name: "SQL Injection",
    owasp: null,
    file: "src/db.js",
    start_line: n,
    end_line: n,
    start_column: 1,
    end_column: 2,
    snippet: "x",
    severity: "HIGH",
    confidence: "HIGH",
    likelihood: "MEDIUM",
    impact: "HIGH",
    remediation: null,
    fingerprint: String(n).repeat(64).slice(0, 64),
    raw: {},
  });

  async function seed(h: ApiHarness, url: string, organization?: { organizationId: string; groupId: string }) {
    const db = h.stack.handle.db;
    const { organizationId, groupId } = organization ?? (await ensureInternalOrganization(db, PUBLIC_ORG_KEY));
    const project = await findOrCreateProject(db, { organizationId, groupId, gitUrl: url, name: "r" });
    const { scan } = await createScan(db, {
      organizationId,
      groupId,
      projectId: project.id,
      createdBy: null,
      gitUri: url,
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    });
    await markRunning(db, scan.id);
    await storeScanResults(db, {
      scanId: scan.id,
      projectId: project.id,
      organizationId,
      findings: [finding(1), finding(2)],
      analyzers: [],
      languages: [],
    });
    return scan.id;
  }
  // created_at is write-once in the row types; a test moves it back in time by hand, the
  // scan's project with it (a project is never younger than its scans).
  const age = async (h: ApiHarness, scanId: string, hours: number) => {
    await sql`UPDATE scans SET created_at = now() - make_interval(hours => ${hours}) WHERE id = ${scanId}`.execute(h.stack.handle.db);
    await sql`UPDATE projects SET created_at = now() - make_interval(hours => ${hours}) WHERE id = (SELECT project_id FROM scans WHERE id = ${scanId})`.execute(
      h.stack.handle.db,
    );
  };
  const rows = async (h: ApiHarness, scanId: string) => ({
    scans: (await h.stack.handle.db.selectFrom("scans").select("id").where("id", "=", scanId).execute()).length,
    findings: (await h.stack.handle.db.selectFrom("findings").select("id").where("scan_id", "=", scanId).execute()).length,
  });

  it("the worker's repeatable job hard-deletes expired public scans with their findings and keeps fresh ones", async () => {
    const t = e2e.tenant;
    const expired = await seed(e2e, "file:///expired-public");
    const fresh = await seed(e2e, "file:///fresh-public");
    const oldPrivate = await seed(e2e, "file:///old-private", { organizationId: t.organization_id, groupId: t.group_id });
    await age(e2e, expired, 25);
    await age(e2e, fresh, 23);
    await age(e2e, oldPrivate, 25);
    // Past its retention a scan is gone for readers at once, whenever the job runs.
    expect((await request(e2e.app).get(`/api/v2/public/scan/${expired}`)).status).toBe(404);
    expect((await request(e2e.app).get(`/api/v2/public/scan/${fresh}`)).status).toBe(200);

    const schedulers = await e2e.deps.queue.queue("maintenance").getJobSchedulers();
    expect(schedulers.map((s) => s.key)).toContain("public-scan-expiry");
    await waitFor(async () => (await rows(e2e, expired)).scans === 0, { timeoutMs: 20_000, what: "the retention job" });
    expect(await rows(e2e, expired)).toEqual({ scans: 0, findings: 0 });
    expect(await rows(e2e, fresh)).toEqual({ scans: 1, findings: 2 });
    expect(await rows(e2e, oldPrivate)).toEqual({ scans: 1, findings: 2 });
    const projects = await e2e.stack.handle.db.selectFrom("projects").select("git_url").execute();
    expect(projects.map((p) => p.git_url)).not.toContain("file:///expired-public");

    // Idempotent: nothing left to delete.
    const deps = { db: e2e.stack.handle.db, config: e2e.stack.config, logger: e2e.deps.logger };
    expect(await expirePublicScans(deps)).toEqual({ scans: 0, findings: 0, projects: 0 });
    // A project just created for a public scan whose row is not inserted yet stays: deleting it
    // would make that scan's insert fail.
    const publicOrg = await ensureInternalOrganization(e2e.stack.handle.db, PUBLIC_ORG_KEY);
    const starting = await findOrCreateProject(e2e.stack.handle.db, { ...publicOrg, gitUrl: "file:///starting-public", name: "s" });
    expect(await expirePublicScans(deps)).toEqual({ scans: 0, findings: 0, projects: 0 });
    expect(await e2e.stack.handle.db.selectFrom("projects").select("id").where("id", "=", starting.id).execute()).toHaveLength(1);
    const later = await seed(e2e, "file:///later-public");
    expect(await expirePublicScans(deps, new Date(Date.now() + 25 * 3_600_000))).toMatchObject({ findings: expect.any(Number) });
    expect(await rows(e2e, later)).toEqual({ scans: 0, findings: 0 });
  }, 60_000);
});

describe("limits and URL policy", () => {
  it.each([
    ["http", "http://git.example.test/acme/app.git"],
    ["ssh", "ssh://git@git.example.test/acme/app.git"],
    ["scp-style", "git@git.example.test:acme/app.git"],
    ["file", "file:///tmp/repo"],
    ["local path", "/tmp/repo"],
    ["loopback", "https://127.0.0.1/acme/app.git"],
    ["internal name", "https://git.internal/acme/app.git"],
  ])("refuses %s URLs with 400 (ALLOW_INSECURE_GIT_URLS does not apply)", async (_label, uri) => {
    expect(strict.stack.config.scan.allowInsecureGitUrls).toBe(true);
    const res = await submit(strict, { git_uri: uri });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([expect.objectContaining({ path: "body.git_uri" })]);
  });

  it("refuses unknown fields and diff-aware options", async () => {
    expect((await submit(strict, { git_uri: HTTPS, baseline_commit: "a".repeat(40) })).status).toBe(400);
    expect((await submit(strict, { git_uri: HTTPS, organization_id: strict.tenant.organization_id })).status).toBe(400);
  });

  it("gives an IP PUBLIC_SCAN_PER_IP_PER_HOUR scans, then 429 with Retry-After; other IPs keep theirs", async () => {
    const ip = freshIp();
    expect((await submit(strict, { git_uri: HTTPS }, ip)).status).toBe(200);
    expect((await submit(strict, { git_uri: HTTPS, branch: "main" }, ip)).status).toBe(200);
    const refused = await submit(strict, { git_uri: HTTPS }, ip);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ code: 429, error: "rate_limited", message: expect.stringMatching(/public scans from this address/) });
    // An hour's budget of 2 comes back one scan per half hour.
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(1700);
    expect(refused.headers["ratelimit-remaining"]).toBe("0");
    expect((await submit(strict, { git_uri: HTTPS }, freshIp())).status).toBe(200);
  });

  it("caps public scans in flight overall with 429 and Retry-After, creating nothing", async () => {
    expect((await submit(capped, { git_uri: HTTPS })).status).toBe(200);
    const refused = await submit(capped, { git_uri: `${HTTPS}x` });
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("30");
    const { n } = await capped.stack.handle.db
      .selectFrom("scans")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(1);
    // Customers' scans are not counted against the public cap, nor it against theirs.
    expect((await request(capped.app).post("/api/v2/scan").set("X-AX-KEY", capped.tenant.token).send({ git_uri: HTTPS })).status).toBe(200);
  });

  it("answers 404 on every public endpoint when switched off", async () => {
    expect((await submit(disabled, { git_uri: HTTPS })).status).toBe(404);
    expect((await submit(disabled, { nonsense: true })).status).toBe(404);
    const id = "00000000-0000-4000-8000-000000000000";
    for (const p of [`/api/v2/public/scan/${id}`, `/api/v2/public/scan/${id}/findings`]) {
      const res = await request(disabled.app).get(p);
      expect({ p, status: res.status, body: res.body as unknown }).toEqual({
        p,
        status: 404,
        body: { code: 404, error: "not_found", message: "No such endpoint." },
      });
    }
  });
});

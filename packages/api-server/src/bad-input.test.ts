// Issue 17, "every bad input gets a clear answer": each bug a user found, as a regression test.
// Real PostgreSQL and Redis, the real app; nothing is faked. One app is built a second time
// over the same dependencies with a logger that keeps what it is given, to check log levels.
import { Writable } from "node:stream";
import request from "supertest";
import winston from "winston";
import {
  PUBLIC_ORG_KEY,
  createScan,
  createToken,
  createUser,
  ensureInternalOrganization,
  findOrCreateProject,
  markRunning,
  storeScanResults,
} from "@ax/db";
import { SEVERITIES, type NormalizedFinding } from "@ax/contracts";
import { buildApp } from "./app";
import { createApiHarness, SEED_FINDING, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let scanId: string;
let findingId: string;
let queuedScanId: string;
let publicScanId: string;
let adminToken: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });

const finding = (over: Partial<NormalizedFinding>): NormalizedFinding => ({ ...SEED_FINDING, ...over });

beforeAll(async () => {
  h = await createApiHarness({ env: { MAX_BODY_BYTES: "4096" } });
  const db = h.stack.handle.db;
  const t = h.tenant;
  const project = await findOrCreateProject(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    gitUrl: "file:///repo",
    name: "repo",
  });
  const scan = async () =>
    (
      await createScan(db, {
        organizationId: t.organization_id,
        groupId: t.group_id,
        projectId: project.id,
        createdBy: t.user_id,
        gitUri: "file:///repo",
        branch: null,
        idempotencyKey: null,
        requestHash: null,
      })
    ).scan.id;
  scanId = await scan();
  await markRunning(db, scanId);
  await storeScanResults(db, {
    scanId,
    projectId: project.id,
    organizationId: t.organization_id,
    findings: [
      finding({ fingerprint: "a".repeat(64), severity: "CRITICAL", start_line: 1 }),
      finding({ fingerprint: "b".repeat(64), severity: "HIGH", start_line: 2, snippet: "db.query('y' + id)" }),
      finding({ fingerprint: "c".repeat(64), severity: "LOW", start_line: 3, snippet: "db.query('z' + id)", file: "src/other.js" }),
    ],
    analyzers: [],
    languages: ["javascript"],
  });
  const rows = await db.selectFrom("findings").select(["id", "severity"]).where("scan_id", "=", scanId).execute();
  findingId = rows.find((r) => r.severity === "HIGH")!.id;
  queuedScanId = await scan();

  const pub = await ensureInternalOrganization(db, PUBLIC_ORG_KEY);
  const pubProject = await findOrCreateProject(db, {
    organizationId: pub.organizationId,
    groupId: pub.groupId,
    gitUrl: "https://git.example.test/p/r",
    name: "r",
  });
  publicScanId = (
    await createScan(db, {
      organizationId: pub.organizationId,
      groupId: pub.groupId,
      projectId: pubProject.id,
      createdBy: null,
      gitUri: "https://git.example.test/p/r",
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    })
  ).scan.id;

  const admin = await createUser(db, { email: "ops@acme.test", displayName: "Ops", identityProvider: "local", isInstanceAdmin: true });
  adminToken = (await createToken(db, { userId: admin.id, name: "ops", expiresInDays: 1 })).token;
});
afterAll(() => h.close());

/** The same app over the same dependencies, with a logger that keeps every entry. */
function appWithLogs(): { app: ReturnType<typeof buildApp>; entries: Record<string, unknown>[] } {
  const entries: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) entries.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = winston.createLogger({
    level: "silly",
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream })],
  });
  return { app: buildApp({ ...h.deps, logger }), entries };
}

describe("malformed percent-escapes", () => {
  const MALFORMED = ["%FF", "%zz", "%", "abc%E0%A4", "%C0%AF"];

  it("in a path parameter: 401 without a token, 400 with one, never 500 or an error log line", async () => {
    const { app, entries } = appWithLogs();
    for (const bad of MALFORMED) {
      const anonymous = await request(app).get(`/api/v2/scan/${bad}`);
      expect({ bad, status: anonymous.status, body: anonymous.body }).toEqual({
        bad,
        status: 401,
        body: { code: 401, error: "unauthorized", message: expect.stringMatching(/X-AX-KEY/) },
      });
      const res = await request(app).get(`/api/v2/scan/${bad}/findings`).set(key());
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body).toEqual({
        code: 400,
        error: "validation_failed",
        message: "Invalid path: it contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).",
      });
      // Public routes have no token to check first.
      const pub = await request(app).get(`/api/v2/public/scan/${bad}`);
      expect({ bad, status: pub.status }).toEqual({ bad, status: 400 });
    }
    // Two parameters, one of them bad; a bad segment where the path has a literal is no route.
    expect((await request(app).put(`/api/v2/scan/${scanId}/finding/%FF`).set(key()).send({ status: "FIXED" })).status).toBe(400);
    expect((await request(app).get(`/api/v2/sc%FFan/${scanId}`).set(key())).status).toBe(404);
    const levels = entries.map((e) => e.level);
    expect(levels).not.toContain("error");
    expect(JSON.stringify(entries)).not.toMatch(/%FF|%zz|Failed to decode/);
  });

  it("in the queue dashboard's routes (outside /api/v2): 400, logged at info without the input", async () => {
    const { app, entries } = appWithLogs();
    const res = await request(app).get("/admin/queues/api/queues/%FF/%FF").set("X-AX-KEY", adminToken).set("Accept", "application/json");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      error: "validation_failed",
      message: "Invalid path: it contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).",
    });
    expect(entries.filter((e) => e.level === "error" || e.level === "warn")).toEqual([]);
    expect(JSON.stringify(entries)).not.toContain("%FF");
  });

  it("in the query string: 400 (not a filter on the literal text), 401 first without a token", async () => {
    const { app, entries } = appWithLogs();
    for (const q of ["file=%FF", "file=src%2", "rule=a%ZZb", "%FF=1"]) {
      const res = await request(app).get(`/api/v2/scan/${scanId}/findings?${q}`).set(key());
      expect({ q, status: res.status, body: res.body }).toEqual({
        q,
        status: 400,
        body: {
          code: 400,
          error: "validation_failed",
          message: "Invalid query: a parameter contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).",
        },
      });
      expect((await request(app).get(`/api/v2/scan/${scanId}/findings?${q}`)).status).toBe(401);
    }
    // Well-formed escapes still work.
    expect((await request(app).get(`/api/v2/scan/${scanId}/findings?file=src%2Fdb.js`).set(key())).body.findings).toHaveLength(2);
    expect(entries.map((e) => e.level)).not.toContain("error");
  });
});

describe("filters over closed sets", () => {
  const list = (q: string) => request(h.app).get(`/api/v2/scan/${scanId}/findings?${q}`).set(key());

  it.each([
    ["severity=crit", /severity takes CRITICAL, HIGH, MEDIUM, LOW, INFO/],
    ["severity=high,crit", /severity takes CRITICAL, HIGH, MEDIUM, LOW, INFO/],
    ["status=open", /status takes TO REVIEW, TRUE POSITIVE, FALSE POSITIVE, ACCEPTED RISK, FIXED/],
    ["baseline=gone", /baseline takes new, unchanged, absent/],
    ["ai_class=maybe", /ai_class takes TRUE_POSITIVE, FALSE_POSITIVE/],
    ["dataflow=yes", /dataflow takes confirmed, unconfirmed or none/],
    ["sort=newest", /sort takes severity, ai_confidence or -ai_confidence/],
    ["cwe=89", /cwe takes values like CWE-89/],
    ["suppressed=maybe", /must be true or false/],
  ])("refuse an unknown value: %s → 400 naming the allowed values", async (q, message) => {
    const res = await list(q);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(res.body.message).not.toMatch(/crit\b|open|gone|maybe|yes|newest|=89/);
  });

  it("accept every allowed value, in any case and separator", async () => {
    expect((await list("severity=critical")).body.findings).toHaveLength(1);
    expect((await list("severity=High,low")).body.findings).toHaveLength(2);
    expect((await list(`severity=${SEVERITIES.join(",")}`)).body.findings).toHaveLength(3);
    expect((await list("severity=high&severity=LOW")).body.findings).toHaveLength(2);
    expect((await list("status=to_review")).body.findings).toHaveLength(3);
    expect((await list("status=true-positive")).body.findings).toHaveLength(0);
    expect((await list("baseline=NEW")).body.findings).toHaveLength(3);
    expect((await list("cwe=cwe-89")).body.findings).toHaveLength(3);
    expect((await list("ai_class=true-positive,false_positive")).status).toBe(200);
  });
});

describe("unknown query parameters", () => {
  it("are 400 naming them, as unknown body fields are; 401 first without a token", async () => {
    const typo = await request(h.app).get(`/api/v2/scan/${scanId}/findings?severty=HIGH`).set(key());
    expect(typo.status).toBe(400);
    expect(typo.body.message).toMatch(/^Invalid query: Unknown query parameter: severty\. This endpoint takes: .*severity/);
    const none = await request(h.app).get("/api/v2/profile?verbose=1").set(key());
    expect(none.body).toEqual({
      code: 400,
      error: "validation_failed",
      message: "Invalid query: Unknown query parameter: verbose. This endpoint takes no query parameters.",
    });
    expect((await request(h.app).get("/api/v2/profile?verbose=1")).status).toBe(401);
    expect((await request(h.app).get("/api/v2/health?probe=1")).status).toBe(400);
  });

  it("never quote a name that is not plain, nor a value", async () => {
    const odd = await request(h.app)
      .get(`/api/v2/scan/${scanId}?${encodeURIComponent("<b>x</b>")}=1&x=secret-value`)
      .set(key());
    expect(odd.status).toBe(400);
    expect(odd.body.message).toBe("Invalid query: Unknown query parameter. This endpoint takes no query parameters.");
    // A token in the query is refused as what it is, an unknown parameter, and not quoted.
    const leaked = await request(h.app).get(`/api/v2/profile?X-AX-KEY=${h.tenant.token}`).set(key());
    expect(leaked.status).toBe(400);
    expect(leaked.text).not.toContain(h.tenant.token);
  });
});

describe("authentication before the body", () => {
  const url = () => `/api/v2/scan/${scanId}/finding/${findingId}`;

  it("answers 401 to an unauthenticated request whatever its body: malformed, oversized or not JSON", async () => {
    const cases: [string, (r: request.Test) => request.Test][] = [
      ["malformed JSON", (r) => r.set("Content-Type", "application/json").send('{"status": ')],
      ["oversized", (r) => r.send({ reason: "x".repeat(10_000) })],
      ["text/plain", (r) => r.set("Content-Type", "text/plain").send("status=FIXED")],
      ["latin1", (r) => r.set("Content-Type", "application/json; charset=latin1").send('{"status":"FIXED"}')],
      ["wrong type", (r) => r.send({ status: 42 })],
    ];
    for (const [what, body] of cases) {
      const anonymous = await body(request(h.app).put(url()));
      expect({ what, status: anonymous.status }).toEqual({ what, status: 401 });
      const bad = await body(request(h.app).put(url()).set("X-AX-KEY", "axk_not-a-real-token"));
      expect({ what, status: bad.status }).toEqual({ what, status: 401 });
    }
    // With a token, the body's own error.
    expect((await request(h.app).put(url()).set(key()).set("Content-Type", "application/json").send('{"status": ')).status).toBe(400);
    expect(
      (
        await request(h.app)
          .put(url())
          .set(key())
          .send({ reason: "x".repeat(10_000) })
      ).status,
    ).toBe(413);
    expect((await request(h.app).put(url()).set(key()).set("Content-Type", "text/plain").send("status=FIXED")).status).toBe(415);
  });

  it("answers the chat routes' 401 in Markdown before reading the body", async () => {
    const res = await request(h.app).post("/api/v2/ai/chatbot").set("Content-Type", "text/plain").send("who am I?");
    expect(res.status).toBe(401);
    expect(res.headers["content-type"]).toMatch(/^text\/markdown/);
    expect(res.text).toMatch(/^\*\*Error 401\.\*\* /);
  });
});

describe("If-Match", () => {
  const put = (ifMatch: string, body: object) =>
    request(h.app).put(`/api/v2/scan/${scanId}/finding/${findingId}`).set(key()).set("If-Match", ifMatch).send(body);

  it("`*` matches any current version", async () => {
    const res = await put("*", { reason: "checked with If-Match: *" });
    expect(res.status).toBe(200);
    expect(res.body.finding.reason).toBe("checked with If-Match: *");
    const version = res.body.finding.version as number;
    expect(res.headers.etag).toBe(`"${version}"`);
    expect((await put(` * `, { reason: "again" })).status).toBe(200);
  });

  it("leaves the body's rules as they were: unknown fields and an empty body are 400", async () => {
    expect((await put("*", { reason: "x", verdict: "ok" })).body.message).toBe("Invalid body: Unknown field: verdict.");
    expect((await put("*", {})).body.message).toBe("Invalid body: Body must contain at least one updatable field.");
    expect((await put("*", { status: "nope" })).body.message).toBe(
      "Invalid body: status must be one of: TO REVIEW, TRUE POSITIVE, FALSE POSITIVE, ACCEPTED RISK, FIXED.",
    );
  });

  it("a stale version is 412, anything else that is not a version is 400 saying what it takes", async () => {
    const stale = await put('"999"', { reason: "stale" });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({
      code: 412,
      error: "precondition_failed",
      message: expect.stringMatching(/^The finding was changed meanwhile/),
    });
    const bad = await put("abc", { reason: "x" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation_failed");
    expect(bad.body.message).toBe("If-Match must be * or the finding's version, as given in its ETag.");
  });
});

describe("a method an existing path does not take", () => {
  it("is 405 with Allow listing the path's methods, with or without a token", async () => {
    const cases: [string, string, string][] = [
      ["delete", `/api/v2/scan/${scanId}`, "GET, HEAD, OPTIONS"],
      ["put", "/api/v2/scan", "POST, GET, HEAD, OPTIONS"],
      ["get", "/api/v2/ai/chatbot", "POST, OPTIONS"],
      ["patch", `/api/v2/scan/${scanId}/finding/${findingId}`, "GET, HEAD, PUT, OPTIONS"],
      ["post", "/api/v2/openapi.json", "GET, HEAD, OPTIONS"],
      ["delete", "/api/v2/health", "GET, HEAD, OPTIONS"],
    ];
    for (const [method, path, allow] of cases) {
      for (const headers of [key(), {}]) {
        const res = await request(h.app)[method as "get"](path).set(headers);
        expect({ method, path, status: res.status, allow: res.headers.allow }).toEqual({ method, path, status: 405, allow });
        expect(res.body).toEqual({
          code: 405,
          error: "method_not_allowed",
          message: `This endpoint does not take ${method.toUpperCase()}; it takes ${allow}.`,
        });
      }
    }
  });

  it("answers OPTIONS with 204 and Allow; a path that does not exist stays 404", async () => {
    const options = await request(h.app).options("/api/v2/scan");
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe("POST, GET, HEAD, OPTIONS");
    expect((await request(h.app).delete("/api/v2/nope").set(key())).status).toBe(404);
    expect((await request(h.app).get(`/api/v2/scan/${scanId}/nope`).set(key())).status).toBe(404);
  });

  it("counts 405s under the route template in the metrics", async () => {
    await request(h.app).delete(`/api/v2/scan/${scanId}`).set(key());
    const metrics = await request(h.app).get("/api/v2/metrics");
    expect(metrics.text).toContain('http_requests_total{method="DELETE",route="/api/v2/scan/:scan_id",status_code="405"}');
  });
});

describe("a scan's counts", () => {
  it("keep their flat keys and gain `summary`, the same figures grouped", async () => {
    const res = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
    expect(res.status).toBe(200);
    const { counts, summary } = res.body as { counts: Record<string, number>; summary: Record<string, unknown> };
    expect(counts).toMatchObject({ CRITICAL: 1, HIGH: 1, LOW: 1, total: 3, to_review: 3 });
    expect(summary).toEqual({
      by_severity: { CRITICAL: counts.CRITICAL, HIGH: counts.HIGH, MEDIUM: counts.MEDIUM, LOW: counts.LOW, INFO: counts.INFO },
      by_status: {
        "TO REVIEW": counts.to_review,
        "TRUE POSITIVE": counts.true_positive,
        "FALSE POSITIVE": counts.false_positive,
        "ACCEPTED RISK": counts.accepted_risk,
        FIXED: counts.marked_fixed,
      },
      open: counts.total,
      new: counts.new,
      introduced: counts.introduced,
      fixed: counts.fixed,
      suppressed: counts.suppressed,
    });
    // Every value of `counts` is still a number: clients that add them up keep working.
    expect(Object.values(counts).every((v) => typeof v === "number")).toBe(true);
  });

  it("follow triage in both forms", async () => {
    const low = (await request(h.app).get(`/api/v2/scan/${scanId}/findings?severity=low`).set(key())).body.findings[0].finding_id as string;
    expect((await request(h.app).put(`/api/v2/scan/${scanId}/finding/${low}`).set(key()).send({ status: "false positive" })).status).toBe(
      200,
    );
    const { counts, summary } = (await request(h.app).get(`/api/v2/scan/${scanId}`).set(key())).body;
    expect(counts).toMatchObject({ LOW: 0, total: 2, false_positive: 1 });
    expect(summary).toMatchObject({ by_severity: { LOW: 0 }, by_status: { "FALSE POSITIVE": 1, "TO REVIEW": 2 }, open: 2 });
    const listed = (await request(h.app).get("/api/v2/scan").set(key())).body.scans.find((s: { scan_id: string }) => s.scan_id === scanId);
    expect(listed.summary).toEqual(summary);
  });

  it("are null in `summary` while `counts` is {} (a scan that has counted nothing), on public scans too", async () => {
    const queued = (await request(h.app).get(`/api/v2/scan/${queuedScanId}`).set(key())).body;
    expect(queued).toMatchObject({ state: "queued", counts: {}, summary: null });
    const pub = (await request(h.app).get(`/api/v2/public/scan/${publicScanId}`)).body;
    expect(pub).toMatchObject({ counts: {}, summary: null });
  });
});

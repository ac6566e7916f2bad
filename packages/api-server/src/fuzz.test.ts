// Property-based fuzzing of every operation in the OpenAPI document, against the real app on
// real PostgreSQL and Redis. Nothing is faked. No worker runs, so the scans POST /scan and
// POST /public/scan queue are never cloned, and git_uri only ever names loopback or local
// repositories, or a reserved name (RFC 2606 .test) that resolves nowhere.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Worker } from "bullmq";
import fc from "fast-check";
import request from "supertest";
import { FINDING_STATUSES, LEVELS, SEVERITIES } from "@ax/contracts";
import { createGroup, createScan, createToken, createUser, createWebhook, findOrCreateProject, generateToken, revokeToken } from "@ax/db";
import { workerConnection } from "@ax/queue";
import { makeGitRepo, testConfig } from "@ax/testkit";
import { API_VERSION, apiRoutes } from "./app";
import { invalidCase } from "../test/fuzz-mutations";
import { seedPublicScan, seedTenant, type Ids } from "../test/fuzz-seed";
import {
  contractViolations,
  operationsOf,
  text,
  Ref,
  validCase,
  type Answer,
  type FuzzCase,
  type Hints,
  type IdName,
  type OpenApiDoc,
  type Operation,
  type Role,
  type Val,
  wellFormed,
} from "../test/fuzz-support";
import type { AppDeps } from "./http/context";
import { buildOpenApi } from "./http/openapi";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

/** Fixed, so a run is reproducible; operation i uses SEED + i (valid) and SEED + 1000 + i (invalid). */
const SEED = 20_240_917;
const VALID_RUNS = 100;
const INVALID_RUNS = 200;

// The same route table and generator as the served document (the first test checks they
// agree); built here because Jest needs the list of operations before beforeAll runs.
const routes = apiRoutes({ config: testConfig() } as AppDeps);
const DOC = JSON.parse(JSON.stringify(buildOpenApi(routes, { version: API_VERSION }))) as OpenApiDoc;
// Reads first, destructive routes last (and those only against throwaway objects, below).
const ORDER = { get: 0, post: 1, put: 2, patch: 2, delete: 3 };
const OPS = operationsOf(DOC, routes).sort((a, b) => ORDER[a.method] - ORDER[b.method]);

let h: ApiHarness;
let server: http.Server;
let base: string;
let ids: { self: Ids; other: Ids };
let tokens: Record<Role, string>;
/** An instance administrator: "owner" cases of the Admin operations use it. */
let adminToken: string;
let badTokens: Record<"expired" | "revoked" | "unknown", string>;
let repo: string;
/** A completed public scan with one finding: the path id of the public read operations. */
let publicScanId: string;

/**
 * Destructive operations get a new object of the caller's tenant for every case, so deleting
 * a group, cancelling a scan or revoking a token never removes what other cases read.
 */
let doomed = 0;
const FRESH: Record<string, Partial<Record<IdName, () => Promise<string>>>> = {
  deleteGroup: {
    group_id: async () => {
      const db = h.stack.handle.db;
      const t = h.tenant;
      const group = (await createGroup(db, t.organization_id, `fuzz-doomed-${++doomed}`))!;
      const project = await findOrCreateProject(db, {
        organizationId: t.organization_id,
        groupId: group.id,
        gitUrl: `file:///doomed-${doomed}`,
        name: "doomed",
      });
      await createScan(db, {
        organizationId: t.organization_id,
        groupId: group.id,
        projectId: project.id,
        createdBy: t.user_id,
        gitUri: `file:///doomed-${doomed}`,
        branch: null,
        idempotencyKey: null,
        requestHash: null,
      });
      return group.id;
    },
  },
  cancelScan: {
    scan_id: async () => {
      const t = h.tenant;
      const { scan } = await createScan(h.stack.handle.db, {
        organizationId: t.organization_id,
        groupId: t.group_id,
        projectId: ids.self.project_id,
        createdBy: t.user_id,
        gitUri: "file:///repo",
        branch: null,
        idempotencyKey: null,
        requestHash: null,
      });
      return scan.id;
    },
  },
  // Not destructive: the public reads take the public scan where others take the tenant's.
  getPublicScan: { scan_id: async () => publicScanId },
  listPublicScanFindings: { scan_id: async () => publicScanId },
  revokeToken: {
    token_id: async () =>
      (await createToken(h.stack.handle.db, { userId: h.tenant.user_id, name: "fuzz-doomed", expiresInDays: 1 })).record.id,
  },
  retryFailedJob: { job_id: () => freshFailedJob() },
  removeFailedJob: { job_id: () => freshFailedJob() },
  deleteWebhook: {
    webhook_id: async () =>
      (
        await createWebhook(h.stack.handle.db, {
          organizationId: h.tenant.organization_id,
          url: "https://hooks.example.test/doomed",
          events: ["scan.failed"],
          secret: "whsec_doomed",
          createdBy: h.tenant.user_id,
        })
      ).id,
  },
};

/**
 * A failed job on the maintenance queue (which nothing else here fills), failed by hand: a
 * processor-less BullMQ worker takes the next job and fails it. No worker runs in this suite.
 */
let failedJobs = 0;
async function freshFailedJob(): Promise<string> {
  const queue = h.deps.queue.queue("maintenance");
  await queue.resume(); // a fuzzed pause must not stop this
  await queue.add("fuzz.failing", {}, { jobId: `fuzz-failed-${++failedJobs}`, attempts: 1 });
  failingConnection ??= workerConnection(h.stack.config.redis.url);
  failingWorker ??= new Worker("maintenance", null, { connection: failingConnection, prefix: h.stack.config.redis.queuePrefix });
  const job = await failingWorker.getNextJob("fuzz");
  if (!job?.id) throw new Error("no job to fail");
  await job.moveToFailed(new Error("failed on purpose"), "fuzz", false);
  return job.id;
}
let failingWorker: Worker | undefined;
let failingConnection: ReturnType<typeof workerConnection> | undefined;

beforeAll(async () => {
  // Thousands of requests from one token: the limits have their own suite (limits.test.ts).
  h = await createApiHarness({ env: { RATE_LIMIT_ENABLED: "false", MAX_SCANS_IN_FLIGHT_PER_ORG: "0", PUBLIC_SCAN_MAX_IN_FLIGHT: "0" } });
  const db = h.stack.handle.db;
  publicScanId = await seedPublicScan(db);
  ids = {
    self: await seedTenant(db, h.tenant),
    other: {
      organization_id: "",
      group_id: "",
      project_id: "",
      scan_id: "",
      finding_id: "",
      token_id: "",
      request_id: "",
      webhook_id: "",
      job_id: "",
    },
  };
  const other = await h.otherTenant();
  ids.other = await seedTenant(db, other);
  adminToken = (
    await createToken(db, {
      userId: (
        await createUser(db, {
          email: "operator@acme.test",
          displayName: "Olga Operator",
          identityProvider: "local",
          isInstanceAdmin: true,
        })
      ).id,
      name: "admin",
      expiresInDays: 1,
    })
  ).token;
  tokens = { owner: h.tenant.token, viewer: await h.member("viewer"), member: await h.member("member"), other: other.token };
  const expired = await createToken(db, { userId: h.tenant.user_id, name: "expired", expiresInDays: -1 });
  const revoked = await createToken(db, { userId: h.tenant.user_id, name: "revoked", expiresInDays: 5 });
  await revokeToken(db, h.tenant.user_id, revoked.record.id);
  badTokens = { expired: expired.token, revoked: revoked.token, unknown: generateToken() };
  repo = makeGitRepo({ "app.js": "module.exports = 1;\n" });
  server = http.createServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  printSummary();
  await failingWorker?.close();
  failingConnection?.disconnect();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// Domain knowledge the JSON Schemas cannot carry.

const csv = (values: readonly string[]) => fc.subarray([...values], { minLength: 1 }).map((v) => v.join(","));
const label = (values: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...values), fc.constantFrom(" ", "_", "-"))
    .map(([v, sep]) => v.replace(/ /g, sep))
    .chain((v) => fc.constantFrom(v, v.toLowerCase()));
const cursor = fc
  .record(
    {
      t: fc.oneof(
        text(0, 20),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.integer(),
      ),
      id: fc.oneof(fc.uuid(), text(0, 20)),
      rank: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer(), fc.double(), text(0, 20)),
      file: fc.oneof(text(0, 20), fc.integer()),
      line: fc.oneof(fc.nat(1000), fc.integer(), fc.double(), text(0, 20)),
      ai: fc.oneof(fc.double({ min: 0, max: 1 }), fc.double(), text(0, 20)),
      k: fc.oneof(text(0, 20), fc.integer()),
    },
    { requiredKeys: [] },
  )
  .map((o) => Buffer.from(JSON.stringify(o), "utf8").toString("base64url"));

/**
 * Webhook targets: reserved names (RFC 2606 .test, .example) and internal or malformed URLs.
 * No worker runs here, so nothing is ever delivered; the API only checks them.
 */
const SAFE_WEBHOOK_URLS = [
  "https://hooks.example.test/ax",
  "https://example.test:8443/h?x=1",
  "https://hooks.example/ax",
  "http://hooks.example.test/plain",
  "https://127.0.0.1/x",
  "https://10.0.0.5/x",
  "https://[::1]/x",
  "https://169.254.169.254/latest",
  "https://metadata.internal/x",
  "https://user:pw@hooks.example.test/x",
  "ftp://hooks.example.test/x",
  "not a url",
  "",
];

/**
 * Loopback, local, a reserved name (RFC 2606: resolves nowhere; the only https URL that public
 * scans accept, and no worker runs to try) or plainly invalid; never a host on a network.
 */
const SAFE_GIT_URIS = () => [
  repo,
  "https://git.example.test/fuzz/repo.git",
  `file://${repo}`,
  `${repo}/.git`,
  "http://127.0.0.1:1/x",
  "http://[::1]:1/x.git",
  "https://127.0.0.1:1/x",
  "http://localhost:1/x",
  "ext::sh -c touch% /tmp/ax-fuzz-pwned",
  "fd::17",
  "-oProxyCommand=touch /tmp/ax-fuzz-pwned",
  "--upload-pack=touch /tmp/ax-fuzz-pwned",
  "git@127.0.0.1:x/y.git",
  "ssh://127.0.0.1:1/x",
  "file:///../../etc",
  "/tmp/../etc/passwd",
  "http://user:pw@127.0.0.1:1/x",
  "http://127.0.0.1:1/x?q=1#f",
  "not a url",
  "",
  " ",
];
const safeRandom = (s: fc.Arbitrary<unknown>) => s.filter((v) => typeof v === "string" && !/[:@]/.test(v));

function hints(): Hints {
  return {
    "path.name": (s) =>
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom("maintenance", "scans", "webhooks") }, { weight: 1, arbitrary: s }),
    "path.status": (s) =>
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom("true", "false", "TRUE", "False") }, { weight: 1, arbitrary: s }),
    "body.git_uri": (s) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SAFE_GIT_URIS()) }, { weight: 1, arbitrary: safeRandom(s) }),
    "body.status": (s) => fc.oneof({ weight: 3, arbitrary: label(FINDING_STATUSES) }, { weight: 1, arbitrary: s }),
    "body.severity": (s) => fc.oneof({ weight: 3, arbitrary: label(SEVERITIES) }, { weight: 1, arbitrary: s }),
    "body.likelihood": (s) => fc.oneof({ weight: 3, arbitrary: label(LEVELS) }, { weight: 1, arbitrary: s }),
    "body.confidence": (s) => fc.oneof({ weight: 3, arbitrary: label(LEVELS) }, { weight: 1, arbitrary: s }),
    "body.url": (s) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SAFE_WEBHOOK_URLS) }, { weight: 1, arbitrary: safeRandom(s) }),
    "body.sessione_id": (s) => fc.oneof(fc.stringMatching(/^[\w.:@-]{1,64}$/), s),
    "query.cursor": (s) => fc.oneof(s, cursor),
    "query.severity": (s) => fc.oneof(csv(SEVERITIES.map((v) => v.toLowerCase())), s),
    "query.status": (s) => fc.oneof(csv(FINDING_STATUSES), s),
    "query.baseline": (s) => fc.oneof(csv(["new", "unchanged", "absent"]), s),
    "query.ai_class": (s) => fc.oneof(csv(["true_positive", "FALSE-POSITIVE"]), s),
    "header.Idempotency-Key": () => fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
    "header.If-Match": () => fc.integer({ min: 0, max: 4 }).chain((n) => fc.constantFrom(`"${n}"`, `W/"${n}"`, String(n))),
  };
}

// ---------------------------------------------------------------------------------------
// Running one case.

interface Stats {
  valid: number;
  invalid: number;
  validOk: number;
  statuses: Record<number, number>;
  violations: Map<string, { count: number; example: string }>;
}
const stats = new Map<string, Stats>();
const started = Date.now();

async function exercise(op: Operation, c: FuzzCase, s: Stats): Promise<void> {
  const fresh = new Map<IdName, string>();
  const resolve = async (v: Val): Promise<string> => {
    if (typeof v === "string") return v;
    const make = v.tenant === "self" ? FRESH[op.doc.operationId]?.[v.name] : undefined;
    if (!make) return ids[v.tenant][v.name];
    if (!fresh.has(v.name)) fresh.set(v.name, await make());
    return fresh.get(v.name)!;
  };

  let path = op.path;
  for (const [name, v] of Object.entries(c.params)) path = path.replace(`{${name}}`, encodeURIComponent(wellFormed(await resolve(v))));
  const query: [string, string][] = [];
  for (const [k, v] of c.query) query.push([wellFormed(k), wellFormed(await resolve(v))]);
  const credentials: string[] = [];
  const headers: Record<string, string> = { ...c.headers };
  const auth = c.auth;
  if (auth.kind === "role") credentials.push(auth.role === "owner" && op.route.tags.includes("Admin") ? adminToken : tokens[auth.role]);
  if (auth.kind === "garbage") credentials.push(auth.value);
  if (auth.kind === "known-bad") credentials.push(badTokens[auth.which]);
  if (auth.kind === "in-query") query.push(["X-AX-KEY", tokens.owner], ["token", tokens.owner]);
  if (credentials[0]) headers["X-AX-KEY"] = credentials[0];
  const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const url = `${path}${qs ? `?${qs}` : ""}`;

  let data: string | Buffer | undefined;
  if (c.body?.kind === "json") {
    const value: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(
      c.body.value && typeof c.body.value === "object" && !Array.isArray(c.body.value) ? c.body.value : {},
    ))
      value[k] = v instanceof Ref ? await resolve(v) : v;
    // Never a URL the service could reach, whatever a mutation put there.
    if (typeof value.git_uri === "string" && !SAFE_GIT_URIS().includes(value.git_uri) && /[:@]/.test(value.git_uri))
      value.git_uri = "not-a-url";
    data = JSON.stringify(c.body.value && typeof c.body.value === "object" && !Array.isArray(c.body.value) ? value : c.body.value);
    headers["Content-Type"] = "application/json";
  } else if (c.body?.kind === "raw") {
    data = c.body.data;
    headers["Content-Type"] = c.body.contentType;
  }

  const crossTenant =
    auth.kind === "role" &&
    Object.values(c.params).some((v) => v instanceof Ref && v.tenant !== (auth.role === "other" ? "other" : "self"));
  let violations: string[];
  let status = 0;
  try {
    let req = request(base)[op.method](url).timeout(20_000).buffer(true).parse(asText);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    const res = data === undefined ? await req : await req.send(data);
    status = res.status;
    const answer: Answer = { status, headers: res.headers as Answer["headers"], text: String(res.body ?? "") };
    violations = contractViolations(op, c, answer, credentials.concat(auth.kind === "in-query" ? [tokens.owner] : []), crossTenant);
  } catch (err) {
    violations = [`no answer: ${(err as Error).message}`];
  }
  if (Object.keys(Object.prototype).length || ({} as Record<string, unknown>).polluted !== undefined)
    violations.push("Object.prototype was polluted");

  if (c.kind === "valid") {
    s.valid++;
    if (status >= 200 && status < 300) s.validOk++;
  } else s.invalid++;
  s.statuses[status] = (s.statuses[status] ?? 0) + 1;
  for (const v of violations) {
    const key = `${c.kind}: ${v}`;
    const seen = s.violations.get(key);
    if (seen) seen.count++;
    else s.violations.set(key, { count: 1, example: describeRequest(op, url, headers, data) });
  }
}

/** Every answer as text, whatever its type (superagent would leave unknown types as bytes). */
function asText(res: request.Response, done: (err: Error | null, body: string) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream;
  let body = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => (body += chunk));
  stream.on("end", () => done(null, body));
  stream.on("error", (err: Error) => done(err, body));
}

const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);
function describeRequest(op: Operation, url: string, headers: Record<string, string>, data: string | Buffer | undefined): string {
  const shown = Object.entries(headers).map(([k, v]) => `${k}: ${k === "X-AX-KEY" ? `${v.slice(0, 8)}…` : clip(v, 80)}`);
  const body =
    data === undefined ? "" : ` body ${clip(JSON.stringify(typeof data === "string" ? data : `<bytes ${data.toString("hex")}>`))}`;
  return `${op.method.toUpperCase()} ${clip(url, 400)} [${shown.join("; ")}]${body}`;
}

function printSummary(): void {
  let total = 0;
  let failing = 0;
  const lines: string[] = [];
  for (const [key, s] of stats) {
    total += s.valid + s.invalid;
    failing += [...s.violations.values()].reduce((a, v) => a + v.count, 0);
    const st = Object.entries(s.statuses)
      .map(([k, n]) => `${k}×${n}`)
      .join(" ");
    lines.push(`  ${key}: ${s.valid + s.invalid} cases (${s.valid} valid, ${s.invalid} invalid) → ${st}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `${lines.join("\n")}\nfuzz: ${total} cases over ${stats.size} operations in ${seconds} s ` +
      `(fast-check seed ${SEED}, ${VALID_RUNS} valid + ${INVALID_RUNS} invalid per operation); ${failing} contract violations\n`,
  );
}

// ---------------------------------------------------------------------------------------

describe("fuzzing every operation of the OpenAPI document", () => {
  it("fuzzes the document the service serves", async () => {
    const res = await request(base).get("/api/v2/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DOC);
    expect(OPS.length).toBeGreaterThanOrEqual(25);
  });

  for (const [i, op] of OPS.entries()) {
    it(
      op.key,
      async () => {
        const s: Stats = { valid: 0, invalid: 0, validOk: 0, statuses: {}, violations: new Map() };
        stats.set(op.key, s);
        // The property never throws: every answer is checked and its violations collected, so
        // one run reports all distinct failures with a request each (no shrinking against a
        // live database) and the case counts are complete.
        await fc.assert(
          fc.asyncProperty(validCase(op, hints()), (c) => exercise(op, c, s)),
          { seed: SEED + i, numRuns: VALID_RUNS },
        );
        await fc.assert(
          fc.asyncProperty(invalidCase(op, hints()), (c) => exercise(op, c, s)),
          { seed: SEED + 1000 + i, numRuns: INVALID_RUNS },
        );
        const report = [...s.violations].map(([k, v]) => `${k} (${v.count}×), e.g. ${v.example}`);
        expect(report).toEqual([]);
        // Valid requests reach the handler's success path at least once.
        expect(s.validOk).toBeGreaterThan(0);
      },
      120_000,
    );
  }

  it("refuses JSON bodies that are not UTF-8, UTF-7 included", async () => {
    // RFC 8259 §8.1: JSON between systems is UTF-8, and the error handler tells clients so.
    // UTF-7 would also carry markup past anything that filters the raw bytes: "+ADw-" is "<".
    for (const charset of ["latin1", "utf-7"]) {
      const res = await request(base)
        .post(`/api/v2/organization/${ids.self.organization_id}/group`)
        .set("X-AX-KEY", tokens.owner)
        .set("Content-Type", `application/json; charset=${charset}`)
        .send('{"name":"+ADw-script+AD4-"}');
      expect({ charset, status: res.status, body: res.body as unknown }).toEqual({
        charset,
        status: 415,
        body: { code: 415, error: "unsupported_media_type", message: "Unsupported body encoding; send UTF-8 JSON." },
      });
    }
  });

  it("serves the reference page as HTML to anyone", async () => {
    for (const key of [undefined, "axk_garbage", tokens.owner]) {
      let req = request(base).get("/api/v2/docs");
      if (key) req = req.set("X-AX-KEY", key);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.type).toBe("text/html");
      expect(res.text).not.toContain(tokens.owner);
    }
  });
});

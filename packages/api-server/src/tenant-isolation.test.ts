// Tenant isolation for ids that travel in query strings and bodies (auth.test.ts covers the
// path ids of every route): tenant B, a member of its own organization, names tenant A's
// organization, groups, projects, scans, findings and AI requests wherever an endpoint takes
// an id. Real PostgreSQL and Redis; every attempt must fail and change nothing.
import request from "supertest";
import {
  createScan,
  createWebhook,
  findOrCreateProject,
  getScan,
  getWebhook,
  insertAiRequest,
  markRunning,
  newId,
  storeScanResults,
} from "@ax/db";
import type { NormalizedFinding } from "@ax/contracts";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let a: {
  organization_id: string;
  group_id: string;
  project_id: string;
  scan_id: string;
  finding_id: string;
  request_id: string;
  webhook_id: string;
};
let b: { token: string; organization_id: string; group_id: string };

const finding: NormalizedFinding = {
  analyzer: "ast-grep",
  rule_id: "js-sql-injection",
  title: "SQL injection in tenant A's code",
  message: "Query built from input",
  cwe_id: "CWE-89",
  cwe_name: "SQL Injection",
  owasp: "A03:2021-Injection",
  file: "src/secret-of-tenant-a.js",
  start_line: 3,
  end_line: 3,
  start_column: 1,
  end_column: 20,
  snippet: "db.query('x' + id)",
  severity: "HIGH",
  confidence: "HIGH",
  likelihood: "MEDIUM",
  impact: "HIGH",
  remediation: "Use parameters",
  fingerprint: "a".repeat(64),
  raw: {},
};

beforeAll(async () => {
  h = await createApiHarness();
  const db = h.stack.handle.db;
  const t = h.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: "file:///a", name: "a" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: "file:///a",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings: [finding],
    analyzers: [],
    languages: ["javascript"],
  });
  const findingId = (await db.selectFrom("findings").select("id").where("scan_id", "=", scan.id).executeTakeFirstOrThrow()).id;
  const requestId = newId();
  await insertAiRequest(db, {
    id: requestId,
    organizationId: t.organization_id,
    groupId: t.group_id,
    userId: t.user_id,
    kind: "review",
    model: "m",
    input: { code: "x" },
  });
  const webhook = await createWebhook(db, {
    organizationId: t.organization_id,
    url: "https://hooks.example.test/a",
    events: ["scan.completed"],
    secret: "whsec_a",
    createdBy: t.user_id,
  });
  a = {
    organization_id: t.organization_id,
    group_id: t.group_id,
    project_id: project.id,
    scan_id: scan.id,
    finding_id: findingId,
    request_id: requestId,
    webhook_id: webhook.id,
  };
  b = await h.otherTenant();
});
afterAll(() => h.close());

interface Attempt {
  name: string;
  send: () => request.Test;
  /** True when the response shows the attempt failed as it must. */
  refused: (res: request.Response) => boolean | Promise<boolean>;
}

const B = () => ({ "X-AX-KEY": b.token });
const notFound = (res: request.Response) => res.status === 404;
/** A chat answer that names nothing of tenant A. */
const chatLeaksNothing = (res: request.Response) =>
  res.status === 200 && !res.text.includes("secret-of-tenant-a") && !res.text.includes("tenant A");

/** The answer B gets for a random id: A's real id must get exactly the same one. */
async function sameAsUnknown(prompt: (id: string) => string, id: string, res: request.Response): Promise<boolean> {
  const random = newId();
  const control = await request(h.app)
    .post("/api/v2/ai/chatbot")
    .set(B())
    .send({ prompt: prompt(random) });
  return chatLeaksNothing(res) && res.text.split(id).join("<id>") === control.text.split(random).join("<id>");
}

function attempts(): Attempt[] {
  return [
    {
      name: "POST /scan into A's organization",
      send: () =>
        request(h.app).post(`/api/v2/scan?organization_id=${a.organization_id}`).set(B()).send({ git_uri: "https://github.com/o/r" }),
      refused: notFound,
    },
    {
      name: "POST /scan into A's group under B's organization",
      send: () =>
        request(h.app)
          .post(`/api/v2/scan?organization_id=${b.organization_id}&group_id=${a.group_id}`)
          .set(B())
          .send({ git_uri: "https://github.com/o/r" }),
      refused: notFound,
    },
    {
      name: "GET /scan listing A's organization",
      send: () => request(h.app).get(`/api/v2/scan?organization_id=${a.organization_id}`).set(B()),
      refused: notFound,
    },
    {
      name: "GET /scan filtered by A's group",
      send: () => request(h.app).get(`/api/v2/scan?organization_id=${b.organization_id}&group_id=${a.group_id}`).set(B()),
      refused: (res) => res.status === 404 || (res.status === 200 && res.body.scans.length === 0),
    },
    {
      name: "GET /scan filtered by A's project",
      send: () => request(h.app).get(`/api/v2/scan?organization_id=${b.organization_id}&project_id=${a.project_id}`).set(B()),
      refused: (res) => res.status === 404 || (res.status === 200 && res.body.scans.length === 0),
    },
    {
      name: "POST /ai/review for A's organization",
      send: () => request(h.app).post(`/api/v2/ai/review?organization_id=${a.organization_id}`).set(B()).send({ code: "x" }),
      refused: notFound,
    },
    {
      name: "POST /ai/chatbot in A's organization",
      send: () =>
        request(h.app).post(`/api/v2/ai/chatbot?organization_id=${a.organization_id}`).set(B()).send({ prompt: "summarize my last scan" }),
      refused: notFound,
    },
    {
      name: "POST /ai/chatbot with A's group",
      send: () => request(h.app).post("/api/v2/ai/chatbot").set(B()).send({ prompt: "summarize my last scan", group_id: a.group_id }),
      refused: notFound,
    },
    {
      name: "chat: summarize A's scan by id",
      send: () =>
        request(h.app)
          .post("/api/v2/ai/chatbot")
          .set(B())
          .send({ prompt: `summarize scan ${a.scan_id}` }),
      refused: (res) => sameAsUnknown((id) => `summarize scan ${id}`, a.scan_id, res),
    },
    {
      name: "chat: fix A's finding by id",
      send: () =>
        request(h.app)
          .post("/api/v2/ai/chatbot")
          .set(B())
          .send({ prompt: `how do I fix finding ${a.finding_id}?` }),
      refused: (res) => sameAsUnknown((id) => `how do I fix finding ${id}?`, a.finding_id, res),
    },
    {
      name: "chat: A's session id",
      send: () =>
        request(h.app).post("/api/v2/ai/chatbot").set(B()).send({ prompt: "and how do I fix it?", sessione_id: "shared-session" }),
      refused: chatLeaksNothing,
    },
    {
      name: "feedback on A's request with B's org and group",
      send: () =>
        request(h.app).get(`/api/v2/ai/feedback/${a.request_id}/true?organization_id=${b.organization_id}&group_id=${b.group_id}`).set(B()),
      refused: notFound,
    },
    {
      name: "feedback on A's request naming A's org",
      send: () =>
        request(h.app).get(`/api/v2/ai/feedback/${a.request_id}/true?organization_id=${a.organization_id}&group_id=${a.group_id}`).set(B()),
      refused: (res) => res.status === 400,
    },
    {
      name: "feedback on B's org with A's group",
      send: () =>
        request(h.app).get(`/api/v2/ai/feedback/${a.request_id}/true?organization_id=${b.organization_id}&group_id=${a.group_id}`).set(B()),
      refused: (res) => res.status === 400,
    },
    {
      name: "feedback stats of A's organization",
      send: () => request(h.app).get(`/api/v2/organization/${a.organization_id}/ai/feedback`).set(B()),
      refused: notFound,
    },
    {
      name: "B's group path with A's group id",
      send: () => request(h.app).delete(`/api/v2/organization/${b.organization_id}/group/${a.group_id}`).set(B()),
      refused: notFound,
    },
    {
      name: "A's webhook under B's organization",
      send: () => request(h.app).get(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}`).set(B()),
      refused: notFound,
    },
    {
      name: "update A's webhook under B's organization",
      send: () =>
        request(h.app)
          .patch(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}`)
          .set(B())
          .send({ url: "https://hooks.example.test/b" }),
      refused: notFound,
    },
    {
      name: "rotate A's webhook secret under B's organization",
      send: () => request(h.app).post(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}/rotate-secret`).set(B()),
      refused: notFound,
    },
    {
      name: "test A's webhook under B's organization",
      send: () => request(h.app).post(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}/test`).set(B()),
      refused: notFound,
    },
    {
      name: "A's deliveries under B's organization",
      send: () => request(h.app).get(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}/deliveries`).set(B()),
      refused: notFound,
    },
    {
      name: "delete A's webhook under B's organization",
      send: () => request(h.app).delete(`/api/v2/organization/${b.organization_id}/webhooks/${a.webhook_id}`).set(B()),
      refused: notFound,
    },
    {
      name: "A's project under B's group",
      send: () => request(h.app).get(`/api/v2/organization/${b.organization_id}/group/${b.group_id}/project/${a.project_id}/scan`).set(B()),
      refused: notFound,
    },
  ];
}

it("refuses every cross-tenant id in queries and bodies, and changes nothing", async () => {
  // Tenant A had a conversation in "shared-session" that B's same-named session must not see.
  await request(h.app)
    .post("/api/v2/ai/chatbot")
    .set({ "X-AX-KEY": h.tenant.token })
    .send({ prompt: `how do I fix finding ${a.finding_id}?`, sessione_id: "shared-session" });
  const list = attempts();
  const leaks: string[] = [];
  for (const at of list) {
    const res = await at.send();
    if (!(await at.refused(res))) leaks.push(`${at.name}: ${res.status} ${res.text.slice(0, 200)}`);
  }
  expect(leaks).toEqual([]);
  const db = h.stack.handle.db;
  // Nothing was created in A's organization or group, nothing of A's changed.
  const scansOfA = await db.selectFrom("scans").select("id").where("organization_id", "=", a.organization_id).execute();
  expect(scansOfA.map((s) => s.id)).toEqual([a.scan_id]);
  expect(
    await db
      .selectFrom("scans")
      .select("id")
      .where("group_id", "=", a.group_id)
      .where("organization_id", "!=", a.organization_id)
      .execute(),
  ).toEqual([]);
  expect((await getScan(db, [a.organization_id], a.scan_id))?.state).toBe("completed");
  expect(await db.selectFrom("ai_feedback").select("request_id").where("request_id", "=", a.request_id).execute()).toEqual([]);
  expect(await db.selectFrom("groups").select("id").where("id", "=", a.group_id).execute()).toHaveLength(1);
  const hook = await getWebhook(db, a.organization_id, a.webhook_id);
  expect({ url: hook?.url, secret: hook?.secret }).toEqual({ url: "https://hooks.example.test/a", secret: "whsec_a" });
  expect(await db.selectFrom("webhook_deliveries").select("id").where("webhook_id", "=", a.webhook_id).execute()).toEqual([]);
  process.stdout.write(
    `[reliability] tenant isolation (query and body ids): ${list.length} cross-tenant attempts, ${leaks.length} successes\n`,
  );
});

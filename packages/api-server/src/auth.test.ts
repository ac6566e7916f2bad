// Real PostgreSQL and Redis. The matrix is built from the app's own route table, so a new
// endpoint is covered the day it is added.
import request from "supertest";
import {
  createScan,
  createToken,
  createWebhook,
  findOrCreateProject,
  generateToken,
  getFinding,
  getGroup,
  getWebhook,
  insertAiRequest,
  listTokens,
  markRunning,
  newId,
  revokeToken,
  storeScanResults,
} from "@ax/db";
import { apiRoutes } from "./app";
import { queryNames, type AnyRoute } from "./http/route";
import { createApiHarness, SEED_FINDING, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
const ids: Record<string, string> = {};
let other: { token: string; organization_id: string; group_id: string };
let badTokens: Record<string, string>;
let routes: AnyRoute[];

const seedFinding = SEED_FINDING;

beforeAll(async () => {
  h = await createApiHarness();
  const db = h.stack.handle.db;
  const t = h.tenant;
  const project = await findOrCreateProject(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    gitUrl: "file:///repo",
    name: "repo",
  });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: "file:///repo",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings: [seedFinding],
    analyzers: [],
    languages: ["javascript"],
  });
  const finding = (await db.selectFrom("findings").select("id").where("scan_id", "=", scan.id).executeTakeFirstOrThrow()).id;
  const token = (await listTokens(db, t.user_id))[0]!;
  const aiRequest = newId();
  await insertAiRequest(db, {
    id: aiRequest,
    organizationId: t.organization_id,
    groupId: null,
    userId: t.user_id,
    kind: "review",
    model: "m",
    input: { code: "x" },
  });
  const webhook = await createWebhook(db, {
    organizationId: t.organization_id,
    url: "https://hooks.example.test/ax",
    events: ["scan.completed"],
    secret: "whsec_seed",
    createdBy: t.user_id,
  });
  Object.assign(ids, {
    organization_id: t.organization_id,
    group_id: t.group_id,
    project_id: project.id,
    scan_id: scan.id,
    finding_id: finding,
    token_id: token.id,
    request_id: aiRequest,
    webhook_id: webhook.id,
    status: "true",
  });

  other = await h.otherTenant();
  const expired = await createToken(db, { userId: t.user_id, name: "expired", expiresInDays: -1 });
  const revoked = await createToken(db, { userId: t.user_id, name: "revoked", expiresInDays: 5 });
  await revokeToken(db, t.user_id, revoked.record.id);
  badTokens = {
    malformed: "axk_not-a-token",
    "bad checksum": t.token.slice(0, -6) + "000000",
    unknown: generateToken(),
    expired: expired.token,
    revoked: revoked.token,
    "query string instead of header": "",
  };
  routes = apiRoutes(h.deps).filter((r) => r.auth !== "public");
});
afterAll(() => h.close());

const BODIES: Record<string, unknown> = {
  "POST /scan": { git_uri: "https://github.com/owner/repo" },
  "PUT /scan/:scan_id/finding/:finding_id": { status: "FALSE POSITIVE" },
  "POST /organization/:organization_id/group": { name: "intruders" },
  "POST /profile/tokens": { name: "x" },
  "POST /ai/review": { code: "x" },
  "POST /ai/chatbot": { prompt: "who am I?" },
  "POST /:organization_id/chatbot": { prompt: "who am I?" },
  "POST /organization/:organization_id/webhooks": { url: "https://hooks.example.test/intruder", events: ["scan.completed"] },
  "PATCH /organization/:organization_id/webhooks/:webhook_id": { url: "https://hooks.example.test/intruder" },
  "PUT /organization/:organization_id/group/:group_id/ai-policy": { auto_close_at: 0.99 },
};

/** The organization in the query, for the routes that take it (an unknown query parameter is a 400). */
const orgQuery = (r: AnyRoute) => (queryNames(r.query).includes("organization_id") ? `?organization_id=${ids.organization_id}` : "");

/** Answers in Markdown, errors included (DESIGN §4). */
const isChat = (r: AnyRoute) => r.path.endsWith("/chatbot");
/** Reading or asking, not changing anything: open to viewers. */
const VIEWER_POSTS = new Set(["/ai/review", "/ai/chatbot", "/:organization_id/chatbot"]);
/** Reads for admins and owners only. */
const ADMIN_READS = new Set([
  "/organization/:organization_id/ai/feedback",
  // Webhook URLs may carry a capability of their own (docs/decisions.md).
  "/organization/:organization_id/webhooks",
  "/organization/:organization_id/webhooks/:webhook_id",
  "/organization/:organization_id/webhooks/:webhook_id/deliveries",
]);
const UNAUTHORIZED = "A valid personal access token is required in the X-AX-KEY header.";

function call(r: AnyRoute, token: string | undefined, query = "") {
  const path = `/api/v2${r.path.replace(/:([a-z_]+)/g, (_m, p: string) => ids[p] ?? "missing")}${query}`;
  let req = request(h.app)[r.method](path);
  if (token) req = req.set("X-AX-KEY", token);
  const body = BODIES[`${r.method.toUpperCase()} ${r.path}`];
  return body ? req.send(body as object) : req;
}

describe("authentication on every non-public endpoint", () => {
  it("covers the endpoints of the spec", () => {
    const names = routes.map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        "POST /scan",
        "PUT /scan/:scan_id/finding/:finding_id",
        "DELETE /organization/:organization_id/group/:group_id",
      ]),
    );
    expect(routes.length).toBeGreaterThanOrEqual(15);
  });

  it("answers 401 with one and the same body for a missing, malformed, unknown, expired or revoked token", async () => {
    const failures: string[] = [];
    for (const r of routes) {
      for (const [kind, token] of [["missing", undefined], ...Object.entries(badTokens)] as [string, string | undefined][]) {
        const query = kind === "query string instead of header" ? `?X-AX-KEY=${h.tenant.token}&token=${h.tenant.token}` : "";
        const res = await call(r, token, query);
        const ok = isChat(r)
          ? res.status === 401 && /^text\/markdown/.test(res.type) && res.text === `**Error 401.** ${UNAUTHORIZED}\n`
          : res.status === 401 && res.body.code === 401 && res.body.message === UNAUTHORIZED;
        if (!ok) failures.push(`${r.method} ${r.path} with ${kind} token: ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
    process.stdout.write(
      `[reliability] authentication: ${routes.length * (Object.keys(badTokens).length + 1)} requests with a missing or bad token ` +
        `on ${routes.length} endpoints, ${failures.length} let through\n`,
    );
  });

  it("answers 404 to another tenant for every object of this one, and changes nothing", async () => {
    const failures: string[] = [];
    for (const r of routes) {
      if (r.path.startsWith("/profile") && !r.path.includes(":token_id")) continue; // one's own profile
      if (r.tags.includes("Admin")) continue; // instance-wide, no tenant's objects: admin.test.ts
      // Routes without an id in the path name the organization in the query. Feedback names
      // the caller's own organization and group (DESIGN §5: a foreign organization is a 400)
      // and this tenant's request id.
      const query = r.path.startsWith("/ai/feedback")
        ? `?organization_id=${other.organization_id}&group_id=${other.group_id}`
        : r.path.includes(":") && !r.path.startsWith("/ai/")
          ? ""
          : `?organization_id=${ids.organization_id}`;
      const res = await call(r, other.token, query);
      if (res.status !== 404) failures.push(`${r.method} ${r.path}: ${res.status}`);
    }
    expect(failures).toEqual([]);
    process.stdout.write(
      `[reliability] tenant isolation (path ids): ${routes.length} endpoints tried with another tenant's token, ${failures.length} successes\n`,
    );
    const db = h.stack.handle.db;
    expect((await getFinding(db, ids.organization_id!, ids.scan_id!, ids.finding_id!))?.status).toBe("TO REVIEW");
    expect(await getGroup(db, ids.organization_id!, ids.group_id!)).toBeDefined();
    expect((await listTokens(db, h.tenant.user_id)).find((t) => t.id === ids.token_id)?.revoked_at).toBeNull();
    expect((await getWebhook(db, ids.organization_id!, ids.webhook_id!))?.url).toBe("https://hooks.example.test/ax");
  });

  it("lets a viewer read but not write", async () => {
    const viewer = await h.member("viewer");
    const writes = routes.filter((r) => r.method !== "get" && !r.path.startsWith("/profile") && !VIEWER_POSTS.has(r.path));
    expect(writes.length).toBeGreaterThanOrEqual(5);
    for (const r of writes) {
      const res = await call(r, viewer, r.path.includes(":") ? "" : orgQuery(r));
      expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({ route: `${r.method} ${r.path}`, status: 403 });
    }
    // Admin (instance admins only, 403 to every organization role): admin.test.ts.
    const reads = routes.filter(
      (r) => (r.method === "get" || VIEWER_POSTS.has(r.path)) && !ADMIN_READS.has(r.path) && !r.tags.includes("Admin"),
    );
    for (const r of reads) {
      const query = r.path.startsWith("/ai/feedback")
        ? `?organization_id=${ids.organization_id}&group_id=${ids.group_id}`
        : r.path.includes(":") && !r.path.startsWith("/ai/")
          ? ""
          : orgQuery(r);
      const res = await call(r, viewer, query);
      expect({ route: r.path, status: res.status }).toEqual({ route: r.path, status: 200 });
    }
    for (const path of ADMIN_READS) {
      const r = routes.find((x) => x.path === path) as AnyRoute;
      expect({ route: path, status: (await call(r, viewer)).status }).toEqual({ route: path, status: 403 });
    }
    expect((await getFinding(h.stack.handle.db, ids.organization_id!, ids.scan_id!, ids.finding_id!))?.status).toBe("TO REVIEW");
  });
});

// Webhooks end to end: real PostgreSQL, Redis, API and an in-process worker. Receivers are
// HTTP servers this file starts on 127.0.0.1; names are answered by an injected resolver,
// so no name is looked up for real and no traffic leaves the loopback interface.
import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { verifyWebhookSignature } from "@ax/contracts";
import { createWebhook, getScan, recordWebhookEvent } from "@ax/db";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { scanEndedEvent } from "@ax/events";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}
interface Receiver {
  url: string;
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

/** A loopback server; `answer` decides each response from the hit's number (0-based). */
async function receiver(
  answer: (n: number, res: http.ServerResponse) => void = (_n, res) => res.writeHead(200).end("ok"),
): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      hits.push({ headers: req.headers, body });
      answer(hits.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  receivers.push(server);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const receivers: http.Server[] = [];
const asked: string[] = [];
const names = new Map<string, string[]>();
let h: ApiHarness;
let repo: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });
const base = () => `/api/v2/organization/${h.tenant.organization_id}/webhooks`;

beforeAll(async () => {
  h = await createApiHarness({
    env: {
      RATE_LIMIT_ENABLED: "false",
      WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
      WEBHOOK_ATTEMPTS: "3",
      WEBHOOK_BACKOFF_MS: "100",
      WEBHOOK_TIMEOUT_MS: "700",
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    },
  });
  await h.startWorker({
    resolveHost: async (host) => {
      asked.push(host);
      const answer = names.get(host);
      if (!answer) throw Object.assign(new Error(`no such name ${host}`), { code: "ENOTFOUND" });
      return answer;
    },
  });
  repo = makeGitRepo({ "src/app.js": "const x = req.body.code;\neval(x);\n" });
}, 60_000);

afterAll(async () => {
  for (const s of receivers) {
    s.closeAllConnections();
    s.close();
  }
  await h?.close();
  if (repo) fs.rmSync(repo, { recursive: true, force: true });
});

async function createHook(body: Record<string, unknown>, token = h.tenant.token) {
  return request(h.app).post(base()).set("X-AX-KEY", token).send(body);
}

async function deliveries(webhookId: string) {
  const res = await request(h.app).get(`${base()}/${webhookId}/deliveries`).set(key());
  expect(res.status).toBe(200);
  return res.body.deliveries as {
    delivery_id: string;
    event_type: string;
    state: string;
    attempts: number;
    last_status: number | null;
    last_error: string | null;
  }[];
}

const settled = (webhookId: string, deliveryId: string) =>
  waitFor(async () => (await deliveries(webhookId)).find((d) => d.delivery_id === deliveryId && d.state !== "pending"), {
    timeoutMs: 15_000,
    what: `delivery ${deliveryId}`,
  });

async function sendTest(webhookId: string): Promise<string> {
  const res = await request(h.app).post(`${base()}/${webhookId}/test`).set(key());
  expect(res.status).toBe(200);
  return res.body.delivery_id as string;
}

describe("managing webhooks", () => {
  it("creates, lists, updates and deletes them; the secret is shown once and stored encrypted", async () => {
    const created = await createHook({
      url: "https://hooks.example.test/ax",
      events: ["scan.completed", "scan.completed", "group.deleted"],
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ url: "https://hooks.example.test/ax", events: ["scan.completed", "group.deleted"], active: true });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const id = created.body.webhook_id as string;
    const row = await h.stack.handle.db.selectFrom("webhooks").select("secret").where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.secret).toMatch(/^enc:v1:/);
    expect(row.secret).not.toContain(created.body.secret.slice(6));

    const list = await request(h.app).get(base()).set(key());
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");

    const patched = await request(h.app)
      .patch(`${base()}/${id}`)
      .set(key())
      .send({ events: ["finding.triaged"], active: false });
    expect(patched.body).toMatchObject({
      webhook_id: id,
      events: ["finding.triaged"],
      active: false,
      url: "https://hooks.example.test/ax",
    });
    expect((await request(h.app).patch(`${base()}/${id}`).set(key()).send({})).status).toBe(400);

    // A test delivery to a name nobody answers: it fails, and goes with the webhook.
    await sendTest(id);
    expect((await request(h.app).delete(`${base()}/${id}`).set(key())).status).toBe(200);
    expect((await request(h.app).get(`${base()}/${id}`).set(key())).status).toBe(404);
    expect(await h.stack.handle.db.selectFrom("webhook_deliveries").select("id").where("webhook_id", "=", id).execute()).toEqual([]);
  });

  it.each([
    ["https://10.0.0.5/x", /private/],
    ["https://169.254.169.254/latest/meta-data", /private/],
    ["https://metadata.internal/x", /internal/],
    ["ftp://hooks.example.test/x", /https/],
    ["https://user:pw@hooks.example.test/x", /credentials/],
  ])("refuses the target %s with a 400 naming the reason", async (url, why) => {
    const res = await createHook({ url, events: ["scan.failed"] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(why);
  });

  it("lets admins and owners manage webhooks, refuses members and viewers, and hides them from other tenants", async () => {
    const admin = await h.member("admin");
    const created = await createHook({ url: "https://hooks.example.test/admin", events: ["scan.failed"] }, admin);
    expect(created.status).toBe(200);
    const id = created.body.webhook_id as string;
    for (const role of ["member", "viewer"] as const) {
      const token = await h.member(role);
      expect((await request(h.app).get(base()).set("X-AX-KEY", token)).status).toBe(403);
      expect((await createHook({ url: "https://hooks.example.test/x", events: ["scan.failed"] }, token)).status).toBe(403);
      expect((await request(h.app).delete(`${base()}/${id}`).set("X-AX-KEY", token)).status).toBe(403);
    }
    const other = await h.otherTenant();
    expect((await request(h.app).get(`${base()}/${id}`).set("X-AX-KEY", other.token)).status).toBe(404);
    expect(
      (await request(h.app).get(`/api/v2/organization/${other.organization_id}/webhooks/${id}`).set("X-AX-KEY", other.token)).status,
    ).toBe(404);
    expect((await request(h.app).delete(`${base()}/${id}`).set(key())).status).toBe(200);
  });
});

describe("events", () => {
  it("delivers scan.completed, scan.failed, finding.triaged and group.deleted once each, signed", async () => {
    const rx = await receiver();
    const created = await createHook({ url: rx.url, events: ["scan.completed", "scan.failed", "finding.triaged", "group.deleted"] });
    const secret = created.body.secret as string;
    const id = created.body.webhook_id as string;
    const ofType = (type: string) => rx.hits.filter((x) => x.headers["x-ax-event"] === type);
    const waitHit = (type: string) => waitFor(async () => ofType(type)[0], { timeoutMs: 60_000, what: `${type} delivery` });

    const scanRes = await request(h.app)
      .post("/api/v2/scan")
      .set(key())
      .send({ git_uri: `file://${repo}` });
    const scanId = scanRes.body.scan_id as string;
    const completed = JSON.parse((await waitHit("scan.completed")).body);
    const scan = (await getScan(h.stack.handle.db, [h.tenant.organization_id], scanId))!;
    // The counts GET /scan/{id} shows (nothing is triaged yet), not the column stored with the scan.
    const shown = (await request(h.app).get(`/api/v2/scan/${scanId}`).set(key())).body as { counts: Record<string, number> };
    expect(shown.counts).toHaveProperty("false_positive", 0);
    expect(completed).toMatchObject({
      type: "scan.completed",
      organization_id: h.tenant.organization_id,
      data: { scan_id: scanId, group_id: scan.group_id, git_uri: `file://${repo}`, state: "completed", counts: shown.counts, error: null },
    });

    const failedRes = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: repo, branch: "no-such-branch" });
    const failed = JSON.parse((await waitHit("scan.failed")).body);
    expect(failed.data).toMatchObject({ scan_id: failedRes.body.scan_id, state: "failed" });
    expect(failed.data.error).toMatch(/no-such-branch/);
    expect(failed.data.counts).toEqual({});

    const finding = (await request(h.app).get(`/api/v2/scan/${scanId}/findings`).set(key())).body.findings[0] as { finding_id: string };
    const put = await request(h.app)
      .put(`/api/v2/scan/${scanId}/finding/${finding.finding_id}`)
      .set(key())
      .send({ status: "true_positive", reason: "reachable" });
    expect(put.status).toBe(200);
    const triaged = JSON.parse((await waitHit("finding.triaged")).body);
    expect(triaged.data).toMatchObject({
      scan_id: scanId,
      finding_id: finding.finding_id,
      changes: { status: "TRUE POSITIVE" },
      version: put.body.finding.version,
    });
    expect(triaged.data.changed_fields.sort()).toEqual(["reason", "status"]);

    const group = await request(h.app).post(`/api/v2/organization/${h.tenant.organization_id}/group`).set(key()).send({ name: "doomed" });
    await request(h.app)
      .post(`/api/v2/scan?group_id=${group.body.group_id}`)
      .set(key())
      .send({ git_uri: `file://${repo}` });
    const deleted = await request(h.app).delete(`/api/v2/organization/${h.tenant.organization_id}/group/${group.body.group_id}`).set(key());
    const groupEvent = JSON.parse((await waitHit("group.deleted")).body);
    expect(groupEvent.data).toEqual({ group_id: group.body.group_id, deleted: deleted.body.deleted });

    // Emitting a scan's ending again (a retried job) records nothing new.
    expect(await recordWebhookEvent(h.stack.handle.db, scanEndedEvent(scan))).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    for (const type of ["scan.completed", "scan.failed", "finding.triaged", "group.deleted"])
      expect({ type, hits: ofType(type).length }).toEqual({ type, hits: 1 });
    for (const hit of rx.hits) {
      const sig = String(hit.headers["x-ax-signature"]);
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(verifyWebhookSignature(secret, hit.body, sig)).toBe(true);
      // The recipe of docs/webhooks.md, spelled out once.
      const [t, v1] = sig.split(",").map((p) => p.split("=")[1]!);
      expect(createHmac("sha256", secret).update(`${t}.${hit.body}`).digest("hex")).toBe(v1);
      expect(hit.body).not.toContain("eval(");
      expect(hit.body).not.toContain("whsec_");
    }
    const log = await deliveries(id);
    expect(log.map((d) => d.state)).toEqual(["delivered", "delivered", "delivered", "delivered"]);
    expect(new Set(rx.hits.map((x) => x.headers["x-ax-delivery"]))).toEqual(new Set(log.map((d) => d.delivery_id)));
  }, 120_000);
});

describe("delivery", () => {
  it("retries a failing receiver with backoff until it answers 2xx, and logs the attempts", async () => {
    const rx = await receiver((n, res) => res.writeHead(n < 2 ? 500 : 204).end());
    const hook = await createHook({ url: rx.url, events: ["scan.failed"] });
    const deliveryId = await sendTest(hook.body.webhook_id);
    const done = await settled(hook.body.webhook_id, deliveryId);
    expect(done).toMatchObject({ state: "delivered", attempts: 3, last_status: 204, last_error: null });
    expect(rx.hits).toHaveLength(3);
    expect(new Set(rx.hits.map((x) => x.body)).size).toBe(1);
    expect(rx.hits.every((x) => x.headers["x-ax-delivery"] === deliveryId && x.headers["x-ax-event"] === "webhook.test")).toBe(true);

    // Cursor pagination of the log.
    await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id));
    const first = await request(h.app).get(`${base()}/${hook.body.webhook_id}/deliveries?limit=1`).set(key());
    expect(first.body.deliveries).toHaveLength(1);
    const second = await request(h.app)
      .get(`${base()}/${hook.body.webhook_id}/deliveries?limit=1&cursor=${first.body.next_cursor}`)
      .set(key());
    expect(second.body.deliveries[0].delivery_id).toBe(deliveryId);
    expect(second.body.next_cursor).toBeNull();
  });

  it("never follows a redirect", async () => {
    const elsewhere = await receiver();
    const rx = await receiver((_n, res) => res.writeHead(302, { Location: elsewhere.url }).end());
    const hook = await createHook({ url: rx.url, events: ["scan.failed"] });
    const done = await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id));
    expect(done).toMatchObject({ state: "failed", attempts: 3, last_status: 302 });
    expect(rx.hits).toHaveLength(3);
    expect(elsewhere.hits).toHaveLength(0);
  });

  it("gives up on a receiver that does not answer in time", async () => {
    const rx = await receiver((_n, res) => void setTimeout(() => res.writeHead(200).end(), 3_000).unref());
    const hook = await createHook({ url: rx.url, events: ["scan.failed"] });
    const done = await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id));
    expect(done).toMatchObject({ state: "failed", attempts: 3, last_status: null });
    expect(done.last_error).toMatch(/No answer within 700 ms/);
  });

  it("refuses a name that resolves to a private address, without connecting", async () => {
    const rx = await receiver();
    names.set("mixed.example.test", ["127.0.0.1", "10.0.0.5"]);
    const hook = await createHook({ url: `http://mixed.example.test:${rx.port}/hook`, events: ["scan.failed"] });
    expect(hook.status).toBe(200);
    const done = await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id));
    expect(done).toMatchObject({ state: "failed", last_status: null });
    expect(done.last_error).toMatch(/private, loopback or link-local/);
    expect(asked).toContain("mixed.example.test");
    // The same name answered with loopback only reaches the receiver: the refusal, not the setup, kept it away.
    expect(rx.hits).toHaveLength(0);
    names.set("mixed.example.test", ["127.0.0.1"]);
    expect(await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id))).toMatchObject({ state: "delivered" });
    expect(rx.hits).toHaveLength(1);

    // A literal private address saved before the policy (or around the API) is refused too.
    const direct = await createWebhook(h.stack.handle.db, {
      organizationId: h.tenant.organization_id,
      url: "http://10.0.0.5:9/x",
      events: ["scan.failed"],
      secret: "whsec_x",
      createdBy: null,
    });
    expect((await settled(direct.id, await sendTest(direct.id))).last_error).toMatch(/private/);
  });

  it("signs with the new secret after a rotation", async () => {
    const rx = await receiver();
    const hook = await createHook({ url: rx.url, events: ["scan.failed"] });
    const rotated = await request(h.app).post(`${base()}/${hook.body.webhook_id}/rotate-secret`).set(key());
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.body.secret);
    await settled(hook.body.webhook_id, await sendTest(hook.body.webhook_id));
    const hit = rx.hits[0]!;
    const sig = String(hit.headers["x-ax-signature"]);
    expect(verifyWebhookSignature(rotated.body.secret, hit.body, sig)).toBe(true);
    expect(verifyWebhookSignature(hook.body.secret, hit.body, sig)).toBe(false);
  });
});

// Real PostgreSQL and Redis; no worker is needed for these.
import request from "supertest";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({ env: { MAX_BODY_BYTES: "4096" } });
});
afterAll(() => h.close());

const key = () => ({ "X-AX-KEY": h.tenant.token });

describe("HTTP conventions", () => {
  it("gives every response an X-Request-Id, keeping a valid incoming one", async () => {
    const a = await request(h.app).get("/api/v2/health");
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ status: "ok" });
    expect(a.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const b = await request(h.app).get("/api/v2/health").set("X-Request-Id", "trace-123");
    expect(b.headers["x-request-id"]).toBe("trace-123");
    const c = await request(h.app).get("/api/v2/health").set("X-Request-Id", "bad id <script>");
    expect(c.headers["x-request-id"]).not.toContain("<");
  });

  it("refuses non-JSON bodies with 415, malformed JSON with 400 and oversized bodies with 413", async () => {
    const r415 = await request(h.app).post("/api/v2/scan").set(key()).set("Content-Type", "text/plain").send("git_uri=x");
    expect(r415.status).toBe(415);
    expect(r415.body).toEqual({
      code: 415,
      error: "unsupported_media_type",
      message: "Request bodies must be JSON (Content-Type: application/json).",
    });

    const r400 = await request(h.app).post("/api/v2/scan").set(key()).set("Content-Type", "application/json").send('{"git_uri": ');
    expect(r400.status).toBe(400);
    expect(r400.body).toEqual({ code: 400, error: "malformed_json", message: "Request body is not valid JSON." });

    const r413 = await request(h.app)
      .post("/api/v2/scan")
      .set(key())
      .send({ git_uri: "https://github.com/a/b", pad: "x".repeat(5000) });
    expect(r413.status).toBe(413);
    expect(r413.body.code).toBe(413);
  });

  it("answers unknown endpoints with 404 in the error shape", async () => {
    const r = await request(h.app).get("/api/v2/nope").set(key());
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 404, error: "not_found", message: "No such endpoint." });
  });

  it("never echoes input values in validation errors", async () => {
    const r = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: "ext::sh -c evil-marker", extra_marker_field: 1 });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).not.toContain("evil-marker");
    expect(r.body.message).toMatch(/Unknown field: extra_marker_field/);
  });

  it("serves the OpenAPI document generated from the route schemas, and a docs page", async () => {
    const r = await request(h.app).get("/api/v2/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    expect(r.body.components.securitySchemes.ApiKeyAuth).toEqual({ type: "apiKey", in: "header", name: "X-AX-KEY" });
    const put = r.body.paths["/api/v2/scan/{scan_id}/finding/{finding_id}"].put;
    expect(Object.keys(put.requestBody.content["application/json"].schema.properties).sort()).toEqual([
      "confidence",
      "impact",
      "likelihood",
      "reason",
      "remediation",
      "severity",
      "status",
    ]);
    expect(r.body.paths["/api/v2/scan"].post.requestBody.content["application/json"].schema.required).toEqual(["git_uri"]);
    expect(r.body.paths["/api/v2/organization/{organization_id}/group/{group_id}"].delete).toBeDefined();
    expect(r.body.paths["/api/v2/health"].get.security).toEqual([]);
    const docs = await request(h.app).get("/api/v2/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers["content-type"]).toMatch(/text\/html/);
    expect(docs.text).toContain("/api/v2/scan/{scan_id}/finding/{finding_id}");
  });

  it("reports readiness of PostgreSQL and Redis, and flips to 503 while shutting down", async () => {
    const ok = await request(h.app).get("/api/v2/health/ready");
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "ready", checks: { database: "ok", redis: "ok" } });
    h.deps.lifecycle.shuttingDown = true;
    const draining = await request(h.app).get("/api/v2/health/ready");
    h.deps.lifecycle.shuttingDown = false;
    expect(draining.status).toBe(503);
  });

  it("exposes Prometheus metrics with route templates as labels", async () => {
    await request(h.app).get(`/api/v2/scan/00000000-0000-4000-8000-000000000000`).set(key());
    const r = await request(h.app).get("/api/v2/metrics");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/text\/plain/);
    expect(r.text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/v2/scan/:scan_id",status_code="404"}',
    );
    expect(r.text).toMatch(/bullmq_job_count\{queue="scans",state="waiting"\} \d+/);
    expect(r.text).toContain("process_cpu_user_seconds_total");
  });
});

describe("profile and tokens", () => {
  it("tells the caller who they are", async () => {
    const r = await request(h.app).get("/api/v2/profile").set(key());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      user_id: h.tenant.user_id,
      display_name: "Ada Owner",
      identity_provider: "github",
      organizations: [{ organization_id: h.tenant.organization_id, name: "Acme", role: "owner" }],
      token: { name: "bootstrap" },
    });
    expect(JSON.stringify(r.body)).not.toContain(h.tenant.token);
  });

  it("creates a token shown once, lists it without its value, and revokes it", async () => {
    const created = await request(h.app).post("/api/v2/profile/tokens").set(key()).send({ name: "ci", expires_days: 7 });
    expect(created.status).toBe(200);
    expect(created.body.token).toMatch(/^axk_[0-9A-Za-z]{46}$/);
    expect(created.headers["cache-control"]).toBe("no-store");
    const id = created.body.token_info.token_id;

    const viaNew = await request(h.app).get("/api/v2/profile").set("X-AX-KEY", created.body.token);
    expect(viaNew.body.token.token_id).toBe(id);

    const list = await request(h.app).get("/api/v2/profile/tokens").set(key());
    expect(list.body.tokens.map((t: { token_id: string }) => t.token_id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    const revoked = await request(h.app).delete(`/api/v2/profile/tokens/${id}`).set(key());
    expect(revoked.status).toBe(200);
    expect((await request(h.app).get("/api/v2/profile").set("X-AX-KEY", created.body.token)).status).toBe(401);
    expect((await request(h.app).delete(`/api/v2/profile/tokens/${id}`).set(key())).status).toBe(404);
  });

  it("validates token creation", async () => {
    const r = await request(h.app).post("/api/v2/profile/tokens").set(key()).send({ name: "", expires_days: 9999 });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual(["body.expires_days", "body.name"]);
  });
});

describe("groups", () => {
  it("creates and lists groups; names are unique per organization", async () => {
    const org = h.tenant.organization_id;
    const g = await request(h.app).post(`/api/v2/organization/${org}/group`).set(key()).send({ name: "payments" });
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ name: "payments", organization_id: org });
    expect((await request(h.app).post(`/api/v2/organization/${org}/group`).set(key()).send({ name: "payments" })).status).toBe(409);
    const list = await request(h.app).get(`/api/v2/organization/${org}/group?limit=1`).set(key());
    expect(list.body.groups).toHaveLength(1);
    expect(list.body.next_cursor).toEqual(expect.any(String));
    const next = await request(h.app).get(`/api/v2/organization/${org}/group?limit=1&cursor=${list.body.next_cursor}`).set(key());
    expect(next.body.groups[0].name).not.toBe(list.body.groups[0].name);
    expect((await request(h.app).get(`/api/v2/organization/${org}/group?cursor=garbage`).set(key())).status).toBe(400);
  });

  it("lets only admins and owners create or delete groups", async () => {
    const org = h.tenant.organization_id;
    const member = await h.member("member");
    const r = await request(h.app).post(`/api/v2/organization/${org}/group`).set("X-AX-KEY", member).send({ name: "nope" });
    expect(r.status).toBe(403);
    const admin = await h.member("admin");
    const g = await request(h.app).post(`/api/v2/organization/${org}/group`).set("X-AX-KEY", admin).send({ name: "by-admin" });
    expect(g.status).toBe(200);
    expect((await request(h.app).delete(`/api/v2/organization/${org}/group/${g.body.group_id}`).set("X-AX-KEY", member)).status).toBe(403);
    expect((await request(h.app).delete(`/api/v2/organization/${org}/group/${g.body.group_id}`).set("X-AX-KEY", admin)).status).toBe(200);
  });
});

describe("docs/api.md", () => {
  it("is up to date with the route definitions (npm run docs:api)", async () => {
    const fs = await import("node:fs");
    const { renderApiMarkdown } = await import("./api-docs");
    const committed = fs.readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
    expect(committed).toBe(renderApiMarkdown());
  });
});

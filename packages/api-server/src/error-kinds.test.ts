// Every JSON error names its stable kind (`error`, contracts' ERROR_KINDS) next to the spec's
// `code` and `message`. Real PostgreSQL and Redis; no worker. Other kinds are asserted where
// their cases live: 412 and the path escapes in bad-input.test.ts, 429 too_many_scans and 413 in
// limits.test.ts, 502 in ai.test.ts, 503 redis_unavailable / queue_unavailable in redis-restart.test.ts.
import request from "supertest";
import { ERROR_KINDS, ErrorBody } from "@ax/contracts";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let limited: ApiHarness;
beforeAll(async () => {
  [h, limited] = await Promise.all([
    createApiHarness({ env: { MAX_BODY_BYTES: "4096" } }),
    createApiHarness({ env: { RATE_LIMIT_ENABLED: "true", RATE_LIMIT_TOKEN_PER_MINUTE: "2" } }),
  ]);
});
afterAll(() => Promise.all([h.close(), limited.close()]));

const key = () => ({ "X-AX-KEY": h.tenant.token });
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** The answer is an ErrorBody of this kind, whose status is the kind's own. */
function expectKind(res: { status: number; body: unknown }, kind: keyof typeof ERROR_KINDS): void {
  expect(ErrorBody.safeParse(res.body).success).toBe(true);
  expect({ status: res.status, code: (res.body as ErrorBody).code, error: (res.body as ErrorBody).error }).toEqual({
    status: ERROR_KINDS[kind].status,
    code: ERROR_KINDS[kind].status,
    error: kind,
  });
}

describe("error kinds", () => {
  it("400 validation_failed for a value a schema refuses, with details naming the field", async () => {
    const res = await request(h.app).post("/api/v2/scan").set(key()).send({ branch: "main" });
    expectKind(res, "validation_failed");
    expect((res.body as ErrorBody).details?.[0]?.path).toBe("body.git_uri");
    expectKind(await request(h.app).get("/api/v2/scan").query({ verbose: "1" }).set(key()), "validation_failed");
  });

  it("400 malformed_json, 413 payload_too_large and 415 unsupported_media_type for bodies", async () => {
    const post = () => request(h.app).post("/api/v2/scan").set(key());
    expectKind(await post().set("Content-Type", "application/json").send('{"git_uri": '), "malformed_json");
    expectKind(await post().send({ git_uri: "https://github.com/a/b", pad: "x".repeat(5000) }), "payload_too_large");
    expectKind(await post().set("Content-Type", "text/plain").send("git_uri=x"), "unsupported_media_type");
  });

  it("401 unauthorized without a token, 403 forbidden below the role", async () => {
    expectKind(await request(h.app).get("/api/v2/profile"), "unauthorized");
    expectKind(await request(h.app).get("/api/v2/admin/workers").set(key()), "forbidden");
  });

  it("404 not_found for an unknown resource or endpoint, 405 method_not_allowed for a known path", async () => {
    expectKind(await request(h.app).get(`/api/v2/scan/${UNKNOWN_ID}`).set(key()), "not_found");
    expectKind(await request(h.app).get("/api/v2/nope").set(key()), "not_found");
    const wrong = await request(h.app).delete("/api/v2/scan").set(key());
    expectKind(wrong, "method_not_allowed");
    expect(wrong.headers.allow).toBe("POST, GET, HEAD, OPTIONS");
  });

  it("409 conflict for a group name already taken", async () => {
    const path = `/api/v2/organization/${h.tenant.organization_id}/group`;
    expect((await request(h.app).post(path).set(key()).send({ name: "kinds" })).status).toBe(200);
    expectKind(await request(h.app).post(path).set(key()).send({ name: "kinds" }), "conflict");
  });

  it("429 rate_limited once the token's budget is spent", async () => {
    const get = () => request(limited.app).get("/api/v2/profile").set({ "X-AX-KEY": limited.tenant.token });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const refused = await get();
    expectKind(refused, "rate_limited");
    expect(refused.headers["retry-after"]).toMatch(/^\d+$/);
  });
});

// Limits (DESIGN §9) on the real stack: real Redis budgets shared by two apps, real
// PostgreSQL for the scans-in-flight limit, real git repositories. No worker runs, so scans
// stay queued. The size limits are covered where their endpoints are tested: 413 in
// http.test.ts ("oversized bodies") and chat.test.ts (Markdown 413), `code` in ai.test.ts
// ("code must be at most … bytes"), `prompt` in chat.test.ts ("prompt over
// MAX_PROMPT_CHARS"); only the JSON 413's exact message is added here.
import { once } from "node:events";
import net from "node:net";
import request from "supertest";
import { producerConnection } from "@ax/queue";
import { makeGitRepo } from "@ax/testkit";
import { buildApp } from "./app";
import { clientKey } from "./http/rate-limit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const TOKEN_LIMIT = 5;
const IP_LIMIT = 20;
const MARKDOWN = "text/markdown; charset=utf-8";

/** Budgets of one minute, so counts are exact; each test takes its own client IP. */
let h: ApiHarness;
/** A two-second window, to watch a budget come back. */
let short: ApiHarness;
/** Rate limits off (with budgets of 1 that would otherwise bite), two scans in flight. */
let off: ApiHarness;
let repo: string;
let nextIp = 1;
const freshIp = () => `203.0.113.${nextIp++}`;

beforeAll(async () => {
  [h, short, off] = await Promise.all([
    createApiHarness({
      env: {
        RATE_LIMIT_ENABLED: "true",
        RATE_LIMIT_TOKEN_PER_MINUTE: String(TOKEN_LIMIT),
        RATE_LIMIT_IP_PER_MINUTE: String(IP_LIMIT),
        TRUST_PROXY: "true",
      },
    }),
    createApiHarness({ env: { RATE_LIMIT_ENABLED: "true", RATE_LIMIT_TOKEN_PER_MINUTE: "2", RATE_LIMIT_WINDOW_MS: "2000" } }),
    createApiHarness({
      env: {
        RATE_LIMIT_ENABLED: "false",
        RATE_LIMIT_TOKEN_PER_MINUTE: "1",
        RATE_LIMIT_IP_PER_MINUTE: "1",
        MAX_SCANS_IN_FLIGHT_PER_ORG: "2",
        MAX_BODY_BYTES: "4096",
      },
    }),
  ]);
  repo = makeGitRepo({ "app.js": "console.log('hi');\n" });
});
afterAll(() => Promise.all([h, short, off].map((x) => x?.close())));

const profile = (app: ApiHarness["app"], ip: string, token?: string) => {
  const r = request(app).get("/api/v2/profile").set("X-Forwarded-For", ip);
  return token ? r.set("X-AX-KEY", token) : r;
};

function expect429(res: request.Response, limit: number): void {
  expect(res.status).toBe(429);
  expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  expect(res.headers["ratelimit-limit"]).toBe(String(limit));
  expect(res.headers["ratelimit-remaining"]).toBe("0");
  expect(Number(res.headers["ratelimit-reset"])).toBeGreaterThanOrEqual(1);
}

describe("rate limits", () => {
  it("refuses the (N+1)th request of a token with 429, Retry-After and RateLimit-* headers; other tokens keep their own budget", async () => {
    const ip = freshIp();
    const token = await h.member("member");
    for (let i = 1; i <= TOKEN_LIMIT; i++) {
      const ok = await profile(h.app, ip, token);
      expect(ok.status).toBe(200);
      expect(ok.headers["ratelimit-limit"]).toBe(String(TOKEN_LIMIT));
      expect(ok.headers["ratelimit-remaining"]).toBe(String(TOKEN_LIMIT - i));
    }
    const refused = await profile(h.app, ip, token);
    expect429(refused, TOKEN_LIMIT);
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    expect(refused.body).toEqual({
      code: 429,
      error: "rate_limited",
      message: expect.stringMatching(/^Too many requests with this token; try again in \d+ seconds\.$/),
    });

    const other = await h.member("viewer");
    expect((await profile(h.app, ip, other)).status).toBe(200);
  });

  it("keys token budgets by the token's id, never the raw token", async () => {
    const token = await h.member("member");
    expect((await profile(h.app, freshIp(), token)).status).toBe(200);
    const keys = await h.deps.redis.keys(`${h.deps.config.redis.queuePrefix}:ratelimit:*`);
    expect(keys.some((k) => k.includes(":token:"))).toBe(true);
    expect(keys.some((k) => k.includes(token))).toBe(false);
  });

  it("limits every request per client IP, unauthenticated and bad-token ones included", async () => {
    const ip = freshIp();
    for (let i = 0; i < IP_LIMIT; i++) expect((await profile(h.app, ip, `axp_${"x".repeat(40)}${i}`)).status).toBe(401);
    const refused = await profile(h.app, ip, "axp_guess");
    expect429(refused, IP_LIMIT);
    expect(refused.body.message).toMatch(/^Too many requests from this address/);
    // A valid token does not help from that address, and other addresses are unaffected.
    expect((await profile(h.app, ip, h.tenant.token)).status).toBe(429);
    expect((await profile(h.app, freshIp())).status).toBe(401);
  });

  it("shares one budget exactly between two apps on the same Redis", async () => {
    const redis = producerConnection(h.stack.config.redis.url);
    try {
      const second = buildApp({ ...h.deps, redis });
      const apps = [h.app, second];
      const token = await h.member("member");
      for (let i = 1; i <= TOKEN_LIMIT; i++) {
        const ok = await profile(apps[i % 2]!, freshIp(), token);
        expect(ok.status).toBe(200);
        expect(ok.headers["ratelimit-remaining"]).toBe(String(TOKEN_LIMIT - i));
      }
      expect((await profile(apps[0]!, freshIp(), token)).status).toBe(429);
      expect((await profile(apps[1]!, freshIp(), token)).status).toBe(429);

      // A concurrent burst over both apps gets exactly the budget through.
      const burst = await h.member("member");
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => profile(apps[i % 2]!, freshIp(), burst)));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(TOKEN_LIMIT);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(16 - TOKEN_LIMIT);
    } finally {
      redis.disconnect();
    }
  });

  it("answers the chat endpoints' 429 in Markdown, for the token and the IP budget", async () => {
    const token = await h.member("member");
    const ip = freshIp();
    for (let i = 0; i < TOKEN_LIMIT; i++) await profile(h.app, ip, token);
    const byToken = await request(h.app)
      .post("/api/v2/ai/chatbot")
      .set("X-Forwarded-For", ip)
      .set("X-AX-KEY", token)
      .send({ prompt: "hi" });
    expect429(byToken, TOKEN_LIMIT);
    expect(byToken.headers["content-type"]).toBe(MARKDOWN);
    expect(byToken.text).toMatch(/^\*\*Error 429\.\*\* Too many requests with this token/);

    const flooded = freshIp();
    for (let i = 0; i < IP_LIMIT; i++) await profile(h.app, flooded);
    const byIp = await request(h.app)
      .post(`/api/v2/${h.tenant.organization_id}/chatbot`)
      .set("X-Forwarded-For", flooded)
      .set("X-AX-KEY", h.tenant.token)
      .send({ prompt: "hi" });
    expect429(byIp, IP_LIMIT);
    expect(byIp.headers["content-type"]).toBe(MARKDOWN);
    expect(byIp.text).toMatch(/^\*\*Error 429\.\*\* Too many requests from this address/);
  });

  it("never limits or counts the health endpoints", async () => {
    const ip = freshIp();
    for (let i = 0; i < IP_LIMIT + 5; i++) {
      const r = await request(h.app)
        .get(["/api/v2/health", "/api/v2/health/ready", "/api/v2/metrics"][i % 3]!)
        .set("X-Forwarded-For", ip);
      expect(r.status).toBe(200);
      expect(r.headers["ratelimit-limit"]).toBeUndefined();
    }
    const after = await profile(h.app, ip);
    expect(after.headers["ratelimit-remaining"]).toBe(String(IP_LIMIT - 1));
  });

  it("gives the budget back after the window", async () => {
    const token = await short.member("member");
    const get = () => request(short.app).get("/api/v2/profile").set("X-AX-KEY", token);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const refused = await get();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(429);
  });

  it("lets requests through when Redis is gone or does not answer (fail open)", async () => {
    // Gone: a client whose connection has ended refuses every command.
    const gone = producerConnection(h.stack.config.redis.url);
    await new Promise((resolve) => gone.once("ready", resolve));
    gone.disconnect();
    // Hung: a loopback listener that reads and never replies, so only our timeout ends the wait.
    const silent = net.createServer((socket) => socket.resume()).listen(0, "127.0.0.1");
    await once(silent, "listening");
    const hung = producerConnection(`redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, { enableReadyCheck: false });
    try {
      for (const redis of [gone, hung]) {
        const r = await profile(buildApp({ ...h.deps, redis }), freshIp(), h.tenant.token);
        expect(r.status).toBe(200);
        expect(r.headers["ratelimit-limit"]).toBeUndefined();
      }
    } finally {
      hung.disconnect();
      silent.close();
    }
  });

  it("is off with RATE_LIMIT_ENABLED=false", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await request(off.app).get("/api/v2/profile").set("X-AX-KEY", off.tenant.token);
      expect(r.status).toBe(200);
      expect(r.headers["ratelimit-limit"]).toBeUndefined();
    }
  });

  it("keys IPv6 clients by their /64 and hashes what is not an address", () => {
    expect(clientKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8:1:2::9")).toBe(clientKey("2001:0db8:0001:0002:ffff::1"));
    expect(clientKey("::1")).toBe("0:0:0:0::/64");
    expect(clientKey("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("10.1.2.3")).toBe("10.1.2.3");
    expect(clientKey("not an address")).toMatch(/^h:[0-9a-f]{32}$/);
  });
});

describe("scans in flight per organization", () => {
  const countScans = async (orgId: string) =>
    Number(
      (
        await off.deps.db
          .selectFrom("scans")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .where("organization_id", "=", orgId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const startScan = (token: string, headers: Record<string, string> = {}) =>
    request(off.app).post("/api/v2/scan").set("X-AX-KEY", token).set(headers).send({ git_uri: repo });

  it("refuses the third queued scan with 429 and creates nothing; cancelling one makes room", async () => {
    const org = off.tenant.organization_id;
    const first = await startScan(off.tenant.token, { "Idempotency-Key": "first" });
    expect(first.status).toBe(200);
    expect((await startScan(off.tenant.token)).status).toBe(200);

    const third = await startScan(off.tenant.token);
    expect(third.status).toBe(429);
    expect(third.headers["retry-after"]).toBe("30");
    expect(third.body).toEqual({
      code: 429,
      error: "too_many_scans",
      message: expect.stringMatching(/already has 2 scans queued or running/),
    });
    expect(await countScans(org)).toBe(2);

    // Repeating an accepted request is not a new scan, so the limit does not refuse it.
    const again = await startScan(off.tenant.token, { "Idempotency-Key": "first" });
    expect(again.status).toBe(200);
    expect(again.body.scan_id).toBe(first.body.scan_id);

    expect((await request(off.app).post(`/api/v2/scan/${first.body.scan_id}/cancel`).set("X-AX-KEY", off.tenant.token)).status).toBe(200);
    expect((await startScan(off.tenant.token)).status).toBe(200);
    expect(await countScans(org)).toBe(3);
  });

  it("lets a burst of 10 concurrent requests create no more than the limit", async () => {
    const other = await off.otherTenant();
    const answers = await Promise.all(Array.from({ length: 10 }, () => startScan(other.token)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(2);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(8);
    expect(await countScans(other.organization_id)).toBe(2);
  });

  it("answers an oversized JSON body with a clear 413", async () => {
    const r = await request(off.app)
      .post("/api/v2/scan")
      .set("X-AX-KEY", off.tenant.token)
      .send({ git_uri: repo, pad: "x".repeat(5000) });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ code: 413, error: "payload_too_large", message: "Request body is too large." });
  });
});

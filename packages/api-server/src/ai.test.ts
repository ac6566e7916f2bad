// FAKES IN THIS FILE: a downstream feedback API (a small HTTP server on 127.0.0.1 that
// records what it receives and can fail or hang) and an OpenAI-compatible model server
// (packages/testkit/src/fake-openai-server.ts). Neither system can run in the test environment;
// everything else here is real: PostgreSQL, Redis, the app, the shipped review model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { ReviewModel, evidenceOf, type FindingFacts } from "@ax/ai/review";
import { snippetDataflowFacts } from "@ax/scanner";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "@ax/testkit/fake-openai-server";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

type Mode = "ok" | "fail" | "hang";
interface Downstream {
  url: string;
  mode: Mode;
  received: Record<string, unknown>[];
  headers: IncomingMessage["headers"][];
  close(): Promise<void>;
}

async function startDownstream(): Promise<Downstream> {
  const state: Downstream = { url: "", mode: "ok", received: [], headers: [], close: async () => undefined };
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      state.received.push(JSON.parse(body) as Record<string, unknown>);
      state.headers.push(req.headers);
      if (state.mode === "hang") return void hanging.push(res);
      res.writeHead(state.mode === "ok" ? 202 : 500, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/feedback`;
  state.close = () =>
    new Promise((r) => {
      for (const res of hanging) res.destroy();
      server.close(() => r());
    });
  return state;
}

const SQLI = [
  "public void handle(HttpServletRequest request) throws Exception {",
  '    String name = request.getParameter("name");',
  "    Statement st = connection.createStatement();",
  '    st.execute("select * from users where name = \'" + name + "\'");',
  "}",
].join("\n");

let h: ApiHarness;
let downstream: Downstream;
const key = () => ({ "X-AX-KEY": h.tenant.token });

beforeAll(async () => {
  downstream = await startDownstream();
  h = await createApiHarness({
    env: { AI_FEEDBACK_URL: downstream.url, AI_FEEDBACK_TOKEN: "fb-secret", AI_FEEDBACK_TIMEOUT_MS: "300", MAX_CODE_BYTES: "2000" },
  });
});
afterAll(async () => {
  await h.close();
  await downstream.close();
});

async function review(body: object = { code: SQLI, cwe_id: "CWE-89", file: "src/Users.java", line: "4" }) {
  const res = await request(h.app).post("/api/v2/ai/review").set(key()).send(body);
  expect(res.status).toBe(200);
  return res.body as { class: string; confidence: number; request_id: string; model: string; reasons: string[] };
}

describe("POST /api/v2/ai/review", () => {
  it("answers with the shipped model's calibrated verdict and records the request", async () => {
    const body = await review();
    const model = ReviewModel.load();
    // The API runs the taint analysis on the snippet for the same evidence a stored finding gives.
    const facts = snippetDataflowFacts({ code: SQLI, cwe_id: "CWE-89", file: "src/Users.java", line: "4" });
    expect(facts?.dataflow?.status).toBe("confirmed");
    const expected = model.review({
      code: SQLI,
      cwe_id: "CWE-89",
      file: "src/Users.java",
      evidence: evidenceOf(facts as FindingFacts, SQLI),
    });
    expect(body).toEqual({
      class: expected.class,
      confidence: expected.confidence,
      request_id: expect.any(String),
      model: model.version,
      reasons: expect.arrayContaining([expect.any(String)]),
    });
    expect(body.reasons.length).toBeGreaterThan(0);
    expect(body.confidence).toBeGreaterThanOrEqual(0);
    expect(body.confidence).toBeLessThanOrEqual(1);
    const row = await h.deps.db.selectFrom("ai_requests").selectAll().where("id", "=", body.request_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      kind: "review",
      organization_id: h.tenant.organization_id,
      user_id: h.tenant.user_id,
      cwe_id: "CWE-89",
      class: body.class,
      model: model.version,
    });
    expect(row.input).toMatchObject({ code: SQLI, file: "src/Users.java", line: "4" });
  });

  it("takes code alone; cwe_id is case-insensitive", async () => {
    expect((await review({ code: "eval(input())" })).class).toMatch(/^(TRUE|FALSE)_POSITIVE$/);
    expect((await review({ code: SQLI, cwe_id: "cwe-89" })).model).toMatch(/^review-lr-/);
  });

  it.each([
    [{}, /code is required/],
    [{ code: "" }, /code must not be empty/],
    [{ code: 42 }, /code is required and must be a string/],
    [{ code: "x", cwe_id: "89" }, /cwe_id must look like CWE-89/],
    [{ code: "x", line: 12 }, /line must be a string/],
    [{ code: "x", extra: true }, /extra/],
    [{ code: "x".repeat(2001) }, /code must be at most 2000 bytes/],
  ])("refuses %j with 400 naming the field", async (body, message) => {
    const res = await request(h.app).post("/api/v2/ai/review").set(key()).send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it("refuses a body that is not JSON (415), no token (401), another tenant's organization (404)", async () => {
    expect((await request(h.app).post("/api/v2/ai/review").set(key()).set("Content-Type", "text/plain").send("code")).status).toBe(415);
    expect((await request(h.app).post("/api/v2/ai/review").send({ code: "x" })).status).toBe(401);
    const other = await h.otherTenant();
    const res = await request(h.app).post(`/api/v2/ai/review?organization_id=${other.organization_id}`).set(key()).send({ code: "x" });
    expect(res.status).toBe(404);
  });
});

describe("POST /api/v2/ai/review with a model server", () => {
  let server: FakeOpenAiServer;
  let withLlm: ApiHarness;
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    withLlm = await createApiHarness({
      env: {
        AI_BASE_URL: server.baseUrl,
        AI_API_KEY: "llm-key",
        AI_MODEL_REVIEW: "sec-review-1b",
        AI_MODEL_CHAT: "chat-small",
        AI_MODEL_CWE: "cwe-expert",
        AI_REVIEW_LLM_WEIGHT: "0.5",
        AI_TIMEOUT_MS: "500",
        AI_RETRIES: "0",
      },
    });
  });
  afterAll(async () => {
    await withLlm.close();
    await server.close();
  });

  it("combines the server's schema-constrained verdict with the trained model's", async () => {
    server.script({
      type: "completion",
      content: JSON.stringify({ class: "TRUE_POSITIVE", confidence: 1, rationale: "name flows into the query" }),
      model: "sec-review-1b",
    });
    const res = await request(withLlm.app)
      .post("/api/v2/ai/review")
      .set("X-AX-KEY", withLlm.tenant.token)
      .send({ code: SQLI, cwe_id: "CWE-89" });
    expect(res.status).toBe(200);
    const facts = snippetDataflowFacts({ code: SQLI, cwe_id: "CWE-89" });
    const trained = ReviewModel.load().review({
      code: SQLI,
      cwe_id: "CWE-89",
      evidence: facts ? evidenceOf(facts as FindingFacts, SQLI) : null,
    });
    const p = Math.round((0.5 * 1 + 0.5 * trained.pTrue) * 10_000) / 10_000;
    expect(res.body.model).toBe(`${trained.model}+sec-review-1b`);
    expect(res.body.class).toBe("TRUE_POSITIVE");
    expect(res.body.confidence).toBeCloseTo(p, 4);
    // The server's rationale is one more reason, after the trained model's.
    expect(res.body.reasons.at(-1)).toBe("the model server (sec-review-1b): name flows into the query");
    const sent = server.requests.at(-1);
    expect(sent?.headers.authorization).toBe("Bearer llm-key");
    expect(sent?.body).toMatchObject({
      model: "sec-review-1b",
      response_format: { type: "json_schema", json_schema: { name: "review_verdict", strict: true } },
    });
  });

  it("lets each chat specialist answer with its own model, grounded in what it retrieved", async () => {
    server.script({ type: "stream", deltas: ["## CWE-89 in short\n", "Use prepared ", "statements.\n"], model: "cwe-expert" });
    const res = await request(withLlm.app)
      .post("/api/v2/ai/chatbot")
      .set("X-AX-KEY", withLlm.tenant.token)
      .send({ prompt: "what is CWE-89?" });
    expect(res.status).toBe(200);
    expect(res.headers["x-ai-specialist"]).toBe("cwe");
    expect(res.text).toBe("## CWE-89 in short\nUse prepared statements.\n");
    const sent = server.requests.at(-1)?.body as { model: string; stream: boolean; messages: { role: string; content: string }[] };
    expect(sent.model).toBe("cwe-expert");
    expect(sent.stream).toBe(true);
    // The catalogue's facts are in the system prompt; the question is the last user turn.
    expect(sent.messages[0]?.content).toMatch(/SQL Command/);
    expect(sent.messages.at(-1)).toEqual({ role: "user", content: "what is CWE-89?" });
    const row = await withLlm.deps.db
      .selectFrom("ai_requests")
      .select(["model", "specialist"])
      .where("id", "=", res.headers["x-ai-request-id"] as string)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ model: "cwe-expert", specialist: "cwe" });
  });

  it("answers offline when the chat model server fails before the first line", async () => {
    server.script({ type: "status", status: 503, body: "down" });
    const res = await request(withLlm.app).post("/api/v2/ai/chatbot").set("X-AX-KEY", withLlm.tenant.token).send({ prompt: "who am I?" });
    expect(res.status).toBe(200);
    expect(res.headers["x-ai-specialist"]).toBe("identity");
    expect(res.text).toMatch(/Ada/);
    expect(server.requests.at(-1)?.body).toMatchObject({ model: "chat-small" });
  });

  it("falls back to the trained model alone when the server fails", async () => {
    server.script({ type: "status", status: 500, body: "boom" });
    const res = await request(withLlm.app)
      .post("/api/v2/ai/review")
      .set("X-AX-KEY", withLlm.tenant.token)
      .send({ code: SQLI, cwe_id: "CWE-89" });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe(ReviewModel.load().version);
  });
});

describe("GET /api/v2/ai/feedback/{request_id}/{status}", () => {
  const url = (id: string, status: string, q: string) => `/api/v2/ai/feedback/${id}/${status}${q}`;
  const q = () => `?organization_id=${h.tenant.organization_id}&group_id=${h.tenant.group_id}`;

  it("stores the vote and relays it downstream", async () => {
    downstream.mode = "ok";
    const { request_id, model } = await review();
    const res = await request(h.app)
      .get(url(request_id, "true", q()))
      .set(key());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Feedback submitted" });
    expect(downstream.received.at(-1)).toEqual({
      request_id,
      feedback: true,
      organization_id: h.tenant.organization_id,
      group_id: h.tenant.group_id,
      kind: "review",
      model,
    });
    expect(downstream.headers.at(-1)?.authorization).toBe("Bearer fb-secret");
    const vote = await h.deps.db.selectFrom("ai_feedback").selectAll().where("request_id", "=", request_id).executeTakeFirstOrThrow();
    expect(vote).toMatchObject({ feedback: true, relay_status: "relayed", user_id: h.tenant.user_id });
    // Voting again replaces the vote.
    expect(
      (
        await request(h.app)
          .get(url(request_id, "FALSE", q()))
          .set(key())
      ).status,
    ).toBe(200);
    const votes = await h.deps.db.selectFrom("ai_feedback").selectAll().where("request_id", "=", request_id).execute();
    expect(votes.map((v) => v.feedback)).toEqual([false]);
  });

  it("answers the six error bodies of the design", async () => {
    const { request_id } = await review();
    const cases: [string, Record<string, string>, number, string][] = [
      [url(request_id, "true", `?group_id=${h.tenant.group_id}`), key(), 400, "A valid organization_id is required."],
      [
        url(request_id, "true", `?organization_id=not-an-id&group_id=${h.tenant.group_id}`),
        key(),
        400,
        "A valid organization_id is required.",
      ],
      [url(request_id, "true", `?organization_id=${h.tenant.organization_id}`), key(), 400, "A valid group_id is required."],
      [url(request_id, "maybe", q()), key(), 400, "status must be true or false."],
      [url(request_id, "true", q()), {}, 401, "A valid personal access token is required in the X-AX-KEY header."],
      [url("00000000-0000-4000-8000-000000000000", "true", q()), key(), 404, "AI request not found."],
    ];
    for (const [path, headers, status, message] of cases) {
      const res = await request(h.app).get(path).set(headers);
      const error = { 400: "validation_failed", 401: "unauthorized", 404: "not_found" }[status];
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status, body: { code: status, error, message } });
    }
  });

  it("answers 502 when the downstream API fails or times out, and keeps the vote", async () => {
    for (const mode of ["fail", "hang"] as const) {
      downstream.mode = mode;
      const { request_id } = await review();
      const res = await request(h.app)
        .get(url(request_id, "false", q()))
        .set(key());
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ code: 502, error: "downstream_failed", message: "Failed to make request to downstream API." });
      const vote = await h.deps.db.selectFrom("ai_feedback").selectAll().where("request_id", "=", request_id).executeTakeFirstOrThrow();
      expect(vote).toMatchObject({ feedback: false, relay_status: "failed" });
    }
    downstream.mode = "ok";
  });

  it("treats another tenant's request, organization or group as unknown", async () => {
    const other = await h.otherTenant();
    const theirs = await request(h.app).post("/api/v2/ai/review").set("X-AX-KEY", other.token).send({ code: SQLI });
    const mine = await review();
    // Their request id under my organization: not found.
    expect(
      (
        await request(h.app)
          .get(url(theirs.body.request_id as string, "true", q()))
          .set(key())
      ).status,
    ).toBe(404);
    // My request under their organization (I am not a member): an invalid organization.
    const res = await request(h.app)
      .get(url(mine.request_id, "true", `?organization_id=${other.organization_id}&group_id=${other.group_id}`))
      .set(key());
    expect(res.body).toEqual({ code: 400, error: "validation_failed", message: "A valid organization_id is required." });
    // Their group under my organization: an invalid group.
    const g = await request(h.app)
      .get(url(mine.request_id, "true", `?organization_id=${h.tenant.organization_id}&group_id=${other.group_id}`))
      .set(key());
    expect(g.body).toEqual({ code: 400, error: "validation_failed", message: "A valid group_id is required." });
  });

  it("gives admins agreement figures per model and per CWE; members get 403", async () => {
    downstream.mode = "ok";
    const org = h.tenant.organization_id;
    const stats = await request(h.app).get(`/api/v2/organization/${org}/ai/feedback`).set(key());
    expect(stats.status).toBe(200);
    const rows = await h.deps.db
      .selectFrom("ai_feedback as f")
      .innerJoin("ai_requests as r", "r.id", "f.request_id")
      .select(["r.model", "r.cwe_id", "f.feedback"])
      .where("f.organization_id", "=", org)
      .execute();
    const byModel = stats.body.by_model as { kind: string; model: string; votes: number; agree: number; agreement: number }[];
    // Reviews the organization's own votes moved are under the model name with "+org" (docs/ai.md).
    const reviews = byModel.filter((r) => r.kind === "review");
    expect(reviews.map((r) => r.model.replace(/\+org$/, ""))).toEqual(reviews.map(() => reviews[0]!.model.replace(/\+org$/, "")));
    expect(reviews.reduce((n, r) => n + r.votes, 0)).toBe(rows.length);
    expect(reviews.reduce((n, r) => n + r.agree, 0)).toBe(rows.filter((r) => r.feedback).length);
    expect((stats.body.by_key as { key: string }[]).map((r) => r.key)).toContain("CWE-89");
    const member = await h.member("member");
    expect((await request(h.app).get(`/api/v2/organization/${org}/ai/feedback`).set("X-AX-KEY", member)).status).toBe(403);
  });
});

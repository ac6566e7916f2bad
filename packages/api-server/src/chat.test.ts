// The chat assistant end to end on the real stack: PostgreSQL, Redis, the app, a BullMQ worker
// in this process, and the shipped offline answerers (no model server is configured, so
// nothing is faked in this file). Answers about a completed scan: chat-scan.test.ts.
import { randomUUID } from "node:crypto";
import request from "supertest";
import { waitFor } from "@ax/testkit";
import type { ApiHarness } from "@ax/testkit/api";
import { CWE89_PROMPT, MARKDOWN, UUID, chatRig, expectMarkdownError } from "../test/chat-support";

const rig = chatRig();
const { chat, ask, rawChat, chatMessages } = rig;
let h: ApiHarness;
let other: Awaited<ReturnType<ApiHarness["otherTenant"]>>;
beforeAll(() => {
  h = rig.h;
  other = rig.other;
});

describe("the chat assistant before any scan", () => {
  it("tells the caller who they are, records the request and generates a session id", async () => {
    const user = await h.deps.db.selectFrom("users").selectAll().where("id", "=", h.tenant.user_id).executeTakeFirstOrThrow();
    expect(user).toMatchObject({ display_name: "Ada Owner", identity_provider: "github" });

    const res = await ask("who am I?", { stream: false });
    expect(res.text).toContain("Ada Owner");
    expect(res.text).toContain("GitHub");
    expect(res.text).toContain(user.email);
    expect(res.headers["x-ai-specialist"]).toBe("identity");

    const requestId = res.headers["x-ai-request-id"] as string;
    expect(requestId).toMatch(UUID);
    const sessionId = res.headers["x-session-id"] as string;
    expect(sessionId).toMatch(UUID);
    expect(res.headers["x-request-id"]).toBeDefined();
    expect(res.headers["x-request-id"]).not.toBe(requestId);

    const row = await h.deps.db.selectFrom("ai_requests").selectAll().where("id", "=", requestId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      kind: "chat",
      specialist: "identity",
      organization_id: h.tenant.organization_id,
      group_id: null,
      user_id: h.tenant.user_id,
      session_id: sessionId,
      model: "offline:identity",
    });

    const messages = await chatMessages({ requestId });
    expect(messages.map((m) => [m.role, m.session_id, m.user_id])).toEqual([
      ["user", sessionId, h.tenant.user_id],
      ["assistant", sessionId, h.tenant.user_id],
    ]);
    expect(messages[0]!.content).toBe("who am I?");
    expect(`${messages[1]!.content}\n`).toBe(res.text);
  });

  it("echoes a session id the client chose, and a new one per session-less request", async () => {
    const res = await ask("who am I?", { sessione_id: "chat-1.a:b@c_d" });
    expect(res.headers["x-session-id"]).toBe("chat-1.a:b@c_d");
    const a = await ask("who am I?");
    const b = await ask("who am I?");
    expect(a.headers["x-session-id"]).not.toBe(b.headers["x-session-id"]);
    expect(a.headers["x-ai-request-id"]).not.toBe(b.headers["x-ai-request-id"]);
  });

  it("greets another user with their own identity", async () => {
    const token = await h.member("viewer");
    const res = await ask("who am I?", {}, token);
    expect(res.text).toContain("A viewer");
    expect(res.text).toContain("Google");
    expect(res.text).not.toContain("Ada Owner");
    expect(res.text).toMatch(/\bviewer\b/);
  });

  it("explains CWE-89 from MITRE's catalogue, deterministically", async () => {
    const res = await ask(CWE89_PROMPT);
    expect(res.headers["x-ai-specialist"]).toBe("cwe");
    expect(res.text).toContain("CWE-89");
    expect(res.text).toMatch(/\bSQL\b/);
    expect(res.text).toContain("https://cwe.mitre.org/data/definitions/89.html");
    expect(res.text).toMatch(/parameteri[sz]ed|prepared statements?/i);
    const again = await ask(CWE89_PROMPT);
    expect(again.text).toBe(res.text);
  });

  it("says there are no scans yet and how to start one", async () => {
    const res = await ask("summarize my last scan");
    expect(res.headers["x-ai-specialist"]).toBe("findings");
    expect(res.text).toMatch(/no scans in this organization/i);
    expect(res.text).toContain("POST /api/v2/scan");
    expect(res.text).toContain("git_uri");
  });

  it("keeps history per session and per user", async () => {
    const session = `s-${randomUUID()}`;
    const first = await ask("what is CWE-79?", { sessione_id: session });
    expect(first.headers["x-ai-specialist"]).toBe("cwe");
    expect(first.text).toContain("CWE-79");

    const followUp = await ask("how do I fix it?", { sessione_id: session });
    expect(followUp.headers["x-ai-specialist"]).toBe("cwe");
    expect(followUp.text).toMatch(/^## CWE-79:/m);
    expect(followUp.text).toContain("https://cwe.mitre.org/data/definitions/79.html");

    // Same session id, another user: none of the owner's conversation carries over.
    const memberToken = await h.member("member");
    const stranger = await ask("how do I fix it?", { sessione_id: session }, memberToken);
    expect(stranger.headers["x-session-id"]).toBe(session);
    expect(stranger.headers["x-ai-specialist"]).not.toBe("cwe");
    expect(stranger.text).not.toContain("CWE-79");

    const memberId = (await request(h.app).get("/api/v2/profile").set("X-AX-KEY", memberToken)).body.user_id as string;
    expect(memberId).toMatch(UUID);
    const rows = await chatMessages({ sessionId: session });
    expect(rows.filter((r) => r.user_id === h.tenant.user_id).map((r) => r.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(rows.filter((r) => r.user_id === memberId).map((r) => r.role)).toEqual(["user", "assistant"]);
    expect(rows).toHaveLength(6);
  });

  it("answers on POST /api/v2/{organization_id}/chatbot, and 404 in Markdown for another tenant's organization", async () => {
    const res = await chat({ prompt: "who am I?" }, { path: `/api/v2/${h.tenant.organization_id}/chatbot` });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe(MARKDOWN);
    expect(res.text).toContain("Ada Owner");
    expect(res.headers["x-ai-request-id"]).toMatch(UUID);

    expectMarkdownError(await chat({ prompt: "who am I?" }, { path: `/api/v2/${other.organization_id}/chatbot` }), 404);
    expectMarkdownError(await chat({ prompt: "who am I?" }, { path: `/api/v2/${randomUUID()}/chatbot` }), 404);
    // And the other tenant cannot use ours.
    expectMarkdownError(
      await chat({ prompt: "who am I?" }, { path: `/api/v2/${h.tenant.organization_id}/chatbot`, token: other.token }),
      404,
    );
  });
});

describe("chat errors are Markdown", () => {
  it("401 without a token or with a bad one, on both paths", async () => {
    expectMarkdownError(await chat({ prompt: "who am I?" }, { token: null }), 401, /X-AX-KEY/);
    expectMarkdownError(await chat({ prompt: "who am I?" }, { token: "axk_not-a-real-token" }), 401);
    expectMarkdownError(await chat({ prompt: "who am I?" }, { token: null, path: `/api/v2/${h.tenant.organization_id}/chatbot` }), 401);
  });

  it.each([
    ["an empty prompt", { prompt: "" }, /prompt must not be empty/],
    ["a blank prompt", { prompt: "   \n " }, /prompt must not be empty/],
    ["no prompt", { stream: false }, /prompt is required/],
    ["a prompt over MAX_PROMPT_CHARS", { prompt: "a".repeat(2001) }, /prompt must be at most 2000 characters/],
    ["an unknown field", { prompt: "hi", temperature: 0.2 }, /Unknown field: temperature/],
    // Field names come back Markdown-escaped: sessione\_id.
    ["a bad sessione_id", { prompt: "hi", sessione_id: "has space" }, /sessione\\_id must be 1–128/],
    ["an empty sessione_id", { prompt: "hi", sessione_id: "" }, /sessione\\_id must be 1–128/],
    ["a sessione_id over 128 characters", { prompt: "hi", sessione_id: "s".repeat(129) }, /sessione\\_id must be 1–128/],
    ["a non-string sessione_id", { prompt: "hi", sessione_id: 7 }, /sessione\\_id must be a string/],
    ["a non-boolean stream", { prompt: "hi", stream: "yes" }, /stream must be true or false/],
    ["a non-string group_id", { prompt: "hi", group_id: 42 }, /group\\_id/],
    ["a body that is not an object", ["who am I?"], /JSON object/],
  ])("400 for %s", async (_what, body, message) => {
    const res = await chat(body);
    expectMarkdownError(res, 400, message);
    expect(res.text).not.toContain("has space");
  });

  it("accepts a prompt of exactly MAX_PROMPT_CHARS", async () => {
    await ask(`${"a ".repeat(999)}b?`);
  });

  it("415 for a text/plain body and 400 for malformed JSON", async () => {
    expectMarkdownError(
      await request(h.app).post("/api/v2/ai/chatbot").set("X-AX-KEY", h.tenant.token).set("Content-Type", "text/plain").send("who am I?"),
      415,
    );
    expectMarkdownError(
      await request(h.app)
        .post("/api/v2/ai/chatbot")
        .set("X-AX-KEY", h.tenant.token)
        .set("Content-Type", "application/json")
        .send('{"prompt": "who'),
      400,
      /not valid JSON/,
    );
    expectMarkdownError(
      await request(h.app)
        .post(`/api/v2/${h.tenant.organization_id}/chatbot`)
        .set("X-AX-KEY", h.tenant.token)
        .set("Content-Type", "application/json")
        .send("{,}"),
      400,
      /not valid JSON/,
    );
  });

  it("413 for an oversized body", async () => {
    expectMarkdownError(await chat({ prompt: "x".repeat(70_000) }), 413);
  });

  it("answers pre-route errors in Markdown on every path the chat route answers (Express matches paths case-insensitively)", async () => {
    const ok = await chat({ prompt: "who am I?" }, { path: "/api/v2/AI/Chatbot" });
    expect(ok.status).toBe(200);
    expect(ok.headers["content-type"]).toBe(MARKDOWN);
    expectMarkdownError(
      await request(h.app).post("/api/v2/AI/Chatbot").set("X-AX-KEY", h.tenant.token).set("Content-Type", "text/plain").send("who am I?"),
      415,
    );
    expectMarkdownError(
      await request(h.app)
        .post("/api/v2/AI/Chatbot")
        .set("X-AX-KEY", h.tenant.token)
        .set("Content-Type", "application/json")
        .send('{"prompt": '),
      400,
    );
  });

  it("404 for another tenant's group or organization", async () => {
    expectMarkdownError(await chat({ prompt: "summarize my last scan", group_id: other.group_id }), 404, /Group not found/);
    expectMarkdownError(await chat({ prompt: "summarize my last scan", group_id: randomUUID() }), 404, /Group not found/);
    expectMarkdownError(await chat({ prompt: "summarize my last scan", group_id: "not an id" }), 404, /Group not found/);
    expectMarkdownError(
      await request(h.app)
        .post(`/api/v2/ai/chatbot?organization_id=${other.organization_id}`)
        .set("X-AX-KEY", h.tenant.token)
        .send({ prompt: "who am I?" }),
      404,
    );
  });

  it("leaves the JSON endpoints' errors in JSON", async () => {
    const bad = await request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send({});
    expect(bad.status).toBe(400);
    expect(bad.headers["content-type"]).toMatch(/^application\/json/);
    expect(bad.body).toMatchObject({ code: 400, error: "validation_failed", message: expect.stringMatching(/git_uri is required/) });

    const malformed = await request(h.app)
      .post("/api/v2/scan")
      .set("X-AX-KEY", h.tenant.token)
      .set("Content-Type", "application/json")
      .send('{"git_uri": ');
    expect(malformed.status).toBe(400);
    expect(malformed.headers["content-type"]).toMatch(/^application\/json/);
    expect(malformed.body).toEqual({ code: 400, error: "malformed_json", message: "Request body is not valid JSON." });

    const noToken = await request(h.app).post("/api/v2/ai/review").send({ code: "x" });
    expect(noToken.status).toBe(401);
    expect(noToken.headers["content-type"]).toMatch(/^application\/json/);
  });
});

describe("streaming", () => {
  it("writes the answer as chunked Markdown lines, no SSE framing, equal to the whole answer", async () => {
    const whole = await ask(CWE89_PROMPT, { stream: false });
    const raw = await rawChat({ prompt: CWE89_PROMPT, stream: true });
    expect(raw.status).toBe(200);
    expect(raw.ended).toBe(true);
    expect(raw.headers["content-type"]).toBe(MARKDOWN);
    expect(raw.headers["transfer-encoding"]).toBe("chunked");
    expect(raw.headers["content-length"]).toBeUndefined();
    expect(raw.headers["x-ai-request-id"]).toMatch(UUID);
    expect(raw.headers["x-ai-specialist"]).toBe("cwe");
    expect(raw.headers["x-session-id"]).toMatch(UUID);
    expect(raw.body).not.toMatch(/^(?:data|event|id|retry):/m);

    // Line by line: several chunks, the first already holding the answer's first line.
    const lines = raw.body.split("\n");
    expect(lines.filter((l) => l.trim() !== "").length).toBeGreaterThan(3);
    expect(raw.chunks.length).toBeGreaterThanOrEqual(2);
    const firstLine = lines.find((l) => l.trim() !== "")!;
    expect(raw.chunks[0]!.startsWith(firstLine)).toBe(true);
    expect(raw.chunks[0]!.length).toBeLessThan(raw.body.length);
    expect(raw.chunks.every((c) => c.endsWith("\n"))).toBe(true);

    expect(raw.body).toBe(whole.text);
  });

  it("survives a client that hangs up mid-answer, and stores what was answered", async () => {
    const cut = await rawChat({ prompt: CWE89_PROMPT, stream: true }, { hangUpAfterFirstChunk: true });
    expect(cut.status).toBe(200);
    expect(cut.ended).toBe(false);
    const requestId = cut.headers["x-ai-request-id"] as string;
    expect(requestId).toMatch(UUID);

    const stored = await waitFor(async () => (await chatMessages({ requestId })).find((m) => m.role === "assistant"), {
      what: "the interrupted answer to be stored",
    });
    expect(stored).toMatchObject({ user_id: h.tenant.user_id, session_id: cut.headers["x-session-id"], specialist: "cwe" });
    expect(stored.content).toContain("CWE-89");
    // Either the whole answer went out before the hang-up, or what did is marked as interrupted.
    const whole = (await ask(CWE89_PROMPT)).text.trimEnd();
    if (stored.content !== whole) expect(stored.content).toMatch(/_\(answer interrupted: the client disconnected\)_$/);

    const next = await rawChat({ prompt: "who am I?", stream: true });
    expect(next.status).toBe(200);
    expect(next.ended).toBe(true);
    expect(next.body).toContain("Ada Owner");
  });
});

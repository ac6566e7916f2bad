// The chat assistant end to end on the real stack: PostgreSQL, Redis, the app, a BullMQ worker
// in this process running the real analyzers on a git repository made here, and the shipped
// offline answerers (no model server is configured, so nothing is faked in this file).
import fs from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import request from "supertest";
import { addMember, createToken, createUser } from "@ax/db";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

const MARKDOWN = "text/markdown; charset=utf-8";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
// A file name a hostile repository could carry: raw HTML and a table-cell break.
const HOSTILE_FILE = "web/<img src=x onerror=alert(1)>|pwn.js";
// Its vulnerable line also carries a fence breaker and a script tag into the snippet.
const HOSTILE_SOURCE = fixture("vulnerable.js").replace(
  'db.query("SELECT * FROM users WHERE id = " + id);',
  'db.query("SELECT * FROM users WHERE id = " + id); // ```</code><script>alert(1)</script>',
);
// A matched call whose lines include a bare ``` line: a fixed three-backtick fence would end there.
const FENCE_BREAKER_PY = [
  "import yaml",
  "",
  "",
  "def load(data):",
  '    return yaml.load(data + """',
  "```",
  "</code><script>alert(2)</script>",
  '""")',
  "",
].join("\n");

let h: ApiHarness;
let other: Awaited<ReturnType<ApiHarness["otherTenant"]>>;
let server: http.Server;
let port: number;

beforeAll(async () => {
  h = await createApiHarness({ env: { MAX_PROMPT_CHARS: "2000", MAX_BODY_BYTES: "65536" }, worker: true });
  other = await h.otherTenant();
  server = h.app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

function chat(body: unknown, opts: { token?: string | null; path?: string } = {}) {
  let r = request(h.app).post(opts.path ?? "/api/v2/ai/chatbot");
  if (opts.token !== null) r = r.set("X-AX-KEY", opts.token ?? h.tenant.token);
  return r.send(body as object);
}

async function ask(prompt: string, extra: Record<string, unknown> = {}, token?: string) {
  const res = await chat({ prompt, ...extra }, token === undefined ? {} : { token });
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toBe(MARKDOWN);
  return res;
}

function expectMarkdownError(res: request.Response, status: number, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toBe(MARKDOWN);
  expect(res.text.startsWith(`**Error ${status}.**`)).toBe(true);
  expect(res.headers["x-request-id"]).toBeDefined();
  if (message) expect(res.text).toMatch(message);
}

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  chunks: string[];
  body: string;
  ended: boolean;
}

/** A chat request over a real socket, reading the raw chunks; optionally hangs up after the first one. */
function rawChat(body: object, opts: { hangUpAfterFirstChunk?: boolean } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    let hungUp = false;
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/v2/ai/chatbot",
        agent: false,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload), "X-AX-KEY": h.tenant.token },
      },
      (res) => {
        const chunks: string[] = [];
        const done = (ended: boolean) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, chunks, body: chunks.join(""), ended });
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          chunks.push(c);
          if (opts.hangUpAfterFirstChunk && !hungUp) {
            hungUp = true;
            req.destroy();
            done(false);
          }
        });
        res.on("end", () => done(true));
        res.on("error", (err) => (hungUp ? undefined : reject(err)));
      },
    );
    req.on("error", (err) => (hungUp ? undefined : reject(err)));
    req.end(payload);
  });
}

/**
 * Places where raw HTML would start once the Markdown is rendered (CommonMark rules, enough
 * for our answers): a `<` followed by a tag character outside code blocks, code spans and
 * backslash escapes. Returns the offending lines.
 */
function rawHtmlOutsideCode(md: string): string[] {
  const offending: string[] = [];
  let fence: { char: string; length: number } | null = null;
  for (const line of md.split("\n")) {
    const f = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence.char && f[1]!.length >= fence.length && f[2]!.trim() === "") fence = null;
      continue;
    }
    if (f && !(f[1]![0] === "`" && f[2]!.includes("`"))) {
      fence = { char: f[1]![0]!, length: f[1]!.length };
      continue;
    }
    for (let i = 0; i < line.length;) {
      const c = line[i]!;
      if (c === "\\" && i + 1 < line.length) {
        i += 2;
      } else if (c === "`") {
        const run = /^`+/.exec(line.slice(i))![0];
        const close = new RegExp(`(?<!\`)${run}(?!\`)`).exec(line.slice(i + run.length));
        i += close ? run.length + close.index + run.length : run.length;
      } else if (c === "<" && /[A-Za-z/!?]/.test(line[i + 1] ?? "")) {
        offending.push(line);
        break;
      } else {
        i++;
      }
    }
  }
  if (fence) offending.push(`(unclosed code fence ${fence.char.repeat(fence.length)})`);
  return offending;
}

/** The "Open findings by severity" table of a scan summary, as numbers. */
function severityTable(md: string): Record<string, number> {
  const section = md.split("#### Open findings by severity")[1]?.split("\n#### ")[0] ?? "";
  const out: Record<string, number> = {};
  for (const m of section.matchAll(/^\| (\*\*Total\*\*|[A-Z]+) \| (\d+) \|$/gm)) out[m[1] === "**Total**" ? "total" : m[1]!] = Number(m[2]);
  return out;
}

async function chatMessages(where: { requestId?: string; sessionId?: string }) {
  let q = h.deps.db.selectFrom("chat_messages").selectAll().where("organization_id", "=", h.tenant.organization_id);
  if (where.requestId) q = q.where("request_id", "=", where.requestId);
  if (where.sessionId) q = q.where("session_id", "=", where.sessionId);
  return q.orderBy("id").execute();
}

const CWE89_PROMPT = "what is CWE-89 and how do I fix it?";

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

describe("with a completed scan", () => {
  let repo: string;
  let scanId: string;
  let scan: { git_uri: string; group_id: string; counts: Record<string, number>; state: string };
  let findings: { finding_id: string; file: string; cwe_id: string | null; severity: string }[];

  beforeAll(async () => {
    repo = makeGitRepo({
      "src/db.js": fixture("vulnerable.js"),
      "src/safe.js": fixture("safe.js"),
      "app/util.py": fixture("vulnerable.py"),
      "java/Vulnerable.java": fixture("Vulnerable.java"),
      [HOSTILE_FILE]: HOSTILE_SOURCE,
      "app/loader.py": FENCE_BREAKER_PY,
    });
    const started = await request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send({ git_uri: repo });
    expect(started.status).toBe(200);
    scanId = started.body.scan_id as string;
    scan = await waitFor(
      async () => {
        const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", h.tenant.token);
        return ["completed", "failed", "cancelled"].includes(r.body.state) ? r.body : undefined;
      },
      { timeoutMs: 90_000, what: `scan ${scanId}` },
    );
    expect(scan.state).toBe("completed");
    const list = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500`).set("X-AX-KEY", h.tenant.token);
    expect(list.status).toBe(200);
    findings = list.body.findings;
  }, 120_000);

  it("summarizes the last scan with the scan's own numbers", async () => {
    expect(scan.counts.total).toBe(findings.length);
    expect(findings.length).toBeGreaterThan(0);

    const res = await ask("summarize my last scan");
    expect(res.headers["x-ai-specialist"]).toBe("findings");
    expect(res.text).toContain(scan.git_uri);
    expect(res.text).toContain(scanId);

    const table = severityTable(res.text);
    expect(table.total).toBe(scan.counts.total);
    for (const s of SEVERITIES) {
      const expected = findings.filter((f) => f.severity === s).length;
      if (expected > 0) expect(table[s]).toBe(expected);
      expect(table[s] ?? 0).toBe(scan.counts[s] ?? 0);
    }
    expect(SEVERITIES.reduce((sum, s) => sum + (table[s] ?? 0), 0)).toBe(table.total);

    // Top weaknesses: each row's count is the number of that CWE's findings.
    const cweRows = [...res.text.matchAll(/^\| (CWE-\d+) \| [^\n]* \| (\d+) \|$/gm)];
    expect(cweRows.length).toBeGreaterThan(0);
    for (const [, cwe, n] of cweRows) expect(Number(n)).toBe(findings.filter((f) => f.cwe_id === cwe).length);
  });

  it("sees only the group it is given", async () => {
    const created = await request(h.app)
      .post(`/api/v2/organization/${h.tenant.organization_id}/group`)
      .set("X-AX-KEY", h.tenant.token)
      .send({ name: "empty-group" });
    expect(created.status).toBe(200);
    const emptyGroup = created.body.group_id as string;

    const empty = await ask("summarize my last scan", { group_id: emptyGroup });
    expect(empty.text).toMatch(/no scans in this group/i);
    expect(empty.text).not.toContain(scan.git_uri);
    expect(empty.text).toContain(`group_id=${emptyGroup}`);
    const row = await h.deps.db
      .selectFrom("ai_requests")
      .selectAll()
      .where("id", "=", empty.headers["x-ai-request-id"] as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: "chat", specialist: "findings", group_id: emptyGroup });

    const own = await ask("summarize my last scan", { group_id: scan.group_id });
    expect(own.text).toContain(scan.git_uri);
    expect(severityTable(own.text).total).toBe(scan.counts.total);

    // Another tenant sees none of it.
    const theirs = await ask("summarize my last scan", {}, other.token);
    expect(theirs.text).toMatch(/no scans in this organization/i);
    expect(theirs.text).not.toContain(scan.git_uri);
    const named = await ask(`summarize scan ${scanId}`, {}, other.token);
    expect(named.text).toMatch(/can't find scan/);
    expect(named.text).not.toContain(scan.git_uri);
    expect((await ask(`summarize scan ${scanId}`)).text).toContain(scan.git_uri);
  });

  it("explains how to fix one of the caller's findings, and nobody else's", async () => {
    const sqli = findings.find((f) => f.file === "src/db.js" && f.cwe_id === "CWE-89");
    expect(sqli).toBeDefined();
    const res = await ask(`how do I fix finding ${sqli!.finding_id}`);
    expect(res.headers["x-ai-specialist"]).toBe("remediation");
    expect(res.text).toContain("src/db.js");
    expect(res.text).toContain("CWE-89");
    expect(res.text).toContain(sqli!.finding_id);

    const unknown = randomUUID();
    const missing = await ask(`how do I fix finding ${unknown}`);
    expect(missing.headers["x-ai-specialist"]).toBe("remediation");
    expect(missing.text).toMatch(/can't find finding/);
    expect(missing.text).toContain(unknown);

    // The other tenant asks about our finding: the same answer as for an id that does not exist.
    const probe = await ask(`how do I fix finding ${sqli!.finding_id}`, {}, other.token);
    expect(probe.text).toMatch(/can't find finding/);
    expect(probe.text).not.toContain("src/db.js");
    expect(probe.text).not.toContain("CWE-89");
    expect(probe.text.replace(sqli!.finding_id, unknown)).toBe(missing.text);

    // A group of the same organization that does not hold the scan cannot read it either.
    const group = await request(h.app)
      .post(`/api/v2/organization/${h.tenant.organization_id}/group`)
      .set("X-AX-KEY", h.tenant.token)
      .send({ name: "other-team" });
    expect(group.status).toBe(200);
    const scoped = await ask(`how do I fix finding ${sqli!.finding_id}`, { group_id: group.body.group_id });
    expect(scoped.text).toMatch(/can't find finding/);
    expect(scoped.text).not.toContain("src/db.js");
  });

  it("follows up on a listed finding in the same session", async () => {
    const session = `fix-${randomUUID()}`;
    const summary = await ask("summarize my last scan", { sessione_id: session });
    const listed = /finding `([0-9a-f-]{36})`/.exec(summary.text);
    expect(listed).not.toBeNull();
    const finding = findings.find((f) => f.finding_id === listed![1]);
    expect(finding).toBeDefined();
    const res = await ask("how do I fix it?", { sessione_id: session });
    expect(res.headers["x-ai-specialist"]).toBe("remediation");
    expect(res.text).toContain(finding!.finding_id);
    if (finding!.cwe_id) expect(res.text).toContain(finding!.cwe_id);
  });

  it("never renders a hostile repository's file names or code as raw HTML", async () => {
    const hostile = findings.filter((f) => f.file === HOSTILE_FILE);
    expect(hostile.length).toBeGreaterThan(0);

    const summary = await ask("summarize my last scan");
    expect(rawHtmlOutsideCode(summary.text)).toEqual([]);

    // Per-file tally: the file name's `|` must not split the table cell.
    const files = await ask("which files have the most findings in my last scan?");
    expect(files.headers["x-ai-specialist"]).toBe("findings");
    expect(files.text).toContain("<img src=x onerror=alert(1)>");
    expect(rawHtmlOutsideCode(files.text)).toEqual([]);
    const row = files.text.split("\n").find((l) => l.startsWith("|") && l.includes("onerror"));
    expect(row).toBeDefined();
    expect(row!.split(/(?<!\\)\|/)).toHaveLength(4);
    expect(Number(/\| (\d+) \|$/.exec(row!)![1])).toBe(hostile.length);

    // The fix of a finding there: its snippet carries a ``` and a <script>; both stay code.
    const target = hostile.find((f) => f.cwe_id === "CWE-89") ?? hostile[0]!;
    const fix = await ask(`how do I fix finding ${target.finding_id}`);
    expect(fix.headers["x-ai-specialist"]).toBe("remediation");
    expect(fix.text).toContain("onerror");
    expect(rawHtmlOutsideCode(fix.text)).toEqual([]);
    if (target.cwe_id === "CWE-89") expect(fix.text).toContain("<script>alert(1)</script>");

    const breaker = findings.find((f) => f.file === "app/loader.py" && f.cwe_id === "CWE-502");
    expect(breaker).toBeDefined();
    const fence = await ask(`how do I fix finding ${breaker!.finding_id}`);
    expect(fence.text).toContain("</code><script>alert(2)</script>");
    expect(fence.text.split("\n")).toContain("```");
    expect(rawHtmlOutsideCode(fence.text)).toEqual([]);
  });

  it("never renders a hostile display name as raw HTML", async () => {
    const user = await createUser(h.deps.db, {
      email: "mallory@acme.test",
      displayName: "<img src=x onerror=alert(1)> | **Mallory**",
      identityProvider: "google",
    });
    await addMember(h.deps.db, h.tenant.organization_id, user.id, "viewer");
    const { token } = await createToken(h.deps.db, { userId: user.id, name: "mallory", expiresInDays: 1 });
    const res = await ask("who am I?", {}, token);
    expect(res.text).toContain("Mallory");
    expect(res.text).toContain("mallory@acme.test");
    expect(rawHtmlOutsideCode(res.text)).toEqual([]);
    expect(res.text).not.toContain("**Mallory**");
  });

  // Last in this block: it triages findings of the shared scan.
  it("follows triage: a finding marked FALSE POSITIVE leaves its severity and total, a changed severity moves", async () => {
    const before = severityTable((await ask(`summarize scan ${scanId}`)).text);
    const [closed, moved] = findings;
    const put = (id: string, body: object) =>
      request(h.app).put(`/api/v2/scan/${scanId}/finding/${id}`).set("X-AX-KEY", h.tenant.token).send(body);
    expect((await put(closed!.finding_id, { status: "false_positive", reason: "test data" })).status).toBe(200);
    const to = moved!.severity === "INFO" ? "CRITICAL" : "INFO";
    expect((await put(moved!.finding_id, { severity: to })).status).toBe(200);
    const counts = (await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", h.tenant.token)).body.counts as Record<
      string,
      number
    >;

    const res = await ask(`summarize scan ${scanId}`);
    const table = severityTable(res.text);
    expect(table.total).toBe(before.total! - 1);
    expect(table.total).toBe(counts.total);
    for (const s of SEVERITIES) expect(table[s] ?? 0).toBe(counts[s]);
    expect(table[to]).toBe((before[to] ?? 0) + 1);
    expect(res.text).toContain("| FALSE POSITIVE | 1 |");
    expect(res.text).toContain(`| TO REVIEW | ${counts.to_review} |`);
    // The closed finding is still listed (most severe first), marked with the reviewer's verdict.
    expect(res.text.split("\n").find((l) => l.includes(closed!.finding_id))).toMatch(/ · FALSE POSITIVE/);
  });
});

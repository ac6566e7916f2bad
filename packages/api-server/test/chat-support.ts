/**
 * The chat tests' rig (src/chat*.test.ts): a real API with a worker in process, a second tenant,
 * a listening socket for raw streaming reads, and readers for the Markdown the chat answers.
 * Nothing here is faked: no model server is configured, so the offline answerers speak.
 */
import fs from "node:fs";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

export const MARKDOWN = "text/markdown; charset=utf-8";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
// A file name a hostile repository could carry: raw HTML and a table-cell break.
export const HOSTILE_FILE = "web/<img src=x onerror=alert(1)>|pwn.js";
// Its vulnerable line also carries a fence breaker and a script tag into the snippet.
export const HOSTILE_SOURCE = fixture("vulnerable.js").replace(
  'db.query("SELECT * FROM users WHERE id = " + id);',
  'db.query("SELECT * FROM users WHERE id = " + id); // ```</code><script>alert(1)</script>',
);
// A matched call whose lines include a bare ``` line: a fixed three-backtick fence would end there.
export const FENCE_BREAKER_PY = [
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

/** Registers beforeAll/afterAll for one harness and returns what the tests call. */
export function chatRig() {
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

  async function chatMessages(where: { requestId?: string; sessionId?: string }) {
    let q = h.deps.db.selectFrom("chat_messages").selectAll().where("organization_id", "=", h.tenant.organization_id);
    if (where.requestId) q = q.where("request_id", "=", where.requestId);
    if (where.sessionId) q = q.where("session_id", "=", where.sessionId);
    return q.orderBy("id").execute();
  }

  return {
    get h() {
      return h;
    },
    get other() {
      return other;
    },
    chat,
    ask,
    rawChat: (body: object, opts: { hangUpAfterFirstChunk?: boolean } = {}) => rawChatTo(port, h.tenant.token, body, opts),
    chatMessages,
  };
}

export function expectMarkdownError(res: request.Response, status: number, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toBe(MARKDOWN);
  expect(res.text.startsWith(`**Error ${status}.**`)).toBe(true);
  expect(res.headers["x-request-id"]).toBeDefined();
  if (message) expect(res.text).toMatch(message);
}

export interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  chunks: string[];
  body: string;
  ended: boolean;
}

/**
 * Places where raw HTML would start once the Markdown is rendered (CommonMark rules, enough
 * for our answers): a `<` followed by a tag character outside code blocks, code spans and
 * backslash escapes. Returns the offending lines.
 */
export function rawHtmlOutsideCode(md: string): string[] {
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
export function severityTable(md: string): Record<string, number> {
  const section = md.split("#### Open findings by severity")[1]?.split("\n#### ")[0] ?? "";
  const out: Record<string, number> = {};
  for (const m of section.matchAll(/^\| (\*\*Total\*\*|[A-Z]+) \| (\d+) \|$/gm)) out[m[1] === "**Total**" ? "total" : m[1]!] = Number(m[2]);
  return out;
}

export const CWE89_PROMPT = "what is CWE-89 and how do I fix it?";

/** A chat request over a real socket, reading the raw chunks; optionally hangs up after the first one. */
export function rawChatTo(port: number, token: string, body: object, opts: { hangUpAfterFirstChunk?: boolean } = {}): Promise<Raw> {
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
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload), "X-AX-KEY": token },
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

/**
 * A FAKE of an OpenAI-compatible model server (Ollama, vLLM, llama.cpp server): the one fake
 * this project allows, because no LLM server can run in the test environment (STYLE.md, principle 8).
 * It is a real HTTP server on 127.0.0.1 that answers POSTs from a script of replies and
 * records what it received, so clients are tested over a real socket: real timeouts, real
 * disconnects. Tests only; nothing in production imports it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { type AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export type FakeReply =
  /** A non-streamed chat completion. */
  | { type: "completion"; content: string; model?: string }
  /**
   * An SSE stream: a role-only chunk (as real servers send first), one chunk per delta with
   * `delayMs` before each, `raw` SSE text, then `data: [DONE]` unless `done: false`.
   * `hang` keeps the connection open at the end instead of closing it.
   */
  | { type: "stream"; deltas: string[]; model?: string; delayMs?: number; raw?: string; done?: boolean; hang?: boolean }
  /** An error status; the body defaults to OpenAI's `{"error":{"message":…}}`. */
  | { type: "status"; status: number; body?: string; retryAfter?: string }
  /** Any body; `chunked` leaves out Content-Length. */
  | { type: "raw"; body: string; status?: number; contentType?: string; chunked?: boolean }
  /** Reads the request and never answers, not even headers. */
  | { type: "hang" };

export interface FakeRequest {
  method: string;
  /** Path and query, e.g. /v1/chat/completions. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or its text when it is not JSON. */
  body: unknown;
  /** Resolves when the client closed the connection before the reply was complete. */
  disconnected: Promise<void>;
}

export interface FakeOpenAiServer {
  /** The OpenAI root to give a client, e.g. http://127.0.0.1:41234/v1. */
  baseUrl: string;
  /** Every request received, in order. */
  requests: FakeRequest[];
  /** Queues replies, one per request in order; unscripted requests get a 500. */
  script(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      const disconnected = new Promise<void>((resolve) => {
        res.on("close", () => {
          if (!res.writableFinished) resolve();
        });
      });
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, disconnected });
      const reply = queue.shift() ?? {
        type: "status",
        status: 500,
        body: JSON.stringify({ error: { message: "fake server: no reply scripted" } }),
      };
      void send(res, reply);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(res: ServerResponse, reply: FakeReply): Promise<void> {
  switch (reply.type) {
    case "completion": {
      const model = reply.model ?? "fake-model";
      const message = { role: "assistant", content: reply.content };
      json(res, 200, { id: "chatcmpl-fake", object: "chat.completion", model, choices: [{ index: 0, message, finish_reason: "stop" }] });
      return;
    }
    case "stream":
      return sendStream(res, reply);
    case "status": {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (reply.retryAfter !== undefined) headers["retry-after"] = reply.retryAfter;
      res.writeHead(reply.status, headers);
      res.end(reply.body ?? JSON.stringify({ error: { message: `fake server: status ${reply.status}`, code: reply.status } }));
      return;
    }
    case "raw": {
      const headers: Record<string, string> = { "content-type": reply.contentType ?? "application/json" };
      if (!reply.chunked) headers["content-length"] = String(Buffer.byteLength(reply.body));
      res.writeHead(reply.status ?? 200, headers);
      if (reply.chunked) res.write(reply.body);
      res.end(reply.chunked ? undefined : reply.body);
      return;
    }
    case "hang":
      return;
  }
}

async function sendStream(res: ServerResponse, reply: Extract<FakeReply, { type: "stream" }>): Promise<void> {
  const model = reply.model ?? "fake-model";
  const chunk = (delta: Record<string, string>) =>
    `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", model, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(chunk({ role: "assistant" }));
  for (const content of reply.deltas) {
    if (reply.delayMs) await sleep(reply.delayMs);
    if (res.destroyed) return;
    res.write(chunk({ content }));
  }
  if (reply.raw) res.write(reply.raw);
  if (reply.hang) return;
  if (reply.done ?? true) res.write("data: [DONE]\n\n");
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * Runs against packages/testkit/src/fake-openai-server.ts, a FAKE of a model server: the one fake this project
 * allows, because no LLM server can run in the test environment (STYLE.md, principle 8). The client
 * still talks real HTTP over loopback, so timeouts, retries and disconnects are real.
 */
import { createOpenAiClient, type OpenAiClientOptions, type RetryInfo } from "./openai-client";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "@ax/testkit/fake-openai-server";
import { ProviderError, type CompletionRequest } from "./types";

const SECRET = "sk-test-7f3a9c-do-not-leak";
const MiB = 1024 * 1024;

let server: FakeOpenAiServer;
beforeEach(async () => {
  server = await startFakeOpenAiServer();
});
afterEach(() => server.close());

function client(overrides: Partial<OpenAiClientOptions> = {}) {
  return createOpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 300, retries: 0, ...overrides });
}

const ask = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  model: "qwen2.5-coder:7b",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Is eval() dangerous?" },
  ],
  ...extra,
});

async function collect(deltas: AsyncIterable<string>): Promise<{ got: string[]; error?: ProviderError }> {
  const got: string[] = [];
  try {
    for await (const delta of deltas) got.push(delta);
    return { got };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { got, error };
  }
}

/** Fails the test instead of hanging it when the server never sees the disconnect. */
function within<T>(promise: Promise<T>, ms = 2_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("complete", () => {
  it("posts to /chat/completions and returns the content and the model that answered", async () => {
    server.script({ type: "completion", content: "Yes: it runs arbitrary code.", model: "qwen2.5-coder:7b-q4" });
    const result = await client().complete(ask({ temperature: 0.1, maxTokens: 64 }));
    expect(result).toEqual({ content: "Yes: it runs arbitrary code.", model: "qwen2.5-coder:7b-q4" });
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
    expect(req?.body).toEqual({ model: "qwen2.5-coder:7b", messages: ask().messages, temperature: 0.1, max_tokens: 64, stream: false });
    expect(req?.headers.authorization).toBeUndefined();
  });

  it("tolerates a trailing slash on baseUrl", async () => {
    server.script({ type: "completion", content: "ok" });
    await client({ baseUrl: `${server.baseUrl}/` }).complete(ask());
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
  });
});

describe("stream", () => {
  it("yields the deltas in order, skips the role-only chunk and stops at [DONE]", async () => {
    server.script({ type: "stream", deltas: ["Yes", ", it", " runs code."] });
    const { got, error } = await collect(client().stream(ask()));
    expect(error).toBeUndefined();
    expect(got).toEqual(["Yes", ", it", " runs code."]);
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
    expect(server.requests[0]?.headers.accept).toBe("text/event-stream");
  });

  it("ends at the end of the body when the server sends no [DONE]", async () => {
    server.script({ type: "stream", deltas: ["a", "b"], done: false });
    expect(await collect(client().stream(ask()))).toEqual({ got: ["a", "b"] });
  });

  it("waits out gaps shorter than the idle timeout, however long the whole stream takes", async () => {
    server.script({ type: "stream", deltas: ["1", "2", "3", "4"], delayMs: 120 });
    expect(await collect(client({ timeoutMs: 300 }).stream(ask()))).toEqual({ got: ["1", "2", "3", "4"] });
  });

  it("turns an error event into a ProviderError", async () => {
    const crash = `data: ${JSON.stringify({ error: { message: "CUDA out of memory", code: 500 } })}\n\n`;
    server.script({ type: "stream", deltas: ["partial"], raw: crash });
    const { got, error } = await collect(client({ retries: 2 }).stream(ask()));
    expect(got).toEqual(["partial"]);
    expect(error).toMatchObject({ kind: "http", status: 500, message: expect.stringContaining("CUDA out of memory") });
    expect(server.requests).toHaveLength(1);

    server.script({ type: "stream", deltas: [], raw: "event: error\ndata: model not loaded\n\n" });
    expect((await collect(client().stream(ask()))).error).toMatchObject({
      kind: "protocol",
      message: expect.stringContaining("model not loaded"),
    });
  });

  it("fails an idle stream with a timeout and does not retry once a delta was yielded", async () => {
    server.script({ type: "stream", deltas: ["first"], done: false, hang: true });
    const { got, error } = await collect(client({ timeoutMs: 150, retries: 2 }).stream(ask()));
    expect(got).toEqual(["first"]);
    expect(error?.kind).toBe("timeout");
    expect(server.requests).toHaveLength(1);
    await within(server.requests[0]!.disconnected);
  });

  it("aborts mid-stream at once, and the server sees the client go", async () => {
    server.script({ type: "stream", deltas: ["first"], done: false, hang: true });
    const controller = new AbortController();
    const stream = client({ timeoutMs: 5_000, retries: 2 }).stream(ask({ signal: controller.signal }));
    const deltas = stream[Symbol.asyncIterator]();
    expect(await deltas.next()).toEqual({ done: false, value: "first" });
    const pending = deltas.next();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ kind: "aborted" });
    expect(Date.now() - started).toBeLessThan(1_000);
    await within(server.requests[0]!.disconnected);
    expect(server.requests).toHaveLength(1);
  });

  it("cancels the connection when the consumer breaks out of the loop", async () => {
    server.script({ type: "stream", deltas: ["a", "b", "c"], done: false, hang: true });
    for await (const delta of client({ timeoutMs: 5_000 }).stream(ask())) {
      expect(delta).toBe("a");
      break;
    }
    await within(server.requests[0]!.disconnected);
  });

  it("refuses a stream past 4 MiB", async () => {
    const mebibyte = "x".repeat(MiB);
    server.script({ type: "stream", deltas: [mebibyte, mebibyte, mebibyte, mebibyte, mebibyte] });
    const { got, error } = await collect(client({ timeoutMs: 2_000 }).stream(ask()));
    expect(error).toMatchObject({ kind: "protocol", message: expect.stringContaining("4 MiB") });
    expect(got.length).toBeLessThan(5);
  });
});

describe("completeJson", () => {
  const verdict = {
    name: "verdict",
    schema: { type: "object", properties: { exploitable: { type: "boolean" } }, required: ["exploitable"], additionalProperties: false },
  };
  const parseVerdict = (value: unknown) => {
    if (typeof value !== "object" || value === null || typeof (value as { exploitable?: unknown }).exploitable !== "boolean") {
      throw new Error("expected { exploitable: boolean }");
    }
    return value as { exploitable: boolean };
  };
  const askJson = () => ({ ...ask(), schema: verdict, parse: parseVerdict });

  it("sends the schema as a strict json_schema response_format and returns the parsed value", async () => {
    server.script({ type: "completion", content: '{"exploitable":true}', model: "m1" });
    await expect(client().completeJson(askJson())).resolves.toEqual({ value: { exploitable: true }, model: "m1" });
    expect(server.requests[0]?.body).toMatchObject({
      stream: false,
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema: verdict.schema, strict: true } },
    });
  });

  it("reads JSON inside a ```json fence", async () => {
    server.script({ type: "completion", content: '```json\n{"exploitable": false}\n```\n' });
    await expect(client().completeJson(askJson())).resolves.toMatchObject({ value: { exploitable: false } });
  });

  it("fails with protocol on invalid JSON and on a shape parse refuses", async () => {
    server.script(
      { type: "completion", content: "I think it is exploitable." },
      { type: "completion", content: '{"exploitable":"maybe"}' },
    );
    await expect(client({ retries: 2 }).completeJson(askJson())).rejects.toMatchObject({
      kind: "protocol",
      message: expect.stringContaining("not valid JSON"),
    });
    await expect(client({ retries: 2 }).completeJson(askJson())).rejects.toMatchObject({
      kind: "protocol",
      message: expect.stringContaining("does not match"),
    });
    expect(server.requests).toHaveLength(2);
  });
});

describe("retries", () => {
  it("retries a 500 and succeeds", async () => {
    server.script({ type: "status", status: 500 }, { type: "completion", content: "ok" });
    const retries: RetryInfo[] = [];
    const result = await client({ retries: 2, onRetry: (info) => retries.push(info) }).complete(ask());
    expect(result.content).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error: { kind: "http", status: 500 } });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(100);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(300);
  });

  it("honours Retry-After on a 429", async () => {
    server.script({ type: "status", status: 429, retryAfter: "1" }, { type: "stream", deltas: ["ok"] });
    const retries: RetryInfo[] = [];
    const started = Date.now();
    expect(await collect(client({ retries: 1, onRetry: (info) => retries.push(info) }).stream(ask()))).toEqual({ got: ["ok"] });
    expect(retries.map((r) => r.delayMs)).toEqual([1_000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("caps Retry-After at 5 s, and an abort ends the wait", async () => {
    server.script({ type: "status", status: 503, retryAfter: "120" });
    const controller = new AbortController();
    const retries: RetryInfo[] = [];
    const onRetry = (info: RetryInfo) => {
      retries.push(info);
      setTimeout(() => controller.abort(), 50);
    };
    const started = Date.now();
    await expect(client({ retries: 3, onRetry }).complete(ask({ signal: controller.signal }))).rejects.toMatchObject({ kind: "aborted" });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(retries.map((r) => r.delayMs)).toEqual([5_000]);
    expect(server.requests).toHaveLength(1);
  });

  it("does not retry a 400, and keeps the server's message short", async () => {
    server.script({ type: "status", status: 400, body: JSON.stringify({ error: { message: `unknown model ${"x".repeat(1_000)}` } }) });
    const error = await client({ retries: 3 })
      .complete(ask())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "http", status: 400, message: expect.stringMatching(/400: unknown model x+…$/) });
    expect((error as Error).message.length).toBeLessThan(260);
    expect(server.requests).toHaveLength(1);
  });

  it("times out when the server never sends headers, retrying the attempt", async () => {
    server.script({ type: "hang" }, { type: "hang" });
    const started = Date.now();
    await expect(client({ timeoutMs: 150, retries: 1 }).complete(ask())).rejects.toMatchObject({ kind: "timeout" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(2);
    await within(server.requests[1]!.disconnected);
  });

  it("reports an unreachable server as a network error", async () => {
    const baseUrl = server.baseUrl;
    await server.close();
    const retries: RetryInfo[] = [];
    await expect(client({ baseUrl, retries: 1, onRetry: (info) => retries.push(info) }).complete(ask())).rejects.toMatchObject({
      kind: "network",
    });
    expect(retries).toHaveLength(1);
  });
});

describe("API key", () => {
  it("is sent as a Bearer token and never appears in an error", async () => {
    server.script(
      { type: "completion", content: "ok" },
      { type: "status", status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}` } }) },
    );
    const keyed = client({ apiKey: SECRET });
    await keyed.complete(ask());
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);

    const error = await keyed.complete(ask()).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "http", status: 401, message: expect.stringContaining("[redacted]") });
    expect(`${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`).not.toContain(SECRET);
  });
});

describe("bounds and validation", () => {
  it.each(["", "localhost:11434/v1", "ftp://127.0.0.1/v1", "file:///tmp/socket"])("refuses baseUrl %j", (baseUrl) => {
    expect(() => createOpenAiClient({ baseUrl, timeoutMs: 100, retries: 0 })).toThrow(/baseUrl must be an http\(s\) URL/);
  });

  it("refuses a baseUrl carrying credentials", () => {
    expect(() => createOpenAiClient({ baseUrl: "http://user:pw@127.0.0.1/v1", timeoutMs: 100, retries: 0 })).toThrow(/credentials/);
  });

  it.each([false, true])("refuses a body over 4 MiB (chunked: %s)", async (chunked) => {
    const content = "x".repeat(4 * MiB);
    server.script({ type: "raw", chunked, body: JSON.stringify({ model: "m", choices: [{ message: { role: "assistant", content } }] }) });
    await expect(client({ timeoutMs: 2_000 }).complete(ask())).rejects.toMatchObject({
      kind: "protocol",
      message: expect.stringContaining("4 MiB"),
    });
  });
});

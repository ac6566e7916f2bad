/**
 * The ModelProvider for self-hosted model servers speaking OpenAI's chat-completions protocol
 * (Ollama, vLLM, llama.cpp server). This file is the transport: attempts, timeouts, retries,
 * aborts and size bounds; openai-wire.ts reads and writes the payloads.
 *
 * A local model can take long to start answering and then go quiet mid-answer, so one
 * `timeoutMs` bounds each wait (for headers, for the next stream chunk) rather than the
 * whole stream. A stream is only retried before its first delta: after that the caller
 * has text it cannot take back.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { parseCompletion, requestBody, serverMessage, streamDelta, unfence, type Redact } from "./openai-wire";
import { ProviderError, type CompletionRequest, type CompletionResult, type JsonCompletionRequest, type ModelProvider } from "./types";

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Enough of an error body for its message; the rest is left unread. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const BACKOFF_FIRST_MS = 200;
const BACKOFF_CAP_MS = 2_000;
const RETRY_AFTER_CAP_MS = 5_000;

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  /** Why the previous attempt failed. */
  error: ProviderError;
}

export interface OpenAiClientOptions {
  /** The server's OpenAI-compatible root, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey?: string;
  /** Bounds the wait for headers and each gap between stream chunks; a whole non-streamed request. */
  timeoutMs: number;
  /** Extra attempts after a network error, a timeout, HTTP 429 or 5xx. */
  retries: number;
  fetch?: typeof fetch;
  onRetry?: (info: RetryInfo) => void;
}

export function createOpenAiClient(options: OpenAiClientOptions): ModelProvider {
  const transport = new Transport(options);
  return {
    complete: (req) => transport.post(req, {}),
    stream: (req) => transport.stream(req),
    completeJson: (req) => completeJson(transport, req),
  };
}

/** A JSON answer to the request's schema, parsed and validated by the request's parser. */
async function completeJson<T>(transport: Transport, req: JsonCompletionRequest<T>): Promise<{ value: T; model: string }> {
  const { name, schema } = req.schema;
  const { content, model } = await transport.post(req, {
    response_format: { type: "json_schema", json_schema: { name, schema, strict: true } },
  });
  let raw: unknown;
  try {
    raw = JSON.parse(unfence(content));
  } catch {
    throw new ProviderError("protocol", `model output for schema "${name}" is not valid JSON`);
  }
  try {
    return { value: req.parse(raw), model };
  } catch (err) {
    // The validator's error goes in `cause`, not the message: it may quote the output.
    throw Object.assign(new ProviderError("protocol", `model output does not match schema "${name}"`), { cause: err });
  }
}

/** The requests to one model server: attempts, retries and bounds. */
class Transport {
  private readonly endpoint: string;
  private readonly doFetch: typeof fetch;
  private readonly redact: Redact;

  constructor(private readonly options: OpenAiClientOptions) {
    this.endpoint = chatEndpoint(options.baseUrl);
    if (!(options.timeoutMs > 0)) throw new Error("createOpenAiClient: timeoutMs must be a positive number of milliseconds");
    if (!Number.isInteger(options.retries) || options.retries < 0)
      throw new Error("createOpenAiClient: retries must be a whole number ≥ 0");
    const { apiKey } = options;
    this.doFetch = options.fetch ?? globalThis.fetch;
    this.redact = (text) => (apiKey ? text.split(apiKey).join("[redacted]") : text);
  }

  /** Sends the request and returns a 2xx response; any other status becomes a ProviderError. */
  private async open(body: string, stream: boolean, attempt: Attempt): Promise<Response> {
    const { apiKey } = this.options;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
    };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const res = await this.doFetch(this.endpoint, { method: "POST", headers, body, signal: attempt.signal });
    if (res.ok) return res;
    const { bytes } = await readUpTo(res, MAX_ERROR_BODY_BYTES).catch(() => ({ bytes: new Uint8Array() }));
    const detail = serverMessage(new TextDecoder().decode(bytes), this.redact);
    throw new HttpStatusError(
      `model server answered HTTP ${res.status}${detail ? `: ${detail}` : ""}`,
      res.status,
      retryAfterMs(res.headers.get("retry-after")),
    );
  }

  /** Waits before the next attempt, or rethrows when `err` is final. */
  private async backOff(retry: number, err: unknown, signal: AbortSignal | undefined): Promise<void> {
    if (!(err instanceof ProviderError) || retry >= this.options.retries || !isRetryable(err)) throw err;
    const delayMs = (err instanceof HttpStatusError ? err.retryAfterMs : undefined) ?? jitteredBackoffMs(retry);
    this.options.onRetry?.({ attempt: retry + 1, delayMs, error: err });
    try {
      await sleep(delayMs, undefined, { signal });
    } catch {
      throw abortedError();
    }
  }

  async post(req: CompletionRequest, extra: Record<string, unknown>): Promise<CompletionResult> {
    const body = requestBody(req, { ...extra, stream: false });
    for (let retry = 0; ; retry++) {
      const attempt = new Attempt(this.options.timeoutMs, req.signal);
      let failure: ProviderError;
      try {
        return await this.postOnce(req, body, attempt);
      } catch (err) {
        failure = attempt.classify(err);
      } finally {
        attempt.close();
      }
      await this.backOff(retry, failure, req.signal);
    }
  }

  private async postOnce(req: CompletionRequest, body: string, attempt: Attempt): Promise<CompletionResult> {
    attempt.arm(); // and never re-armed: the timeout covers the whole request
    const res = await this.open(body, false, attempt);
    if (Number(res.headers.get("content-length")) > MAX_BODY_BYTES) throw tooLarge();
    const { bytes, truncated } = await readUpTo(res, MAX_BODY_BYTES);
    if (truncated) throw tooLarge();
    return parseCompletion(new TextDecoder().decode(bytes), req.model, this.redact);
  }

  async *stream(req: CompletionRequest): AsyncGenerator<string> {
    const body = requestBody(req, { stream: true });
    for (let retry = 0; ; retry++) {
      let yielded = false;
      try {
        for await (const delta of this.streamOnce(req, body)) {
          yielded = true;
          yield delta;
        }
        return;
      } catch (err) {
        if (yielded) throw err;
        await this.backOff(retry, err, req.signal);
      }
    }
  }

  private async *streamOnce(req: CompletionRequest, body: string): AsyncGenerator<string> {
    const attempt = new Attempt(this.options.timeoutMs, req.signal);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      attempt.arm();
      const res = await this.open(body, true, attempt);
      if (!res.body) throw new ProviderError("protocol", "model server sent a stream without a body");
      reader = res.body.getReader();
      yield* this.deltas(reader, attempt);
    } catch (err) {
      throw attempt.classify(err);
    } finally {
      // Releases the connection when the consumer stops early or the server never ended.
      reader?.cancel().catch(() => undefined);
      attempt.close();
    }
  }

  /** The text deltas of a server-sent event stream, up to [DONE] or its end. */
  private async *deltas(reader: ReadableStreamDefaultReader<Uint8Array>, attempt: Attempt): AsyncGenerator<string> {
    const events: EventSourceMessage[] = [];
    // No maxBufferSize: the parser never holds more than the bytes counted below.
    const parser = createParser({ onEvent: (event) => events.push(event) });
    const decoder = new TextDecoder();
    let received = 0;
    for (;;) {
      // Armed only while reading: a slow consumer is not the server going quiet.
      attempt.arm();
      const { done, value } = await reader.read();
      attempt.disarm();
      if (done) parser.reset({ consume: true });
      else {
        received += value.byteLength;
        if (received > MAX_BODY_BYTES) throw tooLarge();
        parser.feed(decoder.decode(value, { stream: true }));
      }
      for (const event of events.splice(0)) {
        if (event.data === "[DONE]") return;
        const delta = streamDelta(event, this.redact);
        if (delta !== undefined) yield delta;
      }
      if (done) return;
    }
  }
}

/** An HTTP failure carrying the server's Retry-After for the backoff. */
class HttpStatusError extends ProviderError {
  constructor(
    message: string,
    status: number,
    readonly retryAfterMs: number | undefined,
  ) {
    super("http", message, status);
  }
}

/**
 * One HTTP attempt: its own AbortController, fired by the caller's signal or by our timer,
 * so a failure can be told apart afterwards by what fired.
 */
class Attempt {
  private readonly controller = new AbortController();
  private readonly forwardAbort = () => this.controller.abort();
  private timer: NodeJS.Timeout | undefined;
  private timedOut = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    if (callerSignal?.aborted) this.controller.abort();
    else callerSignal?.addEventListener("abort", this.forwardAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.timer);
  }

  /** Aborting after a fully read body is a no-op; before, it drops the connection. */
  close(): void {
    this.disarm();
    this.callerSignal?.removeEventListener("abort", this.forwardAbort);
    this.controller.abort();
  }

  /** What fired wins over what fetch threw: an abort or a timeout surfaces as an AbortError. */
  classify(err: unknown): ProviderError {
    if (this.callerSignal?.aborted) return abortedError();
    if (this.timedOut) return new ProviderError("timeout", `model server did not answer within ${this.timeoutMs} ms`);
    if (err instanceof ProviderError) return err;
    const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    return new ProviderError("network", `could not reach the model server${typeof code === "string" ? ` (${code})` : ""}`);
  }
}

/** Reads at most `limit` bytes of the body, then drops the rest. */
async function readUpTo(res: Response, limit: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(chunks, size), truncated: false };
      size += value.byteLength;
      if (size > limit) return { bytes: Buffer.concat(chunks, size - value.byteLength), truncated: true };
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

function chatEndpoint(baseUrl: string): string {
  const hint = "createOpenAiClient: baseUrl must be an http(s) URL such as http://127.0.0.1:11434/v1";
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(hint);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(hint);
  if (url.username || url.password) throw new Error("createOpenAiClient: baseUrl must not carry credentials; pass apiKey instead");
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/chat/completions`;
  return url.toString();
}

function isRetryable(err: ProviderError): boolean {
  if (err.kind === "network" || err.kind === "timeout") return true;
  return err.kind === "http" && err.status !== undefined && (err.status === 429 || err.status >= 500);
}

/** Doubling from ~200 ms with ±25% jitter, so clients that failed together spread out. */
function jitteredBackoffMs(retry: number): number {
  const base = BACKOFF_FIRST_MS * 2 ** retry;
  return Math.round(Math.min(BACKOFF_CAP_MS, base * (0.75 + Math.random() * 0.5)));
}

/** Retry-After in seconds; the HTTP-date form is rare from model servers and is ignored. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, RETRY_AFTER_CAP_MS) : undefined;
}

function abortedError(): ProviderError {
  return new ProviderError("aborted", "model request aborted");
}

function tooLarge(): ProviderError {
  return new ProviderError("protocol", `model server answer exceeds ${MAX_BODY_BYTES / 1024 / 1024} MiB`);
}

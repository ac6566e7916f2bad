/**
 * The chat-completions wire format as self-hosted servers speak it, kept apart from the
 * transport in openai-client.ts. Servers differ in the details (Ollama, vLLM and llama.cpp
 * each shape errors their own way), so everything read here is `unknown` until checked.
 */
import { type EventSourceMessage } from "eventsource-parser";
import { ProviderError, type CompletionRequest, type CompletionResult } from "./types";

const SERVER_MESSAGE_CHARS = 200;

export function requestBody(req: CompletionRequest, extra: Record<string, unknown>): string {
  return JSON.stringify({
    model: req.model,
    // Only role and content: a caller's extra fields must not reach the server.
    messages: req.messages.map(({ role, content }) => ({ role, content })),
    temperature: req.temperature,
    max_tokens: req.maxTokens,
    ...extra,
  });
}

/** Reads `choices[0].message.content` of a non-streamed answer. */
export function parseCompletion(text: string, requestedModel: string, redact: Redact): CompletionResult {
  const data = parseJson(text, "model server answered with a body that is not JSON");
  if (field(data, "error") !== undefined) throw reportedError(data, redact);
  const content = dig(data, "choices", 0, "message", "content");
  if (typeof content !== "string") throw new ProviderError("protocol", "model server answer has no choices[0].message.content");
  const model = field(data, "model");
  return { content, model: typeof model === "string" && model !== "" ? model : requestedModel };
}

/** The text a stream event adds, or undefined for role-only, empty and bookkeeping chunks. */
export function streamDelta(event: EventSourceMessage, redact: Redact): string | undefined {
  if (event.event === "error") {
    let payload: unknown;
    try {
      payload = JSON.parse(event.data);
    } catch {
      payload = { error: { message: event.data } };
    }
    throw reportedError(payload, redact);
  }
  const chunk = parseJson(event.data, "model server sent a stream event that is not JSON");
  if (field(chunk, "error") !== undefined) throw reportedError(chunk, redact);
  const content = dig(chunk, "choices", 0, "delta", "content");
  return typeof content === "string" && content !== "" ? content : undefined;
}

/** Models asked for JSON still like to wrap it in a Markdown fence; take what is inside. */
export function unfence(content: string): string {
  const fenced = /^```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/.exec(content.trim());
  return fenced?.[1] ?? content;
}

/** Replaces the API key wherever a server echoes it back. */
export type Redact = (text: string) => string;

/** The server's own words from an error body, short enough for a log line. */
export function serverMessage(body: string, redact: Redact): string {
  let message: unknown = body;
  try {
    const data: unknown = JSON.parse(body);
    const error = field(data, "error");
    message =
      field(error, "message") ?? (typeof error === "string" ? error : undefined) ?? field(data, "message") ?? field(data, "detail") ?? body;
  } catch {
    // Not JSON: a proxy's HTML or plain text, used as it is.
  }
  const text = redact(typeof message === "string" ? message : JSON.stringify(message))
    .replace(/\s+/g, " ")
    .trim();
  return text.length > SERVER_MESSAGE_CHARS ? `${text.slice(0, SERVER_MESSAGE_CHARS - 1)}…` : text;
}

/**
 * An `{"error": …}` payload sent with a 200 (mid-stream, or by servers that do so). vLLM puts
 * the HTTP status it meant in `code`; that makes it an "http" error, retryable like one.
 */
function reportedError(payload: unknown, redact: Redact): ProviderError {
  const message = serverMessage(JSON.stringify(payload), redact);
  const code = Number(field(field(payload, "error"), "code") ?? field(payload, "code"));
  if (Number.isInteger(code) && code >= 400 && code <= 599) {
    return new ProviderError("http", `model server reported HTTP ${code}: ${message}`, code);
  }
  return new ProviderError("protocol", `model server reported an error: ${message}`);
}

function parseJson(text: string, complaint: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError("protocol", complaint);
  }
}

function field(value: unknown, key: string | number): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string | number, unknown>)[key] : undefined;
}

function dig(value: unknown, ...path: (string | number)[]): unknown {
  return path.reduce(field, value);
}

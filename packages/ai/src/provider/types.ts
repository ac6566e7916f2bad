/**
 * The one interface the rest of the code sees of a self-hosted model server (Ollama, vLLM,
 * llama.cpp server, …) speaking OpenAI's chat-completions protocol. See openai-client.ts.
 */

export interface ChatTurn {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface CompletionRequest {
  model: string;
  messages: ChatTurn[];
  temperature?: number;
  maxTokens?: number;
  /** Aborts the request (our client disconnected, the scan was cancelled). */
  signal?: AbortSignal;
}

export interface JsonCompletionRequest<T> extends CompletionRequest {
  /** Sent as response_format json_schema (strict): the server constrains its output to it. */
  schema: { name: string; schema: Record<string, unknown> };
  /** Validates the parsed JSON (a Zod schema's parse, say); throws on a bad shape. */
  parse: (value: unknown) => T;
}

export interface CompletionResult {
  content: string;
  /** The model the server says answered. */
  model: string;
}

export interface ModelProvider {
  complete(req: CompletionRequest): Promise<CompletionResult>;
  /** Content deltas as the server produces them. */
  stream(req: CompletionRequest): AsyncIterable<string>;
  completeJson<T>(req: JsonCompletionRequest<T>): Promise<{ value: T; model: string }>;
}

export type ProviderErrorKind = "timeout" | "http" | "network" | "protocol" | "aborted";

/** Every failure of the provider; `message` never carries the API key or prompt content. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}

/**
 * The HTTP client: the base URL, the X-AX-KEY header, and service answers turned into
 * errors that say what to do (log in again, fix the URL) instead of a stack trace.
 */
import type { ErrorBody, ErrorDetail } from "@ax/contracts";
import { ApiError, CliError, EXIT } from "./errors";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  /** Streams (the chat) run longer than ordinary calls. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const API_PREFIX = "/api/v2";

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  urlOf(path: string, query: Query = {}): string {
    const url = new URL(`${this.baseUrl}${API_PREFIX}${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    return url.toString();
  }

  /** The raw response of a successful call; error statuses become ApiError. */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { "X-AX-KEY": this.token, ...opts.headers };
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(this.urlOf(path, opts.query), {
        method,
        headers,
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
        signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (e) {
      throw unreachable(this.baseUrl, e, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    }
    if (!res.ok) throw await errorOf(res, this.baseUrl);
    return res;
  }

  async json<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, opts);
    return (await res.json()) as T;
  }
}

function unreachable(baseUrl: string, e: unknown, timeoutMs: number): CliError {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError")
    return new CliError(`The ax service at ${baseUrl} did not answer within ${Math.round(timeoutMs / 1000)} s.`, EXIT.unreachable);
  const why = err.cause?.code ?? err.cause?.message ?? err.message;
  return new CliError(
    `Cannot reach the ax service at ${baseUrl} (${why}).\nCheck the address: set it with "ax login --url URL" or the AX_URL environment variable.`,
    EXIT.unreachable,
  );
}

/** The service's error body — JSON `{code, message, details}`, or Markdown from the chat — as one clear message. */
async function errorOf(res: Response, baseUrl: string): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  let message = text.trim();
  let details: ErrorDetail[] = [];
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      const body = JSON.parse(text) as Partial<ErrorBody>;
      message = body.message ?? message;
      // Details that only repeat the message add nothing.
      details = (body.details ?? []).filter((d) => !message.includes(d.message));
    } catch {
      // Not JSON after all: show the text.
    }
  }
  // The chat's Markdown errors start with "**Error 401.**"; the status is said below anyway.
  message = message.replace(/^\*\*Error \d+\.\*\*\s*/, "") || res.statusText;
  const lines = [`${res.status} ${res.statusText}: ${message}`, ...details.map((d) => `  - ${d.path}: ${d.message}`)];
  if (res.status === 401) {
    lines.push(`The service at ${baseUrl} did not accept the token. Run "ax login" to sign in again (or set AX_TOKEN).`);
    return new ApiError(lines.join("\n"), res.status, EXIT.auth);
  }
  const retry = res.headers.get("retry-after");
  if (res.status === 429 && retry) lines.push(`Try again in ${retry} s.`);
  return new ApiError(lines.join("\n"), res.status);
}

/**
 * Relays one vote on an AI answer to the downstream feedback API (AI_FEEDBACK_URL):
 * a JSON POST with a timeout. The caller stores the vote whatever happens here.
 */

export interface FeedbackPayload {
  request_id: string;
  feedback: boolean;
  organization_id: string;
  group_id: string;
  kind: "review" | "chat";
  model: string;
}

export interface RelayOptions {
  url: string;
  token?: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

export class RelayError extends Error {
  constructor(
    message: string,
    readonly reason: "timeout" | "network" | "status",
  ) {
    super(message);
    this.name = "RelayError";
  }
}

export async function relayFeedback(opts: RelayOptions, payload: FeedbackPayload): Promise<void> {
  const doFetch = opts.fetch ?? fetch;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let res: Response;
  try {
    res = await doFetch(opts.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}) },
      body: JSON.stringify(payload),
      signal,
      redirect: "error",
    });
  } catch (err) {
    if (signal.aborted) throw new RelayError(`downstream feedback API did not answer within ${opts.timeoutMs} ms`, "timeout");
    throw new RelayError(`downstream feedback API unreachable (${err instanceof Error ? err.message : "network error"})`, "network");
  }
  // Drain the body so the connection is reused; its content is not needed.
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new RelayError(`downstream feedback API answered ${res.status}`, "status");
}

import { z } from "zod";

/**
 * The stable, machine-readable kinds of error the API answers, sent as `error` next to the
 * spec's `code` (the HTTP status) and `message`. Clients branch on `error`: a status can stand
 * for several kinds (429: a rate limit, or too many scans in flight) and a message may be reworded.
 * Kinds are only ever added.
 */
export const ERROR_KINDS = {
  validation_failed: {
    status: 400,
    description:
      "The input is refused: a value a schema refuses, an unknown field or query parameter, a malformed percent-escape, cursor or header.",
  },
  malformed_json: { status: 400, description: "The request body is not valid JSON." },
  unauthorized: {
    status: 401,
    description: "Missing, malformed, unknown, expired or revoked token (or, for the queue dashboard, no admin session).",
  },
  forbidden: { status: 403, description: "The caller's role does not allow the action." },
  not_found: { status: 404, description: "No such resource, or not visible to the caller; also an unknown endpoint." },
  method_not_allowed: { status: 405, description: "The path exists but does not take this method; see `Allow`." },
  conflict: {
    status: 409,
    description: "The request conflicts with the current state (a name taken, a scan already ended, an Idempotency-Key reused).",
  },
  precondition_failed: { status: 412, description: "`If-Match` names a version that is no longer current." },
  payload_too_large: { status: 413, description: "The request body is larger than MAX_BODY_BYTES." },
  unsupported_media_type: { status: 415, description: "The request body is not UTF-8 JSON." },
  rate_limited: { status: 429, description: "A rate limit of the client IP or of the token is spent; see Retry-After." },
  too_many_scans: {
    status: 429,
    description: "Too many scans are queued or running for the organization (or for Public Scan); see Retry-After.",
  },
  internal_error: { status: 500, description: "An unexpected fault; the message carries the request id." },
  downstream_failed: { status: 502, description: "The downstream feedback API failed or timed out." },
  queue_unavailable: { status: 503, description: "The scan could not be queued; nothing was created. See Retry-After." },
  redis_unavailable: { status: 503, description: "The service's queue store (Redis) is unavailable; see Retry-After." },
  database_unavailable: { status: 503, description: "The service's database is unavailable; see Retry-After." },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorKind = keyof typeof ERROR_KINDS;
export const ERROR_KIND_NAMES = Object.keys(ERROR_KINDS) as [ErrorKind, ...ErrorKind[]];

/** One field the input was refused for: its path (`body.name`) and why, never its value. */
export const ErrorDetail = z.object({ path: z.string(), message: z.string() });
export type ErrorDetail = z.infer<typeof ErrorDetail>;

/** Every JSON error response: the spec's `code` (the HTTP status) and `message`, and the stable `error` kind. */
export const ErrorBody = z.object({
  code: z.number().int(),
  error: z.enum(ERROR_KIND_NAMES).describe("The stable kind of error (see the list in docs/api.md); branch on this, not on `message`."),
  message: z.string(),
  details: z.array(ErrorDetail).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

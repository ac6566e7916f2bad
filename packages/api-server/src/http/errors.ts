import type { ErrorRequestHandler, RequestHandler } from "express";
import { ERROR_KINDS, type ErrorBody, type ErrorDetail, type ErrorKind } from "@ax/contracts";
import { isDatabaseUnavailable } from "@ax/db";
import type { Logger } from "@ax/logger";
import { isRedisUnavailable } from "@ax/queue";

/**
 * The one error family. Each carries the HTTP status, a stable kind for clients to branch on
 * (sent as `error`, listed in contracts' ERROR_KINDS) and a human sentence; none ever carries
 * input values back.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorKind,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) => new AppError(400, "validation_failed", message, details);
export const unauthorized = () => new AppError(401, "unauthorized", "A valid personal access token is required in the X-AX-KEY header.");
export const forbidden = (message = "Your role in this organization does not allow this action.") =>
  new AppError(403, "forbidden", message);
export const notFound = (what: string) => new AppError(404, "not_found", `${what} not found.`);
export const conflict = (message: string) => new AppError(409, "conflict", message);
export const preconditionFailed = (message: string) => new AppError(412, "precondition_failed", message);
export const MALFORMED_PATH_MESSAGE = "Invalid path: it contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).";
export const queueUnavailable = (message: string) => new AppError(503, "queue_unavailable", message, undefined, { "Retry-After": "5" });
/** Scans take minutes; a retry much sooner than Retry-After would only be refused again. */
export const tooManyScans = (message: string) => new AppError(429, "too_many_scans", message, undefined, { "Retry-After": "30" });

/** The body every JSON error has: the status as `code`, the stable kind as `error`, the sentence. */
export function errorBody(status: number, kind: ErrorKind, message: string, details?: ErrorDetail[]): ErrorBody {
  return { code: status, error: kind, message, ...(details ? { details } : {}) };
}

/** Writes an error. Chat routes override the writer to answer in Markdown (DESIGN §4). */
export type ErrorWriter = (res: Parameters<RequestHandler>[1], status: number, body: ErrorBody) => void;

export const writeJsonError: ErrorWriter = (res, status, body) => {
  res.status(status).json(body);
};

/** The kind of an error some other middleware raised with only a status. */
function kindOfStatus(status: number): ErrorKind {
  const kind = (Object.keys(ERROR_KINDS) as ErrorKind[]).find((k) => ERROR_KINDS[k].status === status);
  return kind ?? "validation_failed";
}

type Reply = (status: number, kind: ErrorKind, message: string) => void;

/** body-parser's own errors (malformed JSON, too large, bad charset) and a path a router could not decode. */
function inputError(err: unknown, reply: Reply, logger: Logger, requestId: string): boolean {
  const e = err as { type?: string; status?: number; expose?: boolean };
  if (e.type === "entity.too.large") reply(413, "payload_too_large", "Request body is too large.");
  else if (e.type === "entity.parse.failed") reply(400, "malformed_json", "Request body is not valid JSON.");
  else if (e.type === "charset.unsupported" || e.type === "encoding.unsupported")
    reply(415, "unsupported_media_type", "Unsupported body encoding; send UTF-8 JSON.");
  else if (err instanceof URIError) {
    // A path parameter a router could not decode, should one get past pathEscapeGuard (under
    // /api/v2) and the dashboard's check. Input, not a fault: no error-level log, and the
    // message (which quotes the parameter) is not passed on.
    logger.info("malformed percent-escape in the path", { request_id: requestId });
    reply(400, "validation_failed", MALFORMED_PATH_MESSAGE);
  } else if (typeof e.status === "number" && e.status >= 400 && e.status < 500 && e.expose) {
    reply(e.status, kindOfStatus(e.status), "The request could not be processed.");
  } else return false;
  return true;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const requestId = String(res.getHeader("X-Request-Id") ?? "");
    const writer: ErrorWriter = (res.locals.errorWriter as ErrorWriter | undefined) ?? writeJsonError;
    const reply: Reply = (status, kind, message) => writer(res, status, errorBody(status, kind, message));
    if (err instanceof AppError) {
      if (err.headers) res.set(err.headers);
      if (err.status >= 500) logger.warn("request failed", { request_id: requestId, code: err.code, status: err.status });
      return writer(res, err.status, errorBody(err.status, err.code, err.message, err.details));
    }
    if (inputError(err, reply, logger, requestId)) return;
    if (isDatabaseUnavailable(err)) {
      logger.warn("database unavailable", { request_id: requestId, route: req.route?.path });
      res.set("Retry-After", "5");
      return reply(503, "database_unavailable", "The service's database is unavailable right now; try again shortly.");
    }
    if (isRedisUnavailable(err)) {
      logger.warn("redis unavailable", { request_id: requestId, route: req.route?.path });
      res.set("Retry-After", "5");
      return reply(503, "redis_unavailable", "The service's queue store is unavailable right now; try again shortly.");
    }
    logger.error("unhandled error", { request_id: requestId, method: req.method, route: req.route?.path, error: err });
    return reply(500, "internal_error", `Internal server error. Reference: ${requestId}.`);
  };
}

export const notFoundRoute: RequestHandler = (_req, _res, next) => next(new AppError(404, "not_found", "No such endpoint."));

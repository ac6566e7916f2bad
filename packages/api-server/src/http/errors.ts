import type { ErrorRequestHandler, RequestHandler } from "express";
import { isDatabaseUnavailable } from "@ax/db";
import type { Logger } from "@ax/logger";
import { isRedisUnavailable } from "@ax/queue";

/**
 * The one error family. Each carries the HTTP status, a stable code for clients to branch on
 * and a human sentence; none ever carries input values back.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: { path: string; message: string }[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: { path: string; message: string }[]) => new AppError(400, "bad_request", message, details);
export const unauthorized = () => new AppError(401, "unauthorized", "A valid personal access token is required in the X-AX-KEY header.");
export const forbidden = (message = "Your role in this organization does not allow this action.") => new AppError(403, "forbidden", message);
export const notFound = (what: string) => new AppError(404, "not_found", `${what} not found.`);
export const conflict = (message: string) => new AppError(409, "conflict", message);
export const preconditionFailed = (message: string) => new AppError(412, "precondition_failed", message);
export const MALFORMED_PATH_MESSAGE = "Invalid path: it contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).";
export const unavailable = (message: string) => new AppError(503, "unavailable", message, undefined, { "Retry-After": "5" });

/** Writes an error. Chat routes override the writer to answer in Markdown (DESIGN §4). */
export type ErrorWriter = (res: Parameters<RequestHandler>[1], status: number, body: { code: number; message: string; details?: unknown }) => void;

export const writeJsonError: ErrorWriter = (res, status, body) => {
  res.status(status).json(body);
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const requestId = String(res.getHeader("X-Request-Id") ?? "");
    const writer: ErrorWriter = (res.locals.errorWriter as ErrorWriter | undefined) ?? writeJsonError;
    const e = err as { type?: string; status?: number; expose?: boolean };
    if (err instanceof AppError) {
      if (err.headers) res.set(err.headers);
      if (err.status >= 500) logger.warn("request failed", { request_id: requestId, code: err.code, status: err.status });
      return writer(res, err.status, { code: err.status, message: err.message, ...(err.details ? { details: err.details } : {}) });
    }
    // body-parser's own errors: malformed JSON, too large, bad charset.
    if (e.type === "entity.too.large") return writer(res, 413, { code: 413, message: "Request body is too large." });
    if (e.type === "entity.parse.failed") return writer(res, 400, { code: 400, message: "Request body is not valid JSON." });
    if (e.type === "charset.unsupported" || e.type === "encoding.unsupported") return writer(res, 415, { code: 415, message: "Unsupported body encoding; send UTF-8 JSON." });
    // A path parameter a router could not decode, should one get past pathEscapeGuard (under
    // /api/v2) and the dashboard's check. Input, not a fault: no error-level log, and the
    // message (which quotes the parameter) is not passed on.
    if (err instanceof URIError) {
      logger.info("malformed percent-escape in the path", { request_id: requestId });
      return writer(res, 400, { code: 400, message: MALFORMED_PATH_MESSAGE });
    }
    if (typeof e.status === "number" && e.status >= 400 && e.status < 500 && e.expose) {
      return writer(res, e.status, { code: e.status, message: "The request could not be processed." });
    }
    if (isDatabaseUnavailable(err)) {
      logger.warn("database unavailable", { request_id: requestId, route: req.route?.path });
      res.set("Retry-After", "5");
      return writer(res, 503, { code: 503, message: "The service's database is unavailable right now; try again shortly." });
    }
    if (isRedisUnavailable(err)) {
      logger.warn("redis unavailable", { request_id: requestId, route: req.route?.path });
      res.set("Retry-After", "5");
      return writer(res, 503, { code: 503, message: "The service's queue store is unavailable right now; try again shortly." });
    }
    logger.error("unhandled error", { request_id: requestId, method: req.method, route: req.route?.path, error: err });
    return writer(res, 500, { code: 500, message: `Internal server error. Reference: ${requestId}.` });
  };
}

export const notFoundRoute: RequestHandler = (_req, _res, next) => next(new AppError(404, "not_found", "No such endpoint."));

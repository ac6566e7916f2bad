/**
 * Checks of the raw request that run inside each route's chain, after authentication: percent-
 * escapes of the path and query, and the JSON body. Done per route rather than as app-wide
 * middleware so that a caller without a valid token learns nothing but 401, whatever it sent.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { AppError, MALFORMED_PATH_MESSAGE, badRequest } from "./errors";

/** `res.locals` key set when the path had a malformed percent-escape (see pathEscapeGuard). */
const MALFORMED_PATH = "malformedPath";

const decodes = (s: string): boolean => {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * Express's router decodes path parameters while it matches routes and throws on `%FF` or
 * `%zz`, before any route runs (a 500 that anyone could cause). This runs first: it replaces
 * each segment that does not decode with a placeholder (`%25`, a literal "%") so that routing
 * still finds the route the path names, and marks the request; the route answers 400 once it
 * has authenticated the caller (assertWellFormedPath). The original URL stays in
 * `req.originalUrl`, and is never logged or echoed.
 */
export const pathEscapeGuard: RequestHandler = (req, res, next) => {
  const q = req.url.indexOf("?");
  const path = q === -1 ? req.url : req.url.slice(0, q);
  if (!path.includes("%") || decodes(path)) return next();
  const fixed = path
    .split("/")
    .map((segment) => (decodes(segment) ? segment : "%25"))
    .join("/");
  res.locals[MALFORMED_PATH] = true;
  req.url = fixed + (q === -1 ? "" : req.url.slice(q));
  next();
};

/** After authentication: 400 when pathEscapeGuard marked the request, or (`path` given) when it does not decode. */
export function assertWellFormedPath(res: Response, path?: string): void {
  if (res.locals[MALFORMED_PATH] || (path !== undefined && !decodes(path))) throw badRequest(MALFORMED_PATH_MESSAGE);
}

/**
 * The query string as sent: the query parser (qs) keeps a malformed escape as literal text,
 * so `?file=%FF` would otherwise filter on the three characters "%FF".
 */
export function assertWellFormedQuery(req: Request): void {
  const q = req.originalUrl.indexOf("?");
  if (q === -1) return;
  const parts = req.originalUrl.slice(q + 1).split(/[&=]/);
  if (parts.every((p) => decodes(p.replace(/\+/g, " ")))) return;
  throw badRequest("Invalid query: a parameter contains a malformed percent-escape (a % must start a UTF-8 byte as %XX).");
}

const NOT_JSON = "Request bodies must be JSON (Content-Type: application/json).";
const NOT_UTF8 = "Unsupported body encoding; send UTF-8 JSON.";

export type BodyReader = (req: Request, res: Response) => Promise<void>;

/**
 * Reads a JSON body into `req.body` (undefined when there is none). All bodies are JSON (spec
 * §1): anything else with a body is 415 before a byte is parsed; malformed JSON is 400 and an
 * oversized body 413 (body-parser's errors, mapped by the error handler).
 */
export function jsonBodyReader(maxBytes: number): BodyReader {
  const parse = express.json({ limit: maxBytes, type: "application/json" });
  return (req, res) => {
    const hasBody = Number(req.get("Content-Length") ?? 0) > 0 || req.get("Transfer-Encoding") !== undefined;
    if (hasBody && !req.is("application/json")) throw new AppError(415, "unsupported_media_type", NOT_JSON);
    // UTF-8 only: body-parser would decode any utf-* charset, and UTF-7 smuggles markup
    // past every check that looks for "<".
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get("Content-Type") ?? "")?.[1]?.toLowerCase();
    if (hasBody && charset && charset !== "utf-8" && charset !== "utf8") throw new AppError(415, "unsupported_media_type", NOT_UTF8);
    return new Promise((resolve, reject) => parse(req, res, ((err?: unknown) => (err ? reject(err) : resolve())) as NextFunction));
  };
}

import type { NextFunction, Request, Response, Router } from "express";
import { z } from "zod";
import type { Principal } from "@ax/db";
import { AppError, badRequest, unauthorized, type ErrorWriter } from "./errors";
import { assertWellFormedPath, assertWellFormedQuery, type BodyReader } from "./input-guards";
import { refuseUnsafeText } from "./text-safety";

/**
 * A route is a schema, a middleware chain and a handler. The same definitions mount the
 * Express routes and generate /openapi.json, so the document cannot drift from what is
 * validated.
 */

export type Method = "get" | "post" | "put" | "patch" | "delete";
type AnySchema = z.ZodType;

export interface ResponseDoc {
  description: string;
  schema?: AnySchema;
  contentType?: string;
  /** Other representations of the same response, chosen by the Accept header. */
  alternatives?: { contentType: string; schema?: AnySchema }[];
}

export interface RouteInput<P extends AnySchema, Q extends AnySchema, B extends AnySchema> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  principal: Principal;
  req: Request;
  res: Response;
}

export type InputPart = "path" | "query" | "body";

export interface RouteDef<P extends AnySchema, Q extends AnySchema, B extends AnySchema> {
  method: Method;
  /** Express-style path under /api/v2, e.g. /scan/:scan_id */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** public routes take no token; the rest need X-AX-KEY. */
  auth?: "token" | "public";
  /**
   * A route that a setting can switch off (PUBLIC_SCAN_ENABLED): while this answers false it
   * is 404 "No such endpoint." before anything else, as if it were not mounted. Stays in the
   * OpenAPI document, which describes the API rather than one deployment's settings.
   */
  enabled?: () => boolean;
  params?: P;
  /** An object schema; a query parameter it does not name is refused (400), like an unknown body field. */
  query?: Q;
  body?: B;
  headers?: { name: string; description: string; required?: boolean }[];
  /**
   * What the route itself answers. The statuses of the chain every route runs through (400,
   * 401, 404 of a switched-off route, 413, 415, 429) are added by the OpenAPI generator
   * (chainResponses) where the route does not describe them itself.
   */
  responses: Record<number, ResponseDoc>;
  /** Error writer for this route (the chat routes answer errors in Markdown) and its content type. */
  errorWriter?: ErrorWriter;
  errorContentType?: string;
  /**
   * The error for invalid input, when the route has fixed error bodies (the feedback endpoint's
   * six, DESIGN §5); return undefined for the usual 400 naming the field.
   */
  invalidInput?: (part: InputPart, issue: z.core.$ZodIssue) => AppError | undefined;
  /** Returns a JSON value to send with 200, or undefined when it wrote the response itself. */
  handler: (input: RouteInput<P, Q, B>) => Promise<unknown>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDef<any, any, any>;

type Empty = z.ZodObject<Record<string, never>>;

export const API_PREFIX = "/api/v2";

/** The route template a response belongs to, for metrics and logs ("unmatched" for 404s). */
export function routeLabel(req: Request, res: Response): string {
  const template = res.locals.routeTemplate as string | undefined;
  if (template) return template;
  return req.route?.path ? `${API_PREFIX}${String(req.route.path)}` : "unmatched";
}

export function defineRoute<P extends AnySchema = Empty, Q extends AnySchema = Empty, B extends AnySchema = Empty>(
  def: RouteDef<P, Q, B>,
): RouteDef<P, Q, B> {
  return def;
}

export function issuesToDetails(error: z.ZodError, where: string): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: [where, ...i.path.map(String)].filter(Boolean).join("."), message: i.message }));
}

function parsePart<S extends AnySchema>(def: AnyRoute, schema: S | undefined, value: unknown, where: InputPart): z.output<S> {
  if (!schema) return {} as z.output<S>;
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const own = r.error.issues[0] && def.invalidInput?.(where, r.error.issues[0]);
  if (own) throw own;
  throw badRequest(summarize(r.error, where), issuesToDetails(r.error, where));
}

/** "Invalid body: status must be one of …" — names the field once, never the value. */
function summarize(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  const key = issue.path.length ? String(issue.path[issue.path.length - 1]) : "";
  const message = key && !issue.message.includes(key) ? `${key}: ${issue.message}` : issue.message;
  return `Invalid ${where}: ${message}`;
}

/** A parameter name fit to quote back: short and plain, else not named at all. */
const quotable = (name: string) => /^[A-Za-z0-9_.[\]-]{1,40}$/.test(name) && !name.startsWith("axk_");

/** The names a query schema knows (every query schema is an object). */
export function queryNames(schema: AnySchema | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** Query parameters the route does not take: 400, as an unknown body field is. */
function refuseUnknownQuery(def: AnyRoute, query: Record<string, unknown>): void {
  const known = new Set(queryNames(def.query));
  const unknown = Object.keys(query).filter((k) => !known.has(k));
  if (unknown.length === 0) return;
  const named = unknown.filter(quotable).slice(0, 5);
  const message = named.length === unknown.length ? `Unknown query parameter: ${named.join(", ")}.` : "Unknown query parameter.";
  const takes = known.size ? ` This endpoint takes: ${[...known].join(", ")}.` : " This endpoint takes no query parameters.";
  throw badRequest(`Invalid query: ${message}${takes}`);
}

export interface ChainDeps {
  authenticate: (req: Request) => Promise<Principal | null>;
  readBody: BodyReader;
}

/**
 * The chain, in this order: switched off (404), authentication (401, and the token's rate
 * limit, 429), then the input: path and query escapes, the body (415, 413, malformed JSON), text
 * PostgreSQL cannot store, unknown query parameters, and the schemas (400). A caller without a
 * valid token gets 401 whatever else is wrong with the request.
 */
export function mountRoute(router: Router, def: AnyRoute, deps: ChainDeps): void {
  const chain = async (req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = `${API_PREFIX}${def.path}`;
    if (def.errorWriter) res.locals.errorWriter = def.errorWriter;
    try {
      if (def.enabled && !def.enabled()) throw new AppError(404, "not_found", "No such endpoint.");
      let principal: Principal | null = null;
      if (def.auth !== "public") {
        principal = await deps.authenticate(req);
        if (!principal) throw unauthorized();
        req.principal = principal;
      }
      assertWellFormedPath(res);
      assertWellFormedQuery(req);
      await deps.readBody(req, res);
      refuseUnsafeText(req);
      refuseUnknownQuery(def, req.query as Record<string, unknown>);
      const params = parsePart(def, def.params, req.params, "path");
      const query = parsePart(def, def.query, req.query, "query");
      let body: unknown = {};
      if (def.body) {
        if (req.body === undefined) throw badRequest("A JSON request body is required.");
        body = parsePart(def, def.body, req.body, "body");
      }
      const result = await def.handler({ params, query, body, principal: principal as Principal, req, res });
      if (result !== undefined && !res.headersSent) res.status(200).json(result);
    } catch (err) {
      next(err);
    }
  };
  router[def.method](def.path, chain);
}

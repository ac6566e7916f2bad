import type { NextFunction, Request, Response, Router } from "express";
import { type z } from "zod";
import type { Principal } from "@ax/db";
import { AppError, badRequest, unauthorized, type ErrorWriter } from "./errors";
import { refuseUnsafeText } from "./text-safety";

/**
 * A route is a schema, a middleware chain and a handler. The same definitions mount the
 * Express routes and generate /openapi.json, so the document cannot drift from what is
 * validated.
 */

type Method = "get" | "post" | "put" | "patch" | "delete";
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
  query?: Q;
  body?: B;
  headers?: { name: string; description: string; required?: boolean }[];
  responses: Record<number, ResponseDoc>;
  /** Error writer for this route (the chat routes answer errors in Markdown). */
  errorWriter?: ErrorWriter;
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

function parsePart<S extends AnySchema>(schema: S | undefined, value: unknown, where: string): z.output<S> {
  if (!schema) return {} as z.output<S>;
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const details = issuesToDetails(r.error, where);
  throw badRequest(summarize(r.error, where), details);
}

/** "Invalid body: status must be one of …" — names the field once, never the value. */
function summarize(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  const key = issue.path.length ? String(issue.path[issue.path.length - 1]) : "";
  const message = key && !issue.message.includes(key) ? `${key}: ${issue.message}` : issue.message;
  return `Invalid ${where}: ${message}`;
}

export function mountRoute(router: Router, def: AnyRoute, authenticate: (req: Request) => Promise<Principal | null>): void {
  const chain = async (req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = `${API_PREFIX}${def.path}`;
    if (def.errorWriter) res.locals.errorWriter = def.errorWriter;
    try {
      if (def.enabled && !def.enabled()) throw new AppError(404, "not_found", "No such endpoint.");
      let principal: Principal | null = null;
      if (def.auth !== "public") {
        principal = await authenticate(req);
        if (!principal) throw unauthorized();
        req.principal = principal;
      }
      refuseUnsafeText(req);
      const params = parsePart(def.params, req.params, "path");
      const query = parsePart(def.query, req.query, "query");
      let body: unknown = {};
      if (def.body) {
        if (req.body === undefined) throw badRequest("A JSON request body is required.");
        body = parsePart(def.body, req.body, "body");
      }
      const result = await def.handler({ params, query, body, principal: principal as Principal, req, res });
      if (result !== undefined && !res.headersSent) res.status(200).json(result);
    } catch (err) {
      next(err);
    }
  };
  router[def.method](def.path, chain);
}

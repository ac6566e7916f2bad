/**
 * Which function parameters carry an HTTP request because of the framework: Express,
 * Fastify, Koa and restify handlers passed to route registrations, handler-shaped
 * signatures (`(req, res)`, `(ctx, next)`), Next.js API and App Router route exports, and
 * NestJS request-binding parameter decorators.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, FunctionIR, Stmt } from "./ir";
import { collectMessageSources, lambdaEvent, type SourceParam } from "./javascript-messages";
import { fieldOf, kids, kindOf } from "./javascript-util";

const ROUTE_METHODS = new Set(["get", "post", "put", "delete", "patch", "all", "use", "options", "head", "route"]);
/** Receivers that register routes: `app`, `router`, `fastify`, `server`, `userRouter`, `this.app`. */
const ROUTER = /(^|\.)(app|application|router|server|api|fastify|routes?)$|(Router|Routes|App|Server)$/;
const REQUEST_NAMES = /^(req|request|ctx)$/;
const RESPONSE_NAMES = /^(res|response|reply)$/;
const REQUEST_TYPES = new Set(["NextApiRequest", "NextRequest", "FastifyRequest", "IncomingMessage"]);
const NEXT_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]);
/** Angular's ActivatedRoute observables of what the URL says: `this.route.queryParams`, `this.activatedRoute.paramMap`. */
const ANGULAR_ROUTE_STREAM = /^(this\.)?\w*(route|Route)\.(queryParams|params|queryParamMap|paramMap|fragment|url)$/;

type SourceParams = NonNullable<FunctionIR["sourceParams"]>;

/** A function the module exports, for Next.js route detection. */
export interface ExportedFn {
  /** The FunctionIR's name, or for `export default handler` the referenced name. */
  name: string;
  exportName: string;
  isDefault: boolean;
}

/** NestJS parameter decorators that bind request data (`@Query() q`, `@Body() dto`, `@Req() req`). */
export const NEST_REQUEST_DECORATORS = new Set([
  "Query",
  "Body",
  "Param",
  "Headers",
  "Req",
  "Request",
  "Cookies",
  "UploadedFile",
  "UploadedFiles",
  "Ip",
  "HostParam",
]);

/** The name of a parameter's decorator: `@Query("q")` and `@Query` → `Query`. */
export function decoratorName(param: SgNode): string | undefined {
  const decorator = param.children().find((c) => kindOf(c) === "decorator");
  const inner = decorator ? kids(decorator)[0] : undefined;
  if (!inner) return undefined;
  const fn = kindOf(inner) === "call_expression" ? fieldOf(inner, "function") : inner;
  return fn?.text().split(".").pop();
}

export function markHandlers(functions: FunctionIR[], exported: readonly ExportedFn[]): void {
  const handlers = new Set<string>();
  const memberRefs = new Set<string>();
  const routeObservers = new Set<string>();
  const messages = new Map<string, SourceParam[]>();
  for (const fn of functions)
    forEachExpr(fn.body, (e) => {
      collectRouteHandlers(e, handlers, memberRefs);
      collectRouteObservers(e, routeObservers);
      collectMessageSources(e, messages);
    });
  const byName = new Map<string, ExportedFn[]>();
  for (const ex of exported) byName.set(ex.name, [...(byName.get(ex.name) ?? []), ex]);

  for (const fn of functions) {
    const sources: SourceParams = [];
    const request = requestParam(fn);
    const isRouteHandler = handlers.has(fn.name) || (memberRefs.has(fn.name) && fn.params.length >= 2);
    if (routeObservers.has(fn.name) && fn.params.length > 0) sources.push({ index: 0, label: "URL parameters (Angular ActivatedRoute)" });
    sources.push(...(messages.get(fn.name) ?? []).filter((p) => p.index < fn.params.length));
    const event = lambdaEvent(fn);
    if (event) sources.push(event);
    if (isRouteHandler) sources.push(request ?? label(fn, 0));
    else if (!request && destructuredRequest(fn)) sources.push({ index: 0, label: "HTTP request (destructured)" });
    else if (request) {
      const i = request.index;
      const next = fn.params[i + 1];
      const named = fn.params[i]?.name ?? "";
      const typed = REQUEST_TYPES.has(fn.params[i]?.type ?? "");
      const koa = named === "ctx" && next?.name === "next";
      const express = /^(req|request)$/.test(named) && next !== undefined && RESPONSE_NAMES.test(next.name);
      if (typed || koa || express) sources.push(request);
    }
    for (const ex of fn.cls === null ? (byName.get(fn.name) ?? []) : []) {
      if (ex.isDefault && request && sources.length === 0) sources.push(request);
      if (NEXT_METHODS.has(ex.exportName)) {
        if (sources.length === 0 && fn.params.length > 0) sources.push(label(fn, 0));
        if (fn.params.length > 1) sources.push({ index: 1, label: "route parameters (Next.js route context)" });
      }
    }
    if (sources.length) fn.sourceParams = dedupe([...(fn.sourceParams ?? []), ...sources]);
  }
}

/** `async ({ query, body }, res) => …`: a destructured first parameter followed by a response. */
function destructuredRequest(fn: FunctionIR): boolean {
  const [first, second] = fn.params;
  return first?.name === "<param0>" && second !== undefined && RESPONSE_NAMES.test(second.name);
}

function label(fn: FunctionIR, index: number): SourceParams[number] {
  const name = fn.params[index]?.name ?? "";
  return { index, label: name && !name.startsWith("<") ? `HTTP request (\`${name}\`)` : "HTTP request" };
}

/** The parameter named like a request (`req`, `request`, `ctx`) or typed as one. */
function requestParam(fn: FunctionIR): SourceParams[number] | undefined {
  const i = fn.params.findIndex((p) => REQUEST_NAMES.test(p.name) || REQUEST_TYPES.has(p.type ?? ""));
  return i >= 0 ? label(fn, i) : undefined;
}

function dedupe(sources: SourceParams): SourceParams {
  const seen = new Set<number>();
  return sources.filter((s) => !seen.has(s.index) && (seen.add(s.index), true));
}

/** `app.get("/x", auth, handler, (req, res) => …)`, `fastify.route({ handler })`, `wrap(async (req, res) => …)`. */
function collectRouteHandlers(e: Expr, handlers: Set<string>, memberRefs: Set<string>): void {
  if (e.k !== "call" || !ROUTE_METHODS.has(e.callee) || !isRouter(e.receiver)) return;
  const visit = (arg: Expr, depth: number): void => {
    if (arg.k === "lambda" || arg.k === "var") handlers.add(arg.name);
    else if (arg.k === "field") memberRefs.add(arg.name);
    else if (arg.k === "array") arg.items.forEach((i) => visit(i, depth));
    else if (arg.k === "object")
      arg.entries.filter((en) => en.key === "handler" || en.key === "preHandler").forEach((en) => visit(en.value, depth));
    else if (arg.k === "call" && depth === 0) arg.args.forEach((a) => visit(a, 1));
    else if (arg.k === "cast") visit(arg.arg, depth);
  };
  e.args.forEach((a) => visit(a, 0));
}

/**
 * `this.route.queryParams.subscribe((params) => …)`, with `.pipe(map((p) => …))` between: the
 * callbacks receive the URL's parameters.
 */
function collectRouteObservers(e: Expr, observers: Set<string>): void {
  if (e.k !== "call" || e.callee !== "subscribe") return;
  const callbacks: Expr[] = [...e.args];
  let stream = e.receiver;
  while (stream?.k === "call" && stream.callee === "pipe") {
    for (const op of stream.args) if (op.k === "call") callbacks.push(...op.args);
    stream = stream.receiver;
  }
  if (stream?.k !== "field" || !stream.path || !ANGULAR_ROUTE_STREAM.test(stream.path)) return;
  for (const cb of callbacks) {
    if (cb.k === "lambda" || cb.k === "var") observers.add(cb.name);
    else if (cb.k === "object") for (const en of cb.entries) if (en.key === "next" && en.value.k === "lambda") observers.add(en.value.name);
  }
}

function isRouter(receiver: Expr | null): boolean {
  if (!receiver) return false;
  if (receiver.k === "var") return ROUTER.test(receiver.name);
  if (receiver.k === "field") return receiver.path !== undefined && ROUTER.test(receiver.path);
  // `app.route("/x").get(handler)`, `router.route("/x").post(...)`.
  if (receiver.k === "call") return ROUTE_METHODS.has(receiver.callee) && isRouter(receiver.receiver);
  return false;
}

export function forEachExpr(stmts: readonly Stmt[], visit: (e: Expr) => void): void {
  const expr = (e: Expr): void => {
    visit(e);
    switch (e.k) {
      case "field":
        return expr(e.object);
      case "call":
        if (e.receiver) expr(e.receiver);
        return e.args.forEach(expr);
      case "new":
        return e.args.forEach(expr);
      case "binary":
        expr(e.left);
        return expr(e.right);
      case "unary":
      case "cast":
        return expr(e.arg);
      case "cond":
        expr(e.test);
        expr(e.then);
        return expr(e.else);
      case "index":
        expr(e.object);
        return expr(e.index);
      case "array":
        return e.items.forEach(expr);
      case "object":
        return e.entries.forEach((en) => expr(en.value));
      case "template":
      case "unknown":
        return e.parts.forEach(expr);
      default:
        return;
    }
  };
  const stmt = (s: Stmt): void => {
    switch (s.k) {
      case "assign":
        return expr(s.value);
      case "expr":
        return expr(s.expr);
      case "return":
      case "throw":
        if (s.value) expr(s.value);
        return;
      case "if":
        expr(s.test);
        s.then.forEach(stmt);
        return s.else.forEach(stmt);
      case "loop":
        if (s.test) expr(s.test);
        if (s.each) expr(s.each.iterable);
        [...s.init, ...s.update, ...s.body].forEach(stmt);
        return;
      case "switch":
        expr(s.test);
        return s.cases.forEach((c) => c.body.forEach(stmt));
      case "try":
        s.body.forEach(stmt);
        s.handlers.forEach((h) => h.body.forEach(stmt));
        return s.finally.forEach(stmt);
      case "block":
        return s.body.forEach(stmt);
      default:
        return;
    }
  };
  stmts.forEach(stmt);
}

/**
 * Which parameters of a Python function a web framework fills from the request, so the taint
 * analysis can treat them as sources: FastAPI/Starlette and Flask route decorators, and the
 * Django convention of views taking `request` first.
 */
import type { SgNode } from "@ast-grep/napi";
import type { ClassIR, Expr, FunctionIR, Stmt } from "./ir";
import { forEachExpr } from "./javascript-frameworks";
import { kindOf } from "./lower-util";
import { parts, type ParamInfo } from "./python-expr";

type Framework = "fastapi" | "flask";

const FASTAPI_VERBS = new Set(["get", "post", "put", "delete", "patch", "options", "head", "trace", "api_route", "websocket"]);
const FLASK_VERBS = new Set(["route", "get", "post", "put", "delete", "patch"]);
/** FastAPI injects these by type; they are the request itself or plumbing, not a request value. */
const INJECTED_TYPES = new Set(["Request", "WebSocket", "HTTPConnection", "Response", "BackgroundTasks", "SecurityScopes"]);
const DEPENDENCY_CALLS = new Set(["Depends", "Security"]);
const DJANGO_REQUEST_TYPES = new Set(["HttpRequest", "WSGIRequest", "ASGIRequest"]);
/** Methods of Django class-based views and DRF viewsets that receive URL arguments. */
const VIEW_METHODS = new Set([
  "get",
  "post",
  "put",
  "patch",
  "delete",
  "head",
  "options",
  "list",
  "create",
  "retrieve",
  "update",
  "partial_update",
  "destroy",
]);

export interface RouteContext {
  decorators: SgNode[];
  params: ParamInfo[];
  /** The function is a method taking its receiver first (neither static nor a lambda). */
  hasReceiver: boolean;
  name: string;
  imports: ReadonlyMap<string, string>;
  /** Base classes of the enclosing class (`MethodView`, `Resource`), when a method. */
  bases?: readonly string[];
  /** Enum classes of the module: a parameter of such a type is one of its members. */
  enums?: ReadonlySet<string>;
}

/** Types a framework converts and validates a parameter to before the view runs: no text survives. */
const SCALAR_TYPE =
  /^(int|float|bool|complex|Decimal|decimal\.Decimal|UUID|uuid\.UUID|UUID[1-5]|datetime|date|time|timedelta|(datetime\.)(datetime|date|time|timedelta)|PositiveInt|NegativeInt|NonNegativeInt|NonPositiveInt|PositiveFloat|NonNegativeFloat|StrictInt|StrictFloat|StrictBool|conint|confloat|condecimal)$/;
/** Flask/Werkzeug URL converters that only match numbers or UUIDs (`<int:id>`). */
const FLASK_CONVERTER = /<(int|float|uuid)(\([^)]*\))?:(\w+)>/g;

/** The type a parameter is annotated with, unwrapped from `Optional[…]`, `Annotated[…, …]` and `X | None`. */
function innerType(p: ParamInfo): string {
  let t = p.typeNode?.text().replace(/\s+/g, "") ?? "";
  for (let i = 0; i < 3; i++) {
    const m = /^(?:typing\.)?(?:Optional|Annotated)\[([^,\]]+)/.exec(t) ?? /^([^|]+)\|None$/.exec(t) ?? /^None\|(.+)$/.exec(t);
    if (!m?.[1]) break;
    t = m[1];
  }
  return t.replace(/\(.*$/, "");
}

/**
 * Route parameters the framework has already converted to a number, date, UUID or enum member
 * (FastAPI `item_id: int`, Flask `<int:item_id>`): not injectable text, neither sources nor
 * open entry parameters.
 */
export function scalarRouteParams(ctx: RouteContext): string[] {
  const framework = routeFramework(ctx.decorators, ctx.imports);
  if (framework === "fastapi")
    return ctx.params
      .filter((p) => !p.splat && (SCALAR_TYPE.test(innerType(p)) || !!ctx.enums?.has(innerType(p))))
      .map((p) => p.param.name);
  if (framework === "flask") {
    const names = ctx.decorators.flatMap((d) => [...d.text().matchAll(FLASK_CONVERTER)].map((m) => m[3] ?? ""));
    return ctx.params.filter((p) => names.includes(p.param.name)).map((p) => p.param.name);
  }
  return [];
}

/** `x = int(x)` for each converted parameter, prepended to the view's body: the number sanitizer cleans it. */
export function scalarConversions(names: readonly string[], loc: FunctionIR["loc"]): Stmt[] {
  return names.map((name) => ({
    k: "assign",
    target: { k: "var", name, loc },
    value: { k: "call", callee: "int", receiver: null, args: [{ k: "var", name, loc }], path: "int", loc, text: `int(${name})` },
    op: "=",
    loc,
  }));
}

export function sourceParams(ctx: RouteContext): FunctionIR["sourceParams"] {
  const first = ctx.hasReceiver ? 1 : 0;
  const framework = routeFramework(ctx.decorators, ctx.imports);
  const scalars = new Set(scalarRouteParams(ctx));
  const out: { index: number; label: string }[] = [];
  if (framework === "fastapi") {
    ctx.params.forEach((p, index) => {
      if (index < first || p.splat || INJECTED_TYPES.has(p.param.type ?? "") || isDependency(p) || scalars.has(p.param.name)) return;
      out.push({ index, label: `route parameter \`${p.param.name}\`` });
    });
  } else if (framework === "flask") {
    ctx.params.forEach((p, index) => {
      if (index >= first && !scalars.has(p.param.name)) out.push({ index, label: `URL path parameter \`${p.param.name}\`` });
    });
  } else if (isFlaskClassView(ctx, first)) {
    ctx.params.forEach((p, index) => {
      if (index >= first && !p.splat && !scalars.has(p.param.name)) out.push({ index, label: `URL path parameter \`${p.param.name}\`` });
    });
  } else if (isWsgiApp(ctx, first)) {
    out.push({ index: first, label: "WSGI environ (request headers, path and query string)" });
  } else if (isDjangoView(ctx, first)) {
    ctx.params.forEach((p, index) => {
      if (index > first) out.push({ index, label: `view parameter \`${p.param.name}\`` });
    });
  }
  return out.length ? out : undefined;
}

function routeFramework(decorators: SgNode[], imports: ReadonlyMap<string, string>): Framework | null {
  const modules = [...imports.values()];
  const hasFastapi = modules.some((m) => /^(fastapi|starlette)\b/.test(m));
  const hasFlask = modules.some((m) => /^flask\b/.test(m));
  for (const d of decorators) {
    const call = parts(d)[0];
    if (!call || kindOf(call) !== "call") continue;
    const fn = call.field("function");
    if (!fn || kindOf(fn) !== "attribute") continue;
    const verb = fn.field("attribute")?.text() ?? "";
    const route = call.field("arguments");
    const routeText = route ? (parts(route)[0]?.text() ?? "") : "";
    if (FASTAPI_VERBS.has(verb) && !FLASK_VERBS.has(verb)) return "fastapi";
    if (!FLASK_VERBS.has(verb)) continue;
    if (hasFlask && !hasFastapi) return "flask";
    if (hasFastapi && !hasFlask) return "fastapi";
    // Neither or both imported here: the route syntax tells them apart (`<id>` vs `{id}`).
    if (verb === "route" || /<[^>]*>/.test(routeText)) return "flask";
    return "fastapi";
  }
  return null;
}

function isDependency(p: ParamInfo): boolean {
  const callee = (call: SgNode): string => {
    const fn = call.field("function");
    if (!fn) return "";
    return kindOf(fn) === "attribute" ? (fn.field("attribute")?.text() ?? "") : fn.text();
  };
  if (p.defaultValue && kindOf(p.defaultValue) === "call" && DEPENDENCY_CALLS.has(callee(p.defaultValue))) return true;
  // `x: Annotated[T, Depends(f)]`
  return !!p.typeNode?.findAll({ rule: { kind: "call" } }).some((c) => DEPENDENCY_CALLS.has(callee(c)));
}

/** `class Item(MethodView)` / Flask-RESTful `class Item(Resource)`: `def get(self, item_id)` takes the URL's variables. */
function isFlaskClassView(ctx: RouteContext, first: number): boolean {
  if (!ctx.hasReceiver || !FLASK_VERBS.has(ctx.name) || ctx.params[first]?.param.name === "request") return false;
  if (![...ctx.imports.values()].some((m) => /^flask(_restful|_restx|\.views)?\b/.test(m))) return false;
  return (ctx.bases ?? []).some((b) => /(^|\.)(MethodView|Resource|View)$/.test(b));
}

/** A WSGI application or middleware call: `def app(environ, start_response)`. */
function isWsgiApp(ctx: RouteContext, first: number): boolean {
  return ctx.params[first]?.param.name === "environ" && ctx.params[first + 1]?.param.name === "start_response";
}

function isDjangoView(ctx: RouteContext, first: number): boolean {
  const request = ctx.params[first];
  if (!request || request.param.name !== "request") return false;
  if (request.param.type && !DJANGO_REQUEST_TYPES.has(request.param.type)) return false;
  return !ctx.hasReceiver || VIEW_METHODS.has(ctx.name);
}

/**
 * A Flask view may return `(body, status)`, `(body, headers)` or `(body, status, headers)`:
 * Flask builds the response with `make_response` from the tuple, so each such return is
 * lowered as that call and its body meets the XSS sink and its headers the header-injection
 * sink. A dict or list body is sent as JSON and is left out.
 */
export function flaskViewReturns(fn: FunctionIR, decorators: SgNode[], imports: ReadonlyMap<string, string>): void {
  if (routeFramework(decorators, imports) !== "flask") return;
  const strings = stringLocals(fn.body);
  const visit = (stmts: Stmt[]): void => {
    for (const [i, st] of stmts.entries()) {
      if (st.k === "return" && st.value?.k === "array" && st.value.items.length >= 2 && st.value.items.length <= 3)
        stmts[i] = { ...st, value: viewResponse(st.value.items, st.value.loc) };
      else if (st.k === "return" && st.value && isString(st.value, strings))
        stmts[i] = { ...st, value: viewResponse([st.value], st.value.loc) };
      else if (st.k === "if") [st.then, st.else].forEach(visit);
      else if (st.k === "loop" || st.k === "block") visit(st.body);
      else if (st.k === "switch") st.cases.forEach((c) => visit(c.body));
      else if (st.k === "try") [st.body, st.finally, ...st.handlers.map((h) => h.body)].forEach(visit);
    }
  };
  visit(fn.body);
}

/**
 * A returned value that is a string, so Flask sends it as an HTML page: a literal, an f-string,
 * `%`-formatting, a concatenation or `.format()`/`.join()` of one, a request value, or a local
 * only ever assigned such values. Anything else (a `Response`, `redirect(…)`, a rendered
 * template, an unknown call) is left as it is.
 */
function isString(e: Expr, locals: ReadonlySet<string>): boolean {
  switch (e.k) {
    case "const":
      return typeof e.value === "string";
    case "template":
      return true;
    case "binary":
      return (e.op === "+" || e.op === "%") && (isString(e.left, locals) || isString(e.right, locals));
    case "var":
      return locals.has(e.name);
    case "field":
      return REQUEST_VALUE.test(e.path ?? "");
    case "index":
      return REQUEST_VALUE.test(e.object.k === "field" ? (e.object.path ?? "") : "");
    case "call":
      if ((e.callee === "format" || e.callee === "join") && e.receiver?.k === "const") return true;
      return e.path !== undefined && REQUEST_VALUE.test(e.path) && /^(get|getlist)$/.test(e.callee);
    default:
      return false;
  }
}

const REQUEST_VALUE = /^(flask\.)?request\.(args|form|values|cookies|headers|view_args)\b/;

/** Locals every assignment of which (in the whole function) is a string in the sense of `isString`. */
function stringLocals(body: Stmt[]): Set<string> {
  const assigned = new Map<string, Expr[]>();
  const visit = (stmts: Stmt[]): void => {
    for (const st of stmts) {
      if (st.k === "assign" && st.target.k === "var") assigned.set(st.target.name, [...(assigned.get(st.target.name) ?? []), st.value]);
      else if (st.k === "if") [st.then, st.else].forEach(visit);
      else if (st.k === "loop" || st.k === "block") visit(st.body);
      else if (st.k === "switch") st.cases.forEach((c) => visit(c.body));
      else if (st.k === "try") [st.body, st.finally, ...st.handlers.map((h) => h.body)].forEach(visit);
    }
  };
  visit(body);
  const out = new Set<string>();
  // Two passes: `html = "<p>" + name` where `name = request.args.get("name")`.
  for (let pass = 0; pass < 2; pass++) for (const [name, values] of assigned) if (values.every((v) => isString(v, out))) out.add(name);
  return out;
}

function viewResponse(items: Expr[], loc: Extract<Expr, { k: "array" }>["loc"]): Expr {
  const [body, second, third] = items;
  const json = body?.k === "object" || body?.k === "array";
  const args: Expr[] = [json || !body ? { k: "const", value: "", loc } : body];
  // `(body, headers)`: a dict in second place is the headers.
  if (third) args.push(second ?? { k: "const", value: 200, loc }, third);
  else if (second?.k === "object") args.push({ k: "const", value: 200, loc }, second);
  else if (second) args.push(second);
  return { k: "call", callee: "make_response", receiver: null, args, path: "flask.make_response", loc, text: "make_response(…)" };
}

/** Response methods of a Tornado handler: what `self.write(…)` and `self.redirect(…)` are in its subclasses. */
const TORNADO_RESPONSE = new Set(["write", "finish", "redirect", "set_header", "add_header", "set_cookie", "render_string"]);
const TORNADO_HANDLER = /(^|\.)(RequestHandler|WebSocketHandler)$/;

/**
 * In a method of a `tornado.web.RequestHandler` subclass, `self.write(x)` is the handler's own
 * response method: the call gets the path `tornado.web.RequestHandler.write` so the sink tables
 * can name it without matching every `self.write` of other classes.
 */
export function tornadoHandlerCalls(fn: FunctionIR, cls: ClassIR | null): void {
  if (!cls || ![cls.superclass ?? "", ...(cls.interfaces ?? [])].some((b) => TORNADO_HANDLER.test(b))) return;
  forEachExpr(fn.body, (e) => {
    if (
      e.k === "call" &&
      e.receiver?.k === "var" &&
      e.receiver.name === "self" &&
      TORNADO_RESPONSE.has(e.callee) &&
      (!e.path || e.path === `self.${e.callee}`)
    )
      e.path = `tornado.web.RequestHandler.${e.callee}`;
  });
}

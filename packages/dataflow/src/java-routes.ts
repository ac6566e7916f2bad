/**
 * Handler methods whose return value is the HTTP response body (Java): Spring `@ResponseBody`
 * methods and the request-mapping methods of a `@RestController`, and JAX-RS resource methods
 * (`@GET`, `@POST`, …). Each `return x` of such a method that is sent as HTML is lowered as
 * the call `@ResponseBody(x)`, which java-spec.ts names as an XSS sink.
 *
 * Sent as HTML: the method returns a `String` (or `CharSequence`, `ResponseEntity<String>`)
 * and its produced type — `produces` of the mapping annotation or `@Produces`, on the method or
 * else its class — is HTML or not declared (Spring and JAX-RS then pick the type from the
 * browser's `Accept`, which asks for `text/html`). A handler that declares JSON, plain text or
 * XML is not a page: returning input from it is not XSS. A method returning an untyped
 * `ResponseEntity` or a JAX-RS `Response` is a page when it declares HTML; without a declared
 * type only when the entity it returns is a string built in place (`Response.ok("<p>" + x)`),
 * since an object entity is serialized (JSON) rather than written as markup.
 */
import type { SgNode } from "@ast-grep/napi";
import type { Expr, FunctionIR, Stmt } from "./ir";
import { kindOf, namedChildren } from "./lower-util";

/** The callee name of the synthetic response-body call. */
export const RESPONSE_BODY = "@ResponseBody";

const MAPPINGS = new Set(["RequestMapping", "GetMapping", "PostMapping", "PutMapping", "DeleteMapping", "PatchMapping"]);
const JAXRS_METHODS = new Set(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]);
const HTML_TYPES = /TEXT_HTML|text\/html|XHTML|xhtml|ALL_VALUE|WILDCARD|\*\/\*/;
const STRING_RETURN = /^((java\.lang\.)?(String|CharSequence)|ResponseEntity<\s*(String|CharSequence)\s*>)$/;
const RESPONSE_RETURN = /^((javax|jakarta)\.ws\.rs\.core\.)?Response$|^ResponseEntity(<\s*(\?|Object)\s*>)?$/;

/** What a class's annotations say about its handlers. */
export interface ClassRouting {
  /** `@RestController`, or `@ResponseBody` on the class. */
  responseBody: boolean;
  /** `produces` of the class's `@RequestMapping`, or its `@Produces`. */
  produces?: string;
}

interface Annotation {
  name: string;
  /** The `produces` element (Spring) or the value (`@Produces`), as written. */
  produces?: string;
}

function annotations(node: SgNode): Annotation[] {
  const mods = namedChildren(node).find((c) => kindOf(c) === "modifiers");
  return (mods ? namedChildren(mods) : [])
    .filter((a) => kindOf(a) === "marker_annotation" || kindOf(a) === "annotation")
    .map((a) => {
      const name = (a.field("name")?.text() ?? "").split(".").pop() ?? "";
      const args = a.field("arguments");
      const pairs = args ? namedChildren(args) : [];
      let produces: string | undefined;
      if (name === "Produces") produces = args?.text();
      else
        for (const p of pairs)
          if (kindOf(p) === "element_value_pair" && p.field("key")?.text() === "produces") produces = p.field("value")?.text();
      return { name, ...(produces !== undefined ? { produces } : {}) };
    });
}

export function classRouting(decl: SgNode): ClassRouting {
  const list = annotations(decl);
  const produces = list.find((a) => (a.name === "RequestMapping" || a.name === "Produces") && a.produces !== undefined)?.produces;
  return {
    responseBody: list.some((a) => a.name === "RestController" || a.name === "ResponseBody"),
    ...(produces !== undefined ? { produces } : {}),
  };
}

/** Rewrites the returns of `fn`, lowered from `method`, that a framework sends as an HTML body. */
export function markResponseBody(fn: FunctionIR, method: SgNode, cls: ClassRouting | undefined): void {
  const list = annotations(method);
  const spring = list.some((a) => MAPPINGS.has(a.name)) && (cls?.responseBody || list.some((a) => a.name === "ResponseBody"));
  const jaxrs = list.some((a) => JAXRS_METHODS.has(a.name));
  if (!spring && !jaxrs) return;
  const declared = list.find((a) => a.produces !== undefined)?.produces ?? cls?.produces;
  if (declared !== undefined && !HTML_TYPES.test(declared)) return;
  const returns = (method.field("type")?.text() ?? "").replace(/\s+/g, "");
  const whole = STRING_RETURN.test(returns);
  if (!whole && !RESPONSE_RETURN.test(returns)) return;
  const wrap = (value: Expr): Expr | null => {
    if (whole || declared !== undefined) return value;
    const entity = entityOf(value);
    return entity && builtString(entity) ? entity : null;
  };
  rewriteReturns(fn.body, wrap);
}

function rewriteReturns(stmts: Stmt[], wrap: (value: Expr) => Expr | null): void {
  for (const [i, st] of stmts.entries()) {
    if (st.k === "return" && st.value) {
      const body = wrap(st.value);
      if (body)
        stmts[i] = {
          ...st,
          value: { k: "call", callee: RESPONSE_BODY, receiver: null, args: [body], path: RESPONSE_BODY, loc: st.loc, text: "return" },
        };
    } else if (st.k === "if") [st.then, st.else].forEach((b) => rewriteReturns(b, wrap));
    else if (st.k === "loop" || st.k === "block") rewriteReturns(st.body, wrap);
    else if (st.k === "switch") st.cases.forEach((c) => rewriteReturns(c.body, wrap));
    else if (st.k === "try") [st.body, st.finally, ...st.handlers.map((h) => h.body)].forEach((b) => rewriteReturns(b, wrap));
  }
}

/** The entity of `Response.ok(x).build()`, `Response.status(200).entity(x).build()`, `ResponseEntity.ok(x)`, `….body(x)`. */
function entityOf(e: Expr): Expr | undefined {
  for (let c: Expr | null = e; c && c.k === "call"; c = c.receiver)
    if ((c.callee === "ok" || c.callee === "entity" || c.callee === "body") && c.args[0]) return c.args[0];
  return undefined;
}

/** A string made in place: a literal, a concatenation with one, a `String.format`. */
function builtString(e: Expr): boolean {
  if (e.k === "const") return typeof e.value === "string";
  if (e.k === "template") return true;
  if (e.k === "binary") return e.op === "+" && (builtString(e.left) || builtString(e.right));
  return e.k === "call" && e.callee === "format" && e.path === "String.format";
}

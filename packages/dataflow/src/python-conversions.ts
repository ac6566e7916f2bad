/**
 * Python conversions the lowering makes explicit, so the number sanitizer (`int(…)`) sees them:
 * a request value read with a converter (`request.args.get("page", 1, type=int)`) and a value
 * formatted by a numeric `%` conversion (`"… id = %d" % value`), which is a number or an error.
 */
import type { Expr, Stmt } from "./ir";
import { forEachExpr } from "./javascript-frameworks";

type Call = Extract<Expr, { k: "call" }>;

/** `type=` converters that leave no text (werkzeug MultiDict.get, Django QueryDict has none). */
const NUMERIC_CONVERTER = /^(int|float|bool|complex|decimal\.Decimal|Decimal|uuid\.UUID|UUID)$/;
/** One `%` conversion: optional mapping key, flags, width, precision, length, then the type. */
const PERCENT_SPEC = /%(\([^)]*\))?[#0\- +]*(\*|\d+)?(\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])/g;

function asInt(e: Expr): Call {
  return { k: "call", callee: "int", receiver: null, args: [e], path: "int", loc: e.loc, text: "int(…)" };
}

/** The conversion types of a format string, `%%` left out; undefined when it uses `%(name)s` keys. */
function conversions(format: string): string[] | undefined {
  const out: string[] = [];
  for (const m of format.matchAll(PERCENT_SPEC)) {
    if (m[5] === "%") continue;
    if (m[1] || m[2] === "*" || m[4] === "*") return undefined;
    out.push(m[5] ?? "s");
  }
  return out;
}

const isNumeric = (t: string) => /^[diouxXeEfFgG]$/.test(t);

/** Names every assignment of which (among these statements, not nested) is a dict literal of constants. */
function constantDicts(stmts: readonly Stmt[]): Set<string> {
  const seen = new Map<string, boolean>();
  for (const st of stmts) {
    if (st.k !== "assign" || st.target.k !== "var") continue;
    const ok = st.value.k === "object" && st.value.entries.every((en) => en.key !== null && en.value.k === "const");
    seen.set(st.target.name, (seen.get(st.target.name) ?? true) && ok);
  }
  return new Set([...seen].filter(([, ok]) => ok).map(([name]) => name));
}

/** `ALLOWED.get(key, default)` on a dict of constants is `ALLOWED[key] if key in ALLOWED else default`: one of its values. */
function dictGet(e: Call, dicts: ReadonlySet<string>): Expr | undefined {
  const [key, fallback] = e.args;
  if (e.receiver?.k !== "var" || !dicts.has(e.receiver.name) || !key || e.args.length > 2 || e.kwargs) return undefined;
  const { receiver, loc } = e;
  return {
    k: "cond",
    test: { k: "binary", op: "in", left: key, right: receiver, loc },
    then: { k: "index", object: receiver, index: key, loc },
    else: fallback ?? { k: "const", value: null, loc },
    loc,
  };
}

/**
 * Rewrites, in place, the request reads with a numeric `type=`, the operands of numeric `%`
 * conversions, and `.get` on dicts of constants (the function's own or the module's).
 */
export function explicitConversions(body: Stmt[], moduleBody: readonly Stmt[] = []): void {
  const dicts = new Set([...constantDicts(moduleBody), ...constantDicts(body)]);
  forEachExpr(body, (e) => {
    const lookup = e.k === "call" && e.callee === "get" ? dictGet(e, dicts) : undefined;
    if (lookup) {
      for (const k of Object.keys(e)) delete (e as Record<string, unknown>)[k];
      Object.assign(e, lookup);
      return;
    }
    if (e.k === "call" && e.callee === "get" && e.receiver && e.kwargs?.type) {
      const t = e.kwargs.type;
      const name = t.k === "var" ? t.name : t.k === "field" ? t.path : undefined;
      if (name && NUMERIC_CONVERTER.test(name)) {
        // The read itself, without `type=` (the rewritten node is walked again).
        const inner: Call = { ...e, kwargs: undefined };
        delete inner.kwargs;
        Object.assign(e, asInt(inner));
        delete (e as Partial<Call>).kwargs;
      }
      return;
    }
    if (e.k !== "binary" || e.op !== "%" || e.left.k !== "const" || typeof e.left.value !== "string") return;
    const types = conversions(e.left.value);
    if (!types?.length) return;
    if (e.right.k === "array" && e.right.items.length === types.length)
      e.right.items = e.right.items.map((item, i) => (isNumeric(types[i] ?? "s") ? asInt(item) : item));
    else if (types.length === 1 && isNumeric(types[0] ?? "s") && e.right.k !== "array") e.right = asInt(e.right);
  });
}

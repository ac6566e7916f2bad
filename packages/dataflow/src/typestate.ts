/**
 * Typestate: the configuration of an object travels on its abstract value (`Value.state`), so
 * a configuration sink (an XML parser resolving external entities, a YAML loader with an
 * unsafe constructor, a template environment without autoescape) is reported at the
 * parse/load/render call whose input is tainted, and not where the object is configured.
 * The tables (`LanguageSpec.states`, `SinkRule.state`, `SinkRule.when`) say which calls make,
 * configure and hand on such objects; this file reads them. Constant files inside the
 * application (source-policy.ts) ride on the same field.
 */
import type { CallParts } from "./call-parts";
import type { Expr } from "./ir";
import type { Env } from "./fold";
import { chainPath } from "./lower-util";
import { bundledState } from "./source-policy";
import type { ArgTest, CallPattern, LanguageSpec, SinkRule, StateRule } from "./spec";
import type { Value } from "./values";

type Call = Extract<Expr, { k: "call" }>;

/** A call as the interpreter sees it: the expression and the values of its receiver and arguments. */
export type { CallParts };

function argAt(c: CallParts, arg: number | string, kw?: string): { expr?: Expr; value?: Value } {
  const at = (a: number | string) =>
    typeof a === "number" ? { expr: c.e.args[a], value: c.args[a] } : { expr: c.e.kwargs?.[a], value: c.kwargs.get(a) };
  const found = at(arg);
  return found.expr || found.value || kw === undefined ? found : at(kw);
}

/** What an argument shows of itself: its dotted name, the call or `new` that made it, its class, its constant. */
function texts(expr: Expr | undefined, value: Value | undefined): string[] {
  const out: (string | undefined)[] = [
    expr ? chainPath(expr) : undefined,
    expr && (expr.k === "call" || expr.k === "new") ? expr.text : undefined,
    value?.cls,
    value?.via,
    value?.konst && value.konst.v !== null ? String(value.konst.v) : undefined,
    argvText(value),
    leadText(expr),
  ];
  return out.filter((t): t is string => t !== undefined);
}

/**
 * The constant a built string starts with, as `lead:/profile/` for `"/profile/" + name`,
 * `"/profile/%s" % name` or `f"/profile/{name}"`: where a redirect or a request can go is
 * decided by that prefix (a path on this site, a fixed host).
 */
function leadText(expr: Expr | undefined): string | undefined {
  let e = expr;
  for (let i = 0; e?.k === "binary" && (e.op === "+" || e.op === "%") && i < 50; i++) e = e.left;
  if (e?.k === "template") e = e.parts[0];
  return e !== expr && e?.k === "const" && typeof e.value === "string" && e.value ? `lead:${e.value}` : undefined;
}

/** A list with known leading constants, as `argv:sh -c` (an argument vector's program and its first options). */
function argvText(value: Value | undefined): string | undefined {
  if (value?.len === undefined || !value.keys) return undefined;
  const lead: string[] = [];
  for (let i = 0; i < value.len; i++) {
    const k = value.keys.get(String(i))?.konst;
    if (!k || typeof k.v !== "string") break;
    lead.push(k.v);
  }
  return lead.length ? `argv:${lead.join(" ")}` : undefined;
}

export function argHolds(c: CallParts, t: ArgTest): boolean {
  let { expr, value } = argAt(c, t.arg, t.kw);
  if (t.key !== undefined) {
    const entry = expr?.k === "object" ? expr.entries.find((en) => en.key === t.key)?.value : undefined;
    value = value?.keys?.get(t.key);
    expr = entry;
  }
  if (!expr && !value) return t.absent === true;
  if (t.equals === undefined && !t.text) return true;
  if (t.equals !== undefined) {
    const k = value?.konst ?? (expr?.k === "const" ? { v: expr.value } : undefined);
    if (k && k.v === t.equals) return true;
  }
  return !!t.text && texts(expr, value).some((x) => t.text!.test(x));
}

/** Whether a matched sink rule applies: its own options and the state of the object it needs. */
export function sinkApplies(rule: SinkRule, c: CallParts): boolean {
  if (rule.when && !argHolds(c, rule.when)) return false;
  if (rule.unless && argHolds(c, rule.unless)) return false;
  const need = rule.state;
  if (!need) return true;
  const holders = need.at === "receiver" ? [c.receiver] : need.at.map((a) => argAt(c, a).value);
  return holders.some((v) => v?.state === `${need.name}:unsafe`);
}

/** The sink needs an unsafely configured object and every object it is given is known to be configured safely. */
export function configuredSafely(rule: SinkRule, c: CallParts): boolean {
  const need = rule.state;
  if (!need || (rule.when && !argHolds(c, rule.when))) return false;
  const holders = need.at === "receiver" ? [c.receiver] : need.at.map((a) => argAt(c, a).value);
  return holders.length > 0 && holders.every((v) => v?.state === `${need.name}:safe`);
}

function created(rule: StateRule, create: StateRule["create"][number], c: CallParts): string {
  if (create.safeIf?.some((t) => argHolds(c, t))) return `${rule.name}:safe`;
  if (create.unsafeIf?.some((t) => argHolds(c, t))) return `${rule.name}:unsafe`;
  return `${rule.name}:${create.initial}`;
}

/**
 * The state of a call's (or `new`'s) result, after updating the receiver's state in `env` when
 * the call configures it (`factory.setFeature(…)`, `props.load(…)`).
 */
export function stateAfter(
  spec: LanguageSpec,
  c: CallParts,
  isNew: boolean,
  matches: (p: CallPattern) => boolean,
  env: Env,
): string | undefined {
  let result: string | undefined;
  let receiverState: string | undefined;
  for (const rule of spec.states ?? []) {
    for (const create of rule.create) if (!!create.call.isNew === isNew && matches(create.call)) result = created(rule, create, c);
    const own = c.receiver?.state;
    if (isNew || !own?.startsWith(`${rule.name}:`)) continue;
    if (rule.derive.includes(c.e.callee)) result = own;
    for (const cf of rule.configure)
      if (cf.names.includes(c.e.callee) && cf.tests.every((t) => argHolds(c, t))) receiverState = `${rule.name}:${cf.makes}`;
  }
  const file = bundledState(spec.language, c, isNew);
  result ??= file.result;
  // A file state never replaces a configuration state (`yaml.load(x)` is not `props.load(x)`).
  if (!c.receiver?.state || c.receiver.state.startsWith("file:")) receiverState ??= file.receiver;
  const r = c.e.receiver;
  if (receiverState && r?.k === "var" && env.has(r.name)) env.set(r.name, { ...(env.get(r.name) as Value), state: receiverState });
  return result;
}

export function withState(v: Value, state: string | undefined): Value {
  return state ? { ...v, state } : v;
}

/**
 * The state of a module global never assigned again, from its initialiser (`env =
 * jinja2.Environment(autoescape=False)` at module level): constant arguments only. Not for
 * Java, whose static fields are often configured in a static block the reader does not see.
 */
export function initState(spec: LanguageSpec, language: string, init: Expr | undefined): string | undefined {
  if (!init || language === "java" || (init.k !== "call" && init.k !== "new")) return undefined;
  const e: Call =
    init.k === "call"
      ? init
      : { k: "call", callee: init.cls, receiver: null, args: init.args, path: init.cls, loc: init.loc, text: init.text };
  const constValue = (a: Expr | undefined): Value => (a?.k === "const" ? { facts: [], konst: { v: a.value } } : { facts: [] });
  const c: CallParts = {
    e,
    receiver: null,
    args: e.args.map(constValue),
    kwargs: new Map(Object.entries(e.kwargs ?? {}).map(([k, v]) => [k, constValue(v)])),
  };
  const isNew = init.k === "new";
  const matches = (p: CallPattern) =>
    !p.receiver && p.names.includes(e.callee) && (!p.path || (e.path !== undefined && p.path.test(e.path)));
  for (const rule of spec.states ?? [])
    for (const create of rule.create) if (!!create.call.isNew === isNew && matches(create.call)) return created(rule, create, c);
  return undefined;
}

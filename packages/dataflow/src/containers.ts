/**
 * Lists with positions. A list made here (`new ArrayList<>()`, `[]`, `[a, b]`, `list()`) is a
 * value whose `len` is known and whose `keys` "0".."len-1" hold its elements in order;
 * `add`/`append`/`push`, `add(i, x)`/`insert`/`unshift`, `remove(i)`/`pop`/`shift`/`splice`,
 * `set(i, x)`, `get(i)`/`[i]` and `size()`/`len()`/`.length` with constant indexes keep the
 * positions exact. Anything else (a non-constant index, a removal by value, the list handed to
 * another call, a loop that changes it) drops the positions: every element then reads as the
 * whole list (sound). Setters with a section (`config.set(section, key, value)`) store under
 * the section and key.
 */
import type { Env } from "./fold";
import type { Expr, Stmt } from "./ir";
import { EMPTY, mergeFacts, type Fact, type Value } from "./values";

/** Calls on a positional list understood here. */
const LIST_OPS = new Set([
  "add",
  "append",
  "push",
  "insert",
  "unshift",
  "addFirst",
  "addLast",
  "remove",
  "pop",
  "shift",
  "removeFirst",
  "removeLast",
  "splice",
  "set",
  "get",
  "getFirst",
  "getLast",
  "size",
  "isEmpty",
  "clear",
  "extend",
  "addAll",
]);

/** Calls that change a list (in a loop, they drop its positions). */
const MUTATING = new Set([...LIST_OPS].filter((op) => !["get", "getFirst", "getLast", "size", "isEmpty"].includes(op)));

const LIST_CLASSES = new Set(["ArrayList", "LinkedList", "Vector", "CopyOnWriteArrayList"]);

/** A new empty list: `new ArrayList<>()`, Python `list()`. */
export function emptyList(): Value {
  return { facts: [], keys: new Map(), len: 0 };
}

export function isNewList(e: Extract<Expr, { k: "new" | "call" }>): boolean {
  if (e.args.length) return false;
  return e.k === "new" ? LIST_CLASSES.has(e.cls) : e.callee === "list" && !e.receiver;
}

/** A list with exact positions from its elements. */
export function listOf(items: readonly Value[]): Value {
  const keys = new Map<string, Value>();
  items.forEach((v, i) => keys.set(String(i), v));
  return { facts: mergeFacts(...items.map((v) => v.facts)), keys, len: items.length };
}

/** The list without positions: each element may be any of them. */
export function degrade(v: Value): Value {
  if (v.len === undefined) return v;
  const { len: _len, ...rest } = v;
  void _len;
  return { ...rest, loose: mergeFacts(v.loose, v.facts, ...[...(v.keys?.values() ?? [])].map((k) => k.facts)) };
}

function items(v: Value): Value[] {
  return Array.from({ length: v.len ?? 0 }, (_, i) => v.keys?.get(String(i)) ?? EMPTY);
}

/** An element read at a constant position (negative from the end in Python). */
export function elementAt(list: Value, index: number, python: boolean): Value | undefined {
  if (list.len === undefined || !Number.isInteger(index)) return undefined;
  const at = index < 0 && python ? list.len + index : index;
  if (at < 0 || at >= list.len) return { facts: [...(list.loose ?? [])] };
  return withLoose(list.keys?.get(String(at)) ?? EMPTY, list.loose);
}

export interface ListResult {
  /** The call's value. */
  value: Value;
  /** The list after the call. */
  list: Value;
}

const int = (v: Value | undefined): number | undefined =>
  typeof v?.konst?.v === "number" && Number.isInteger(v.konst.v) ? v.konst.v : undefined;

/**
 * A call on a positional list, or undefined when it is not understood here (the caller then
 * drops the positions and interprets the call as any other).
 */
export function listCall(callee: string, list: Value, args: readonly Value[], language: string): ListResult | undefined {
  if (!LIST_OPS.has(callee) || list.len === undefined) return undefined;
  const xs = items(list);
  const python = language === "python";
  const done = (value: Value, next: Value[] = xs): ListResult => ({ value, list: rebuild(list, next) });
  const take = (i: number): ListResult | undefined => {
    if (i < 0 || i >= xs.length) return undefined;
    const [removed] = xs.splice(i, 1);
    return done(withLoose(removed!, list.loose));
  };
  const [a, b] = args;
  switch (callee) {
    case "add":
    case "append":
    case "push":
    case "addLast":
      if (callee === "add" && args.length === 2) return insertAt(int(a), b, xs, done);
      if (callee !== "push" && args.length !== 1) return undefined;
      xs.push(...args);
      return done(callee === "push" ? { facts: [], konst: { v: xs.length } } : EMPTY);
    case "insert":
      return args.length === 2 ? insertAt(int(a), b, xs, done) : undefined;
    case "unshift":
    case "addFirst":
      xs.unshift(...args);
      return done(callee === "unshift" ? { facts: [], konst: { v: xs.length } } : EMPTY);
    case "remove":
      // Java's remove(int) takes an index; Python's remove(x) and Java's remove(Object) a value.
      return !python && args.length === 1 && int(a) !== undefined ? take(int(a)!) : undefined;
    case "pop":
      if (args.length === 0) return take(language === "java" ? 0 : xs.length - 1);
      return python && int(a) !== undefined ? take(int(a)! < 0 ? xs.length + int(a)! : int(a)!) : undefined;
    case "shift":
    case "removeFirst":
      return args.length === 0 ? take(0) : undefined;
    case "removeLast":
      return args.length === 0 ? take(xs.length - 1) : undefined;
    case "splice":
      return splice(int(a), args.length > 1 ? int(b) : xs.length, args.slice(2), xs, list, done);
    case "set": {
      const i = int(a);
      if (args.length !== 2 || i === undefined || i < 0 || i >= xs.length) return undefined;
      const old = xs[i]!;
      xs[i] = b!;
      return done(old);
    }
    case "get":
    case "getFirst":
    case "getLast": {
      const i = callee === "get" ? int(a) : callee === "getFirst" ? 0 : xs.length - 1;
      const v = i === undefined || args.length > (callee === "get" ? 1 : 0) ? undefined : elementAt(list, i, false);
      return v ? done(v) : undefined;
    }
    case "size":
      return args.length ? undefined : done({ facts: [], konst: { v: xs.length } });
    case "isEmpty":
      return args.length ? undefined : done({ facts: [], konst: { v: xs.length === 0 } });
    case "clear":
      return args.length ? undefined : done(EMPTY, []);
    case "extend":
    case "addAll":
      if (args.length !== 1 || a?.len === undefined) return undefined;
      xs.push(...items(a));
      return done(EMPTY);
  }
  return undefined;
}

function insertAt(i: number | undefined, v: Value | undefined, xs: Value[], done: (value: Value) => ListResult): ListResult | undefined {
  if (i === undefined || !v || i < 0 || i > xs.length) return undefined;
  xs.splice(i, 0, v);
  return done(EMPTY);
}

function splice(
  start: number | undefined,
  count: number | undefined,
  added: readonly Value[],
  xs: Value[],
  list: Value,
  done: (value: Value) => ListResult,
): ListResult | undefined {
  if (start === undefined || count === undefined || start < 0 || count < 0) return undefined;
  const removed = xs.splice(Math.min(start, xs.length), count, ...added);
  return done({ ...listOf(removed), loose: [...(list.loose ?? [])] });
}

function rebuild(old: Value, xs: readonly Value[]): Value {
  const v = listOf(xs);
  return { ...old, ...v, facts: mergeFacts(v.facts, old.loose), konst: undefined };
}

/** Constant key and value of a setter: `put(k, v)`, `set(k, v)`, and `set(section, key, value)`. */
export function setterEntry(callee: string, args: readonly Value[]): { key: string; value: Value } | undefined {
  if (!["put", "set", "setdefault", "setAttribute", "setProperty"].includes(callee) || args.length < 2) return undefined;
  if (callee === "set" && args.length === 3) {
    const key = sectionKey(args[0]!, args[1]!);
    return key === undefined ? undefined : { key, value: args[2]! };
  }
  const k = args[0]!.konst;
  return k && k.v !== null ? { key: String(k.v), value: args[1]! } : undefined;
}

/** The key a section and an option are stored under (`config.set("db", "url", v)`). */
export function sectionKey(section: Value, key: Value): string | undefined {
  const s = section.konst?.v;
  const k = key.konst?.v;
  return s === undefined || s === null || k === undefined || k === null ? undefined : `${String(s)}\u0000${String(k)}`;
}

/** Names of positional lists that a loop body changes (their positions are dropped before it). */
export function mutatedLists(stmts: readonly Stmt[], isList: (name: string) => boolean): Set<string> {
  const out = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 60 || node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const n of node) visit(n, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    const recv = o.receiver as Expr | null | undefined;
    if (o.k === "call" && recv?.k === "var" && MUTATING.has(o.callee as string) && isList(recv.name)) out.add(recv.name);
    if (o.k === "assign") {
      const t = o.target as Expr;
      if (t.k === "index" && t.object.k === "var" && isList(t.object.name)) out.add(t.object.name);
      if (t.k === "var" && isList(t.name)) out.add(t.name);
    }
    for (const [k, v] of Object.entries(o)) if (k !== "loc") visit(v, depth + 1);
  };
  visit(stmts, 0);
  return out;
}

/** Methods that neither change a list nor reorder it: its positions survive them. */
const READS = new Set([
  "contains",
  "includes",
  "indexOf",
  "index",
  "count",
  "toString",
  "stream",
  "iterator",
  "forEach",
  "join",
  "map",
  "filter",
  "slice",
  "toArray",
  "hashCode",
  "equals",
  "copy",
  "some",
  "every",
  "find",
  "length",
]);

/**
 * A call whose receiver or argument is a positional list held in `env`: interpreted here when
 * it is a list operation (the list in `env` is updated), or the list loses its positions when
 * the call may change it. Undefined: interpret the call as usual.
 */
export function interpListCall(
  e: Extract<Expr, { k: "call" }>,
  env: Env,
  evaluate: (e: Expr) => Value,
  language: string,
): Value | undefined {
  if (!e.receiver && e.callee === "list" && !e.args.length) return emptyList();
  const first = e.args[0];
  if (!e.receiver && e.callee === "len" && e.args.length === 1 && first?.k === "var") {
    const n = env.get(first.name)?.len;
    if (n !== undefined) return { facts: [], konst: { v: n } };
  }
  const r = e.receiver;
  const list = r?.k === "var" ? env.get(r.name) : undefined;
  if (r?.k === "var" && list?.len !== undefined) {
    if (LIST_OPS.has(e.callee)) {
      const result = listCall(
        e.callee,
        list,
        e.args.map((a) => evaluate(a)),
        language,
      );
      if (result) {
        env.set(r.name, result.list);
        return result.value;
      }
    }
    if (!READS.has(e.callee)) env.set(r.name, degrade(list));
  }
  return undefined;
}

/** Lists handed to a call may be changed by it: they lose their positions. */
export function releaseLists(e: Extract<Expr, { k: "call" | "new" }>, env: Env): void {
  for (const a of e.args) releaseList(a, env);
}

/** A list named by `e` that escapes (copied to another name, stored, handed over) loses its positions. */
export function releaseList(e: Expr, env: Env): void {
  const v = e.k === "var" ? env.get(e.name) : undefined;
  if (e.k === "var" && v?.len !== undefined) env.set(e.name, degrade(v));
}

/** Before a loop: the lists it changes lose their positions. */
export function releaseLoopLists(stmts: readonly Stmt[], env: Env): void {
  if (![...env.values()].some((v) => v.len !== undefined)) return;
  for (const name of mutatedLists(stmts, (n) => env.get(n)?.len !== undefined)) env.set(name, degrade(env.get(name)!));
}

/** An entry read from a collection that also holds facts without a key: those may be it too. */
export function withLoose(entry: Value, loose: readonly Fact[] | undefined): Value {
  if (!loose?.length) return entry;
  const { konst: _k, ...rest } = entry;
  void _k;
  return { ...rest, facts: mergeFacts(entry.facts, loose) };
}

/** `sb.append(a).append(b)`, `set.add(a).add(b)`: a mutator that returns its receiver mutates the chain's first receiver. */
export function chainRoot(receiver: Expr, mutators: readonly string[]): Expr {
  let r = receiver;
  while (r.k === "call" && r.receiver && mutators.includes(r.callee)) r = r.receiver;
  return r;
}

/**
 * Guard sanitizers: what a condition proves about a variable on each of its branches. A check
 * that rejects a metacharacter (`".." in p`, `s.includes("'")`, `x.indexOf("<") != -1`), an
 * allowlist membership (`x in ALLOWED`, `ALLOWED.includes(x)`, `x.equals("a")`), a full-match
 * regular expression or `isdigit()`, a URL host compared with an allowlist, or a resolved path's
 * containment (`realpath(p).startswith(base)`) makes the checked variable clean for the
 * weaknesses it neutralises on the branch where the check passed. The interpreter (interp.ts)
 * applies `whenTrue` to the `then` branch and `whenFalse` to the `else` branch; a failed check
 * that exits (`return`, `raise`, `abort()`, `continue`) leaves only the clean branch after the
 * `if`, and a check without an exit joins the clean branch with the tainted one (still found).
 */
import type { ConstValue, Expr } from "./ir";
import type { Value, Derivation } from "./values";

/** A variable made clean for these CWEs ("*": for every injection, the value is known-good). */
export interface Refinement {
  name: string;
  cwes: readonly string[] | "*";
}

export type { Derivation };

export interface Guard {
  whenTrue: Refinement[];
  whenFalse: Refinement[];
}

/** Evaluates a side-effect-free expression (names, literals, field reads). */
export type Peek = (e: Expr) => Value | undefined;

const NONE: Guard = { whenTrue: [], whenFalse: [] };
const SSRF = ["CWE-918", "CWE-601"];
const TRAVERSAL = ["CWE-22"];

/** Metacharacters whose rejection neutralises a weakness. */
const META: Record<string, readonly string[]> = {
  "..": TRAVERSAL,
  "../": TRAVERSAL,
  "..\\": TRAVERSAL,
  "'": ["CWE-89"],
  "<": ["CWE-79"],
};

const URL_PARSERS = new Set(["urlparse", "urlsplit", "URL", "URI", "create", "parse", "toURI"]);
const HOST = new Set(["hostname", "host", "netloc", "getHost", "origin", "getAuthority", "authority"]);
const PATH_RESOLVERS = new Set(["realpath", "abspath", "normpath", "normalize", "getCanonicalPath", "getCanonicalFile", "toRealPath"]);
const CLASS_CHECKS = new Set([
  "isdigit",
  "isalnum",
  "isnumeric",
  "isidentifier",
  "isInt",
  "isUUID",
  "isalpha",
  "isdecimal",
  "isNumeric",
  "isAlphanumeric",
  "isAlpha",
  "isDigits",
]);
const SAFE_URL_CHECKS = new Set(["url_has_allowed_host_and_scheme", "is_safe_url"]);
const MEMBERSHIP = new Set(["includes", "has", "contains", "containsKey", "__contains__"]);

/** `case "a": case "b":` on a variable: there it is one of the constants (patterns that bind or test types prove nothing). */
export function caseGuard(name: string, values: readonly Expr[]): Refinement[] {
  return values.length && values.every((v) => v.k === "const" && v.value !== null) ? [{ name, cwes: "*" }] : [];
}

/** Whether a call's result is a URL parsed from its argument or a normalised path. */
export function derivation(e: Extract<Expr, { k: "call" | "new" }>, language: string): Derivation | undefined {
  const callee = e.k === "new" ? e.cls : e.callee;
  const arg = e.args[0];
  const from = arg?.k === "var" ? arg.name : undefined;
  if (e.k === "new" ? callee === "URL" || callee === "URI" : URL_PARSERS.has(callee) && isUrlCall(e))
    return { kind: "url", ...(from ? { from } : {}) };
  if (e.k === "call" && (PATH_RESOLVERS.has(callee) || (callee === "resolve" && language !== "java"))) return { kind: "path" };
  return undefined;
}

function isUrlCall(e: Extract<Expr, { k: "call" }>): boolean {
  if (e.callee === "urlparse" || e.callee === "urlsplit") return true;
  const path = e.path ?? "";
  return (e.callee === "create" && /(^|\.)URI$/.test(path.replace(/\.create$/, ""))) || (e.callee === "parse" && /^url\.parse$/.test(path));
}

export function guardOf(test: Expr, peek: Peek, derived: (name: string) => Derivation | undefined, depth = 0): Guard {
  if (depth > 6) return NONE;
  if (test.k === "unary" && (test.op === "!" || test.op === "not")) {
    const g = guardOf(test.arg, peek, derived, depth + 1);
    return { whenTrue: g.whenFalse, whenFalse: g.whenTrue };
  }
  if (test.k === "cast") return guardOf(test.arg, peek, derived, depth + 1);
  if (test.k === "binary" && (test.op === "&&" || test.op === "||")) {
    const a = guardOf(test.left, peek, derived, depth + 1);
    const b = guardOf(test.right, peek, derived, depth + 1);
    return test.op === "&&"
      ? { whenTrue: [...a.whenTrue, ...b.whenTrue], whenFalse: both(a.whenFalse, b.whenFalse) }
      : { whenTrue: both(a.whenTrue, b.whenTrue), whenFalse: [...a.whenFalse, ...b.whenFalse] };
  }
  const good = atom(test, peek, derived);
  if (good) return good.negated ? { whenTrue: [], whenFalse: good.refs } : { whenTrue: good.refs, whenFalse: [] };
  return NONE;
}

/** What either of two branches proves: the variables both clean, for the CWEs both clean. */
function both(a: readonly Refinement[], b: readonly Refinement[]): Refinement[] {
  const out: Refinement[] = [];
  for (const r of a) {
    for (const o of b) {
      if (o.name !== r.name) continue;
      const cwes = r.cwes === "*" ? o.cwes : o.cwes === "*" ? r.cwes : r.cwes.filter((c) => o.cwes.includes(c));
      if (cwes.length) out.push({ name: r.name, cwes });
    }
  }
  return out;
}

/** A check that proves `refs` when it is true (or, `negated`, when it is false). */
interface Atom {
  refs: Refinement[];
  negated: boolean;
}

function atom(t: Expr, peek: Peek, derived: (name: string) => Derivation | undefined): Atom | undefined {
  if (t.k === "binary") return binaryAtom(t, peek, derived);
  if (t.k !== "call") return undefined;
  const recv = t.receiver;
  const arg0 = t.args[0];
  // `x.includes("..")`, `x.contains("'")`: true means the metacharacter is there.
  if (recv?.k === "var" && MEMBERSHIP.has(t.callee) && arg0) {
    const cwes = metaOf(konst(arg0, peek));
    if (cwes) return { refs: [{ name: recv.name, cwes }], negated: true };
  }
  // `ALLOWED.includes(x)`, `allowed.contains(u.getHost())`.
  if (recv && MEMBERSHIP.has(t.callee) && arg0 && t.args.length === 1 && isAllowlist(recv, peek)) {
    const refs = member(arg0, derived);
    if (refs.length) return { refs, negated: false };
  }
  // Django `url_has_allowed_host_and_scheme(url, allowed_hosts)` (`is_safe_url` before 3.0): the URL stays on an allowed host.
  if (SAFE_URL_CHECKS.has(t.callee) && arg0?.k === "var") return { refs: [{ name: arg0.name, cwes: SSRF }], negated: false };
  const equal = equalsAtom(t, peek, derived);
  if (equal) return equal;
  const subject = fullMatchSubject(t, peek);
  if (subject) return { refs: [{ name: subject, cwes: "*" }], negated: false };
  if (CLASS_CHECKS.has(t.callee)) {
    const target = recv?.k === "var" && !t.args.length ? recv : t.args.length === 1 && arg0?.k === "var" ? arg0 : undefined;
    if (target) return { refs: [{ name: target.name, cwes: "*" }], negated: false };
  }
  if ((t.callee === "startswith" || t.callee === "startsWith" || t.callee === "is_relative_to") && recv) {
    const names = resolvedPath(recv, derived);
    if (names.length) return { refs: names.map((name) => ({ name, cwes: TRAVERSAL })), negated: false };
  }
  return undefined;
}

function binaryAtom(t: Extract<Expr, { k: "binary" }>, peek: Peek, derived: (name: string) => Derivation | undefined): Atom | undefined {
  if (t.op === "in" || t.op === "not in") {
    const negated = t.op === "not in";
    // `".." in p`: true means the metacharacter is there.
    const cwes = t.right.k === "var" ? metaOf(konst(t.left, peek)) : undefined;
    if (cwes && t.right.k === "var") return { refs: [{ name: t.right.name, cwes }], negated: !negated };
    if (isAllowlist(t.right, peek)) {
      const refs = member(t.left, derived);
      if (refs.length) return { refs, negated };
    }
    return undefined;
  }
  if (["==", "===", "!=", "!=="].includes(t.op)) {
    const negated = t.op.startsWith("!");
    const index = indexOfMeta(t, peek);
    if (index) return { refs: index.refs, negated: index.negated !== negated };
    const [value, other] = isConst(t.right, peek) ? [t.left, t.right] : isConst(t.left, peek) ? [t.right, t.left] : [];
    if (!value || !other) return undefined;
    const refs = member(value, derived);
    return refs.length ? { refs, negated } : undefined;
  }
  if ([">=", ">", "<"].includes(t.op)) {
    const index = indexOfMeta(t, peek);
    return index ?? undefined;
  }
  return undefined;
}

/** `x.indexOf("..") == -1` (clean when true), `!= -1`, `>= 0`, `> -1`, `< 0`. */
function indexOfMeta(t: Extract<Expr, { k: "binary" }>, peek: Peek): Atom | undefined {
  const call = t.left;
  if (call.k !== "call" || !["indexOf", "find"].includes(call.callee) || call.receiver?.k !== "var" || !call.args[0]) return undefined;
  const cwes = metaOf(konst(call.args[0], peek));
  const n = konst(t.right, peek);
  if (!cwes || typeof n !== "number") return undefined;
  const refs = [{ name: call.receiver.name, cwes }];
  const absentWhenTrue = (t.op === "==" || t.op === "===" || t.op === "!=" || t.op === "!==") && n === -1 ? true : t.op === "<" && n === 0;
  const presentWhenTrue = (t.op === ">=" && n === 0) || (t.op === ">" && n === -1);
  if (absentWhenTrue) return { refs, negated: false };
  if (presentWhenTrue) return { refs, negated: true };
  return undefined;
}

/** `x.equals("a")`, `"a".equals(x)`, `x.equalsIgnoreCase("a")`. */
function equalsAtom(t: Extract<Expr, { k: "call" }>, peek: Peek, derived: (name: string) => Derivation | undefined): Atom | undefined {
  if ((t.callee !== "equals" && t.callee !== "equalsIgnoreCase") || !t.receiver || t.args.length !== 1) return undefined;
  const arg = t.args[0]!;
  const value = isConst(arg, peek) ? t.receiver : isConst(t.receiver, peek) ? arg : undefined;
  const refs = value ? member(value, derived) : [];
  return refs.length ? { refs, negated: false } : undefined;
}

/** What a membership or equality test on `e` cleans: the variable itself, or a URL's host. */
function member(e: Expr, derived: (name: string) => Derivation | undefined): Refinement[] {
  if (e.k === "cast") return member(e.arg, derived);
  if (e.k === "var") {
    const d = derived(e.name);
    return [{ name: e.name, cwes: "*" }, ...(d?.kind === "url" && d.from ? [{ name: d.from, cwes: SSRF }] : [])];
  }
  const host = e.k === "field" && HOST.has(e.name) ? e.object : e.k === "call" && HOST.has(e.callee) && !e.args.length ? e.receiver : null;
  if (!host) return [];
  if (host.k === "var") {
    const d = derived(host.name);
    if (d?.kind !== "url") return [];
    return [{ name: host.name, cwes: SSRF }, ...(d.from ? [{ name: d.from, cwes: SSRF }] : [])];
  }
  if ((host.k === "call" || host.k === "new") && host.args[0]?.k === "var" && derivation(host, "")?.kind === "url")
    return [{ name: host.args[0].name, cwes: SSRF }];
  return [];
}

/** The variable a full-match regular expression test is applied to. */
function fullMatchSubject(t: Extract<Expr, { k: "call" }>, peek: Peek): string | undefined {
  const [a, b] = t.args;
  const r = t.receiver;
  const name = (e: Expr | undefined) => (e?.k === "var" ? e.name : undefined);
  switch (t.callee) {
    case "fullmatch": // re.fullmatch(p, x), compiled.fullmatch(x)
      if (t.path === "re.fullmatch") return loosePattern(konst(a, peek)) ? undefined : name(b);
      return t.args.length === 1 ? name(a) : undefined;
    case "match": {
      // re.match("^…$", x): anchored at the start by `match`, at the end by `$`.
      const p = konst(a, peek);
      return t.path === "re.match" && typeof p === "string" && /(\$|\\Z)$/.test(p) && !loosePattern(p) ? name(b) : undefined;
    }
    case "matches":
      // Java: x.matches(re), Pattern.matches(re, x), re.matcher(x).matches()
      if (r?.k === "var" && t.args.length === 1 && !isPatternClass(r)) return loosePattern(konst(a, peek)) ? undefined : name(r);
      if (r?.k === "var" && t.args.length === 2) return loosePattern(konst(a, peek)) ? undefined : name(b);
      if (r?.k === "call" && r.callee === "matcher" && !t.args.length) return name(r.args[0]);
      return undefined;
    case "test": {
      // JavaScript: /^…$/.test(x)
      const re = r ? konst(r, peek) : undefined;
      return typeof re === "string" && /^\/\^.*\$\/[gimsuyd]*$/s.test(re) && !/\/[a-z]*m[a-z]*$/.test(re) && !loosePattern(re)
        ? name(a)
        : undefined;
    }
  }
  return undefined;
}

function isPatternClass(e: Extract<Expr, { k: "var" }>): boolean {
  return e.name === "Pattern";
}

/** A pattern that lets anything through (`.*`, `.+`): no proof. Unknown patterns are trusted. */
function loosePattern(p: ConstValue | undefined): boolean {
  return typeof p === "string" && /(^|[^\\])\.[*+]/.test(p);
}

/** An allowlist: a collection or name that holds no untrusted input and is not a constant string. */
function isAllowlist(e: Expr, peek: Peek): boolean {
  if (e.k === "array") return e.items.every((i) => i.k === "const");
  if (e.k === "call" && (e.callee === "set" || e.callee === "frozenset" || e.callee === "of" || e.callee === "asList")) return true;
  // `ALLOWED.keys()`, `Object.keys(ROUTES)`, `allowed.keySet()`: the keys of an allowlist.
  if (e.k === "call" && ["keys", "values", "keySet"].includes(e.callee) && e.args.length <= 1) {
    const of = e.receiver && e.args.length === 0 ? e.receiver : e.args[0];
    return of !== undefined && of !== null && of.k !== "call" && isAllowlist(of, peek);
  }
  if (e.k !== "var" && e.k !== "field") return false;
  const v = peek(e);
  if (!v) return false;
  if (v.konst && typeof v.konst.v === "string") return false;
  // Facts from a source or a parameter: the "list" may be the attacker's own string.
  return !v.facts.some((f) => f.origin.kind !== "field");
}

/** The variables a containment check on a resolved path (`realpath(p).startswith(base)`) proves. */
function resolvedPath(recv: Expr, derived: (name: string) => Derivation | undefined): string[] {
  if (recv.k === "var") return derived(recv.name)?.kind === "path" ? [recv.name] : [];
  if (recv.k === "call" && (PATH_RESOLVERS.has(recv.callee) || recv.callee === "resolve")) {
    const names = recv.args.filter((a): a is Extract<Expr, { k: "var" }> => a.k === "var").map((a) => a.name);
    if (recv.receiver?.k === "var" && recv.callee !== "resolve") names.push(recv.receiver.name);
    return recv.callee === "resolve" ? names.slice(-1) : names;
  }
  if (recv.k === "call" && recv.callee === "toString" && recv.receiver) return resolvedPath(recv.receiver, derived);
  return [];
}

function metaOf(v: ConstValue | undefined): readonly string[] | undefined {
  return typeof v === "string" && Object.hasOwn(META, v) ? META[v] : undefined;
}

function konst(e: Expr | undefined, peek: Peek): ConstValue | undefined {
  if (!e) return undefined;
  if (e.k === "const") return e.value;
  if (e.k === "unary" && e.op === "-" && e.arg.k === "const" && typeof e.arg.value === "number") return -e.arg.value;
  if (e.k !== "var" && e.k !== "field") return undefined;
  return peek(e)?.konst?.v;
}

function isConst(e: Expr, peek: Peek): boolean {
  const v = konst(e, peek);
  return v !== undefined && v !== null;
}

/** A call that ends the request or the process: `abort(403)`, `sys.exit()`, `process.exit(1)`. */
export function isExitCall(e: Expr): boolean {
  if (e.k !== "call") return false;
  const path = e.path ?? "";
  return (
    (e.callee === "abort" && (!e.receiver || /^flask\.abort$/.test(path))) ||
    (e.callee === "exit" && (!e.receiver || /^(sys|process|System)\.exit$/.test(path))) ||
    path === "os._exit"
  );
}

/** Log injection, HTTP response splitting, mail header injection: what removing line breaks prevents. */
const LINE_BREAK_CWES = ["CWE-117", "CWE-113", "CWE-93"];

/**
 * `s.replace("<", "&lt;")`, `s.replaceAll("'", "''")`, `s.replace(/</g, "&lt;")`: replacing a
 * context's metacharacter with its escape. The CWEs it makes the result safe for, if any.
 */
export function replaceSanitizes(e: Extract<Expr, { k: "call" }>): readonly string[] | undefined {
  if (e.callee !== "replace" && e.callee !== "replaceAll") return undefined;
  const [a, b] = e.args;
  if (a?.k !== "const" || b?.k !== "const" || typeof a.value !== "string" || typeof b.value !== "string") return undefined;
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(a.value);
  if (regex && e.callee === "replace" && !regex[2]!.includes("g")) return undefined;
  const meta = regex ? regex[1]! : a.value;
  if (meta === "<" && !b.value.includes("<")) return ["CWE-79"];
  // Line breaks (`"\n"`, `"[\r\n]"`, `"\\r|\\n"`) replaced by something without one: safe to log, and to
  // write into an HTTP or mail header (no header or entry can be added).
  if (/^[[\]\\|rn\r\n+*()?]+$/.test(meta) && /\n|\\n|\r|\\r/.test(meta) && !/[\r\n]/.test(b.value)) return LINE_BREAK_CWES;
  if ((meta === "'" && (b.value === "''" || b.value === "\\'" || b.value === "\\\\'")) || (meta === "'" && !b.value.includes("'")))
    return ["CWE-89"];
  return undefined;
}

/**
 * Source policy for files: a file read from a constant path inside the application (a
 * template, a fixture, a bundled resource) is not untrusted input, while a file read from a
 * tainted or unknown path stays a source. Values that name or read such a file carry the state
 * `file:bundled` (typestate.ts keeps it on the value); reads through them are not sources, and
 * configuration loaded from them (`Properties.load`, `ConfigParser.read`) resolves to the
 * file's own value when the scanner handed the repository's configuration files in
 * (config-files.ts, config-values.ts), else to the default given at the lookup. The state names
 * the file where it can (`file:bundled:res:/crypto.properties`, see `ConfigRef`).
 */
import type { Expr } from "./ir";
import type { CallParts } from "./call-parts";
import { EMPTY, type Value } from "./values";
import { normalize, type ConfigRef } from "./config-files";

export const BUNDLED = "file:bundled";
/** Lost the bundled state: loaded from a tainted path. */
const OTHER = "file:other";

/** Names of the module's own file or folder. */
const APP_DIR_VARS = new Set(["__file__", "__dirname", "__filename"]);
const ABSOLUTE = /^([/\\~]|[A-Za-z]:[/\\]|\w+:\/\/)/;
const UP = /(^|[/\\])\.\.([/\\]|$)/;

/** Calls and constructors that name or open a file, by language: their result is bundled when their path is. */
const PATH_CALLS: Record<string, RegExp> = {
  java: /^(Paths\.get|Path\.of|Files\.(newBufferedReader|newInputStream|lines))$/,
  python: /^((builtins|io|codecs)\.)?open$|^os\.path\.(join|dirname|abspath|realpath|normpath)$|^(pathlib\.)?(Pure)?Path$/,
  javascript:
    /^path(\.posix)?\.(join|resolve|normalize)$|^(fs|fs\/promises|fs\.promises|fs-extra)\.(readFileSync|readFile|createReadStream)$/,
};
const JAVA_FILE_NEW = new Set([
  "File",
  "FileReader",
  "FileInputStream",
  "InputStreamReader",
  "BufferedReader",
  "BufferedInputStream",
  "DataInputStream",
  "LineNumberReader",
  "Scanner",
]);
const RESOURCE_CALLS = new Set(["getResourceAsStream", "getResource", "getSystemResourceAsStream", "getSystemResource"]);
/** Calls that load configuration into their receiver from a file or stream. */
const LOADERS: Record<string, ReadonlySet<string>> = {
  java: new Set(["load", "loadFromXML"]),
  python: new Set(["read", "read_file"]),
  javascript: new Set(),
};

function stringOf(expr: Expr | undefined, value: Value | undefined): string | undefined {
  const k = value?.konst?.v ?? (expr?.k === "const" ? expr.value : undefined);
  return typeof k === "string" ? k : undefined;
}

/** The first part of a path: bundled, the module's own location, or a relative constant that does not climb out. */
function insideApp(expr: Expr | undefined, value: Value | undefined): boolean {
  if (isBundled(value) || (expr?.k === "var" && APP_DIR_VARS.has(expr.name))) return true;
  const s = stringOf(expr, value);
  return s !== undefined && s.length > 0 && !ABSOLUTE.test(s) && !UP.test(s);
}

/** The path is bundled: its first part is inside the application and the others are relative constants. */
function bundledPath(c: CallParts): boolean {
  if (!c.args.length || !insideApp(c.e.args[0], c.args[0])) return false;
  return c.args.slice(1).every((v, i) => {
    const s = stringOf(c.e.args[i + 1], v);
    return s !== undefined ? !ABSOLUTE.test(s) : v.facts.length === 0;
  });
}

/** The file state of a call's result, and of its receiver when the call loads configuration into it. */
export function bundledState(language: string, c: CallParts, isNew: boolean): { result?: string; receiver?: string } {
  const { e } = c;
  if (isNew)
    return language === "java" && JAVA_FILE_NEW.has(e.callee) && bundledPath(c) ? { result: named(pathRef(c, e.callee === "File")) } : {};
  if (RESOURCE_CALLS.has(e.callee) && language === "java") {
    const name = stringOf(e.args[0], c.args[0]);
    if (name === undefined) return {};
    const loader =
      e.callee.startsWith("getSystem") ||
      /classloader/i.test(e.receiver ? (e.receiver.k === "call" ? e.receiver.text : (chainText(e.receiver) ?? "")) : "");
    return { result: named(e.callee.endsWith("AsStream") ? `${loader ? "cp" : "res"}:${name}` : undefined) };
  }
  if (e.path !== undefined && PATH_CALLS[language]?.test(e.path) && bundledPath(c))
    return { result: named(pathRef(c, JOINS.test(e.path))) };
  if (e.receiver && LOADERS[language]?.has(e.callee) && c.args.length) {
    if (insideApp(e.args[0], c.args[0])) return { receiver: BUNDLED };
    if (c.args[0]?.facts.length) return { receiver: OTHER };
  }
  return {};
}

/**
 * The bundled-file state, with the file it names when known. At module level: a closure made
 * per call costs a name definition per call under the loader (tsx keeps function names).
 */
function named(ref: ConfigRef | undefined): string {
  return ref ? `${BUNDLED}:${ref}` : BUNDLED;
}

/** Calls that join their arguments into one path; the others name the file their first argument names. */
const JOINS =
  /^(Paths\.get|Path\.of|os\.path\.(join|abspath|realpath|normpath)|(pathlib\.)?(Pure)?Path|path(\.posix)?\.(join|resolve|normalize))$|\.dirname$/;

function chainText(e: Expr): string | undefined {
  if (e.k === "var") return e.name;
  if (e.k === "field") return e.path;
  return undefined;
}

/** The file a bundled value names (`ConfigRef`), when its parts are known. */
export function refOf(expr: Expr | undefined, value: Value | undefined): ConfigRef | undefined {
  if (value?.state?.startsWith(`${BUNDLED}:`)) return value.state.slice(BUNDLED.length + 1);
  if (expr?.k === "var" && (expr.name === "__dirname" || expr.name === "__file__" || expr.name === "__filename"))
    return expr.name === "__dirname" ? "mod:" : "modfile:";
  const s = stringOf(expr, value);
  return s !== undefined && insideApp(expr, value) ? `rel:${s}` : undefined;
}

/** The file a path call names: its first part, joined with the constant others (`join`), or its folder (`dirname`). */
function pathRef(c: CallParts, join: boolean): ConfigRef | undefined {
  const base = refOf(c.e.args[0], c.args[0]);
  if (!base) return undefined;
  const colon = base.indexOf(":");
  const kind = base.slice(0, colon);
  let p = base.slice(colon + 1);
  if (c.e.path?.endsWith("dirname")) {
    if (kind === "modfile") return "mod:";
    return `${kind}:${p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : ""}`;
  }
  if (kind === "modfile" || !join) return kind === "modfile" && c.args.length > 1 ? undefined : base;
  for (let i = 1; i < c.args.length; i++) {
    const s = stringOf(c.e.args[i], c.args[i]);
    if (s === undefined) return undefined;
    p = p ? `${p}/${s}` : s;
  }
  const n = normalize(p.replace(/\\/g, "/"));
  return n === null ? undefined : `${kind}:${n}`;
}

export function isBundled(v: Value | null | undefined): boolean {
  return v?.state === BUNDLED || !!v?.state?.startsWith(`${BUNDLED}:`);
}

/**
 * A lookup in configuration loaded from a bundled file: the file's value when it was read
 * (config-values.ts puts its entries on the receiver's `keys`), else the default the lookup names
 * (`getProperty(k, d)`, `config.get(s, k, fallback=d)`), else an unknown but trusted value.
 * Undefined when not such a lookup.
 */
export function bundledLookup(c: CallParts): Value | undefined {
  if (!isBundled(c.receiver)) return undefined;
  const { callee } = c.e;
  const keys = c.receiver?.keys;
  const key = c.args[0]?.konst?.v;
  if (callee === "getProperty") {
    const own = typeof key === "string" ? keys?.get(key) : undefined;
    return own ? { ...own } : c.args[1] ? { ...c.args[1] } : EMPTY;
  }
  if (["get", "getint", "getfloat", "getboolean"].includes(callee) && c.args.length >= 2) {
    const option = c.args[1]?.konst?.v;
    const own = typeof key === "string" && typeof option === "string" ? keys?.get(`${key}\u0000${option.toLowerCase()}`) : undefined;
    if (own) return { ...own };
    const fallback = c.kwargs.get("fallback");
    return fallback ? { ...fallback } : EMPTY;
  }
  return undefined;
}

/**
 * Source policy for files: a file read from a constant path inside the application (a
 * template, a fixture, a bundled resource) is not untrusted input, while a file read from a
 * tainted or unknown path stays a source. Values that name or read such a file carry the state
 * `file:bundled` (typestate.ts keeps it on the value); reads through them are not sources, and
 * configuration loaded from them (`Properties.load`, `ConfigParser.read`) resolves to the
 * default given at the lookup. The engine reads source files only, so the bundled file's own
 * values are not known: the default stands for them.
 */
import type { Expr } from "./ir";
import type { CallParts } from "./call-parts";
import { EMPTY, type Value } from "./values";

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
  if (value?.state === BUNDLED || (expr?.k === "var" && APP_DIR_VARS.has(expr.name))) return true;
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
  if (isNew) return language === "java" && JAVA_FILE_NEW.has(e.callee) && bundledPath(c) ? { result: BUNDLED } : {};
  if (RESOURCE_CALLS.has(e.callee) && language === "java" && stringOf(e.args[0], c.args[0]) !== undefined) return { result: BUNDLED };
  if (e.path !== undefined && PATH_CALLS[language]?.test(e.path) && bundledPath(c)) return { result: BUNDLED };
  if (e.receiver && LOADERS[language]?.has(e.callee) && c.args.length) {
    if (insideApp(e.args[0], c.args[0])) return { receiver: BUNDLED };
    if (c.args[0]?.facts.length) return { receiver: OTHER };
  }
  return {};
}

export function isBundled(v: Value | null | undefined): boolean {
  return v?.state === BUNDLED;
}

/**
 * A lookup in configuration loaded from a bundled file: the default it names (`getProperty(k, d)`,
 * `config.get(s, k, fallback=d)`), else an unknown but trusted value. Undefined when not such a lookup.
 */
export function bundledLookup(c: CallParts): Value | undefined {
  if (!isBundled(c.receiver)) return undefined;
  const { callee } = c.e;
  if (callee === "getProperty") return c.args[1] ? { ...c.args[1] } : EMPTY;
  if (["get", "getint", "getfloat", "getboolean"].includes(callee) && c.args.length >= 2) {
    const fallback = c.kwargs.get("fallback");
    return fallback ? { ...fallback } : EMPTY;
  }
  return undefined;
}

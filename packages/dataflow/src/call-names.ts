/**
 * Spellings of a callee path or receiver text that table patterns should also see. Java code
 * may name a class by its fully-qualified name (`java.nio.file.Paths.get(p)`,
 * `java.lang.Runtime.getRuntime().exec(c)`) where the tables are written with the simple name
 * (`Paths.get`, `Runtime.getRuntime().exec`): the package prefix is dropped so both match.
 */

/** A leading package (`java.nio.file.`): lower-case dotted segments before the first capitalised one. */
const JAVA_PACKAGE = /^(?:[a-z_$][\w$]*\.)+(?=[A-Z$_])/;

/** The text as written and, for Java, the same text without a leading package name. */
export function spellings(text: string | undefined, language: string): string[] {
  if (text === undefined) return [];
  if (language !== "java") return [text];
  const simple = text.replace(JAVA_PACKAGE, "");
  return simple === text ? [text] : [text, simple];
}

/** Methods of Python's dict, list and str, which an untyped local most likely is (`data.get("k")`). */
const PY_BUILTIN_METHODS = new Set([
  "get",
  "getlist",
  "items",
  "keys",
  "values",
  "pop",
  "copy",
  "split",
  "strip",
  "lower",
  "upper",
  "replace",
  "format",
  "join",
  "encode",
  "decode",
]);

/**
 * Whether a Python call on an untyped local is a dict/list/str method rather than a repository
 * method of the same name: a Django view defines `get`, and `data.get("k")` in it is the dict's.
 */
export function pyBuiltinMethod(language: string, callee: string): boolean {
  return language === "python" && PY_BUILTIN_METHODS.has(callee);
}

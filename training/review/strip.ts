/**
 * Removes what gives a labelled example's verdict away before the example is stored: the
 * test suites' comments (`// Noncompliant`, `# Compliant`, `# nosec`, `// NOSONAR`,
 * `# ruleid: …`, `// BAD`, Juliet's FLAW comments, the twins' `ax-bench:` headers), Python
 * docstrings and JSP/HTML comments, and the names their authors chose to say it
 * (`unsafeQuery`, `goodG2B`, `vuln_handler`, `compliantMethod`): each such name becomes a
 * neutral `identN`, the same N for the same name within one example (an `Ident` map is shared
 * by the code, the snippet and the trace of one example).
 *
 * Library names whose meaning is the evidence itself (`yaml.safe_load`, `mark_safe`,
 * `markupsafe`, `BadPaddingException`, CSP's `'unsafe-inline'`, a template's `|safe`) are kept:
 * they are what a reviewer reads, not what a test author called the case.
 */
import { createHash } from "node:crypto";
import { stripComments } from "@ax/ai/review";

/** Words that carry a test suite's verdict when they are part of a name. */
const LABEL_WORD = /safe|vuln|compliant|bad|good|g2b|b2g/i;

/** Library and language names that contain a label word but name an API (kept as they are). */
const API_NAMES: ReadonlySet<string> = new Set([
  "safe_load",
  "safe_load_all",
  "safe_dump",
  "safe_dump_all",
  "SafeLoader",
  "CSafeLoader",
  "SafeDumper",
  "CSafeDumper",
  "SafeConstructor",
  "SafeRepresenter",
  "safeLoad",
  "safeLoadAll",
  "safeDump",
  "markupsafe",
  "mark_safe",
  "SafeString",
  "SafeText",
  "SafeData",
  "safestring",
  "safe_join",
  "is_safe_url",
  "url_has_allowed_host_and_scheme",
  "html_safe",
  "SafeBuffer",
  "SafeHtml",
  "SafeUrl",
  "SafeResourceUrl",
  "SafeStyle",
  "SafeScript",
  "BadPaddingException",
  "ThreadSafe",
  "NotThreadSafe",
]);

/** Name → neutral token, per example. */
export type Ident = Map<string, string>;

export function newIdent(): Ident {
  return new Map();
}

const WORD = /(?<![\w$])[A-Za-z_$][\w$]*/g;

/** Replaces label-revealing names by `identN` (consistently through `ident`), keeping API names. */
export function maskNames(text: string, ident: Ident): string {
  return text.replace(WORD, (word: string, at: number, all: string) => {
    if (!LABEL_WORD.test(word) || API_NAMES.has(word)) return word;
    // CSP and referrer-policy keywords ('unsafe-inline', 'unsafe-eval', 'unsafe-url').
    if (/^unsafe$/i.test(word) && all[at + word.length] === "-") return word;
    // A template's `|safe` filter is the sink itself.
    if (word === "safe" && /\|\s*$/.test(all.slice(Math.max(0, at - 3), at))) return word;
    let token = ident.get(word);
    if (!token) {
      token = `ident${ident.size + 1}`;
      ident.set(word, token);
    }
    return token;
  });
}

/**
 * Python docstrings (a triple-quoted string opening the body of a `def`/`class`: a line after
 * one ending in `:`; a query in triple quotes passed as an argument stays) and JSP/HTML comments.
 */
function stripDocs(code: string, file: string): string {
  let out = code.replace(/<%--[\s\S]*?(--%>|$)/g, "").replace(/<!--[\s\S]*?(-->|$)/g, "");
  if (/\.pyw?$/i.test(file)) out = out.replace(/(:[ \t]*\r?\n)([ \t]*)[rRuUbB]{0,2}("""|''')[\s\S]*?(\3|(?![\s\S]))/g, "$1$2");
  return out;
}

/** Markers that survive outside comments (in strings, docstring leftovers): removed outright. */
const MARKERS: readonly RegExp[] = [
  /\bnosec\b(\s+B\d+(\s*,\s*B\d+)*)?/gi,
  /\bNOSONAR\b(\([^)\n]*\))?/gi,
  /\bruleid:\s*[\w.-]+/gi,
  /\bok:\s*[A-Za-z][\w-]*\.[\w.-]+/g,
  /\b(non)?compliant\b/gi,
];

/**
 * `code` with comments, docstrings, suite markers and label-revealing names removed; trailing
 * blanks trimmed and blank lines dropped (a removed comment leaves nothing behind).
 */
export function stripLabels(code: string, file: string, ident: Ident = newIdent()): string {
  let out = stripComments(stripDocs(code, file), file);
  for (const m of MARKERS) out = out.replace(m, "");
  out = maskNames(out, ident);
  return out
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .filter((l) => l !== "")
    .join("\n");
}

/** A path with its label words masked (`unit-test-cases/valid_001.js`, `mark_safe_secure.py`, `sql_flask_vuln.py`). */
export function maskPath(path: string): string {
  return path.replace(/(in)?valid|(in)?secure|(un)?safe|vuln(erable)?|(non)?compliant|bad|good/gi, "x");
}

/**
 * The deduplication key of an example: sha256 of its code with comments and all whitespace
 * removed, and its CWE. Train and test are deduplicated on it (ai:eval drops a test example
 * whose key occurs in training).
 */
export function dedupKey(example: { code: string; cwe_id: string; file: string }): string {
  const code = stripComments(example.code, example.file).replace(/\s+/g, "");
  return createHash("sha256").update(`${example.cwe_id}\0${code}`).digest("hex");
}

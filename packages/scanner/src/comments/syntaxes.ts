/**
 * What opens a comment and what opens a literal, per family of languages, for lexer.ts.
 * Known approximations (each errs towards missing a comment, never towards inventing one,
 * except where noted):
 * - shell, Ruby, PHP, HCL and Dockerfile heredoc bodies are skipped whole, quoted or not;
 * - Ruby's and Perl's regular-expression and percent literals (`%q{…}`) are not recognised
 *   (a `#` inside one reads as a comment);
 * - Dockerfile comments are whole-line `#` comments only (the parser's own rule), so a `#`
 *   after a shell command in RUN is not one;
 * - YAML block scalars (`key: |`) are recognised by their indentation, not parsed;
 * - in C# interpolated strings, `{{` is read as nested braces (it balances, so it ends right).
 */
import type { Literal, Syntax } from "./lexer";

const WORD_START = /[\s;|&()<>]/;
const SPACE = /\s/;

const dq = (extra: Partial<Literal> = {}): Literal => ({ open: '"', close: '"', escape: "\\", ...extra });
const sq = (extra: Partial<Literal> = {}): Literal => ({ open: "'", close: "'", escape: "\\", ...extra });
const char: Literal = { open: "'", close: "'", escape: "\\", char: true };
const triple = (q: string, extra: Partial<Literal> = {}): Literal => ({ open: q.repeat(3), close: q.repeat(3), multiline: true, ...extra });

const slashes = { line: [{ open: "//" }], block: [{ open: "/*", close: "*/" }] };
const nestedSlashes = { line: [{ open: "//" }], block: [{ open: "/*", close: "*/", nested: true }] };

export const C: Syntax = { ...slashes, literals: [dq(), char], raw: "cpp" };
export const JAVASCRIPT: Syntax = {
  ...slashes,
  literals: [{ open: "`", close: "`", escape: "\\", multiline: true, interpolation: "${" }, dq(), sq()],
  regex: true,
};
export const JAVA: Syntax = { ...slashes, literals: [triple('"', { escape: "\\" }), dq(), char] };
const CSHARP: Syntax = {
  ...slashes,
  literals: [
    triple('"'),
    { open: '$@"', close: '"', doubled: true, multiline: true, interpolation: "{" },
    { open: '@$"', close: '"', doubled: true, multiline: true, interpolation: "{" },
    { open: '@"', close: '"', doubled: true, multiline: true },
    dq({ open: '$"', interpolation: "{" }),
    dq(),
    char,
  ],
};
const GO: Syntax = { ...slashes, literals: [{ open: "`", close: "`", multiline: true }, dq(), char] };
const KOTLIN: Syntax = { ...nestedSlashes, literals: [triple('"', { interpolation: "${" }), dq({ interpolation: "${" }), char] };
const SWIFT: Syntax = { ...nestedSlashes, literals: [triple('"', { escape: "\\" }), dq(), char] };
const RUST: Syntax = { ...nestedSlashes, literals: [dq({ multiline: true }), char], raw: "rust" };
const SCALA: Syntax = { ...nestedSlashes, literals: [triple('"'), dq(), char] };
const GROOVY: Syntax = { ...slashes, literals: [triple('"', { escape: "\\" }), triple("'", { escape: "\\" }), dq(), sq()] };
const DART: Syntax = {
  ...slashes,
  literals: [triple('"', { escape: "\\" }), triple("'", { escape: "\\" }), dq({ interpolation: "${" }), sq({ interpolation: "${" })],
};
export const CSS: Syntax = { line: [], block: [{ open: "/*", close: "*/" }], literals: [dq(), sq()] };
const SCSS: Syntax = { ...slashes, literals: [dq(), sq()] };
export const PHP: Syntax = {
  line: [{ open: "//" }, { open: "#", notFollowedBy: "[" }],
  block: [{ open: "/*", close: "*/" }],
  literals: [sq({ multiline: true }), dq({ multiline: true }), { open: "`", close: "`", escape: "\\", multiline: true }],
  heredoc: "php",
  stop: "?>",
};
const SQL: Syntax = {
  line: [{ open: "--" }],
  block: [{ open: "/*", close: "*/" }],
  literals: [
    { open: "'", close: "'", doubled: true, multiline: true },
    { open: '"', close: '"', doubled: true, multiline: true },
    { open: "`", close: "`", doubled: true },
  ],
};
const LUA: Syntax = {
  line: [{ open: "--" }],
  block: [{ open: "--[[", close: "]]" }],
  literals: [{ open: "[[", close: "]]", multiline: true }, dq(), sq()],
};

export const SHELL: Syntax = {
  line: [{ open: "#", after: WORD_START }],
  block: [],
  literals: [
    { open: "$'", close: "'", escape: "\\", multiline: true },
    { open: "'", close: "'", multiline: true },
    dq({ multiline: true, interpolation: "$(" }),
    { open: "`", close: "`", escape: "\\", multiline: true },
  ],
  heredoc: "shell",
};
export const PYTHON: Syntax = {
  line: [{ open: "#" }],
  block: [],
  literals: [triple('"', { escape: "\\" }), triple("'", { escape: "\\" }), dq(), sq()],
};
export const RUBY: Syntax = {
  line: [{ open: "#" }],
  block: [{ open: "=begin", close: "=end", lineStart: true }],
  literals: [
    sq({ multiline: true }),
    dq({ multiline: true, interpolation: "#{" }),
    { open: "`", close: "`", escape: "\\", multiline: true, interpolation: "#{" },
  ],
  heredoc: "ruby",
};
const PERL: Syntax = {
  line: [{ open: "#" }],
  block: ["=pod", "=head", "=begin", "=over", "=item", "=for", "=encoding"].map((open) => ({ open, close: "=cut", lineStart: true })),
  literals: [sq({ multiline: true }), dq({ multiline: true })],
  heredoc: "ruby",
};
const YAML: Syntax = {
  line: [{ open: "#", after: SPACE }],
  block: [],
  literals: [
    { open: "'", close: "'", doubled: true, multiline: true, after: /[\s[{,:-]/ },
    { open: '"', close: '"', escape: "\\", multiline: true, after: /[\s[{,:-]/ },
  ],
};
const TOML: Syntax = {
  line: [{ open: "#" }],
  block: [],
  literals: [triple('"', { escape: "\\" }), triple("'"), dq(), { open: "'", close: "'" }],
};
const INI: Syntax = {
  line: [
    { open: "#", lineStart: true },
    { open: ";", lineStart: true },
    { open: "!", lineStart: true },
  ],
  block: [],
  literals: [],
};
const DOTENV: Syntax = { line: [{ open: "#", after: SPACE }], block: [], literals: [dq({ after: /[=\s]/ }), sq({ after: /[=\s]/ })] };
const DOCKERFILE: Syntax = { line: [{ open: "#", lineStart: true }], block: [], literals: [], heredoc: "shell" };
const POWERSHELL: Syntax = {
  line: [{ open: "#" }],
  block: [{ open: "<#", close: "#>" }],
  literals: [
    { open: "@'", close: "'@", multiline: true },
    { open: '@"', close: '"@', multiline: true },
    { open: "'", close: "'", doubled: true, multiline: true },
    { open: '"', close: '"', escape: "`", doubled: true, multiline: true },
  ],
};
const R: Syntax = { line: [{ open: "#" }], block: [], literals: [dq({ multiline: true }), sq({ multiline: true })] };
const ELIXIR: Syntax = {
  line: [{ open: "#" }],
  block: [],
  literals: [triple('"', { escape: "\\" }), dq({ multiline: true, interpolation: "#{" }), sq({ multiline: true })],
};
const HCL: Syntax = {
  line: [{ open: "#" }, { open: "//" }],
  block: [{ open: "/*", close: "*/" }],
  literals: [dq({ interpolation: "${" })],
  heredoc: "hcl",
};
/** Files of no known language: `#` and `//` at a word start, C and HTML block comments, one-line strings. */
export const GENERIC: Syntax = {
  line: [
    { open: "#", after: SPACE },
    { open: "//", after: SPACE },
  ],
  block: [
    { open: "/*", close: "*/" },
    { open: "<!--", close: "-->" },
  ],
  literals: [dq(), sq({ after: /[\s=:(,[]/ })],
};

/** A family of languages: a lexer syntax, or "markup" (markup.ts) with its embedded-code flavour. */
export type LexFamily = { syntax: Syntax; prepare?: (text: string) => string } | { markup: "html" | "jsp" | "erb" | "php" };

const lex = (syntax: Syntax, prepare?: (text: string) => string): LexFamily => (prepare ? { syntax, prepare } : { syntax });

export const LEX_BY_EXTENSION: Record<string, LexFamily> = {
  ...each(
    [".c", ".h", ".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino", ".m", ".mm", ".cu", ".proto", ".sol", ".zig", ".d"],
    lex(C),
  ),
  ...each([".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"], lex(JAVASCRIPT)),
  ...each([".java", ".jav"], lex(JAVA)),
  ...each([".cs", ".csx"], lex(CSHARP)),
  ".go": lex(GO),
  ...each([".kt", ".kts"], lex(KOTLIN)),
  ".swift": lex(SWIFT),
  ".rs": lex(RUST),
  ...each([".scala", ".sc"], lex(SCALA)),
  ...each([".groovy", ".gradle", ".gvy"], lex(GROOVY)),
  ".dart": lex(DART),
  ".css": lex(CSS),
  ...each([".scss", ".less"], lex(SCSS)),
  ".sql": lex(SQL),
  ".lua": lex(LUA),
  ...each([".sh", ".bash", ".zsh", ".ksh", ".bats", ".mk", ".mak"], lex(SHELL)),
  ...each([".py", ".pyw", ".pyi"], lex(PYTHON)),
  ...each([".rb", ".rake", ".gemspec", ".ru"], lex(RUBY)),
  ...each([".pl", ".pm", ".t"], lex(PERL)),
  ...each([".yml", ".yaml"], lex(YAML, maskYamlBlockScalars)),
  ".toml": lex(TOML),
  ...each([".ini", ".cfg", ".conf", ".properties", ".editorconfig"], lex(INI)),
  ".env": lex(DOTENV),
  ...each([".dockerfile", ".containerfile"], lex(DOCKERFILE)),
  ...each([".ps1", ".psm1", ".psd1"], lex(POWERSHELL)),
  ".r": lex(R),
  ...each([".ex", ".exs"], lex(ELIXIR)),
  ...each([".tf", ".tfvars", ".hcl"], lex(HCL)),
  ...each([".html", ".htm", ".xhtml", ".xml", ".svg", ".vue", ".svelte", ".md", ".xsl", ".xslt", ".plist"], { markup: "html" }),
  ...each([".jsp", ".jspx", ".jspf", ".tag", ".asp", ".aspx", ".ascx"], { markup: "jsp" }),
  ".erb": { markup: "erb" },
  ...each([".php", ".phtml", ".php3", ".php4", ".php5", ".phps", ".inc"], { markup: "php" }),
};

/** Lower-case file names (and name prefixes, e.g. `Dockerfile.prod`, `.env.local`). */
export const LEX_BY_NAME: [RegExp, LexFamily][] = [
  [/^(dockerfile|containerfile)(\..*)?$/, lex(DOCKERFILE)],
  [/^(gnu)?makefile$/, lex(SHELL)],
  [/^\.?(bash|zsh|ksh)?(rc|_profile|_login|_logout|env)$|^\.profile$/, lex(SHELL)],
  [/^(gemfile|rakefile|vagrantfile|podfile|brewfile|guardfile|fastfile)$/, lex(RUBY)],
  [/^jenkinsfile$/, lex(GROOVY)],
  [/^\.env(\..*)?$/, lex(DOTENV)],
  [/^(requirements.*\.txt|\.gitignore|\.dockerignore|\.gitattributes|codeowners|pipfile)$/, lex(TOML)],
];

/** The language named by a shebang (languages.ts) to its lexer. */
export const LEX_BY_LANGUAGE: Record<string, LexFamily> = {
  shell: lex(SHELL),
  python: lex(PYTHON),
  javascript: lex(JAVASCRIPT),
  ruby: lex(RUBY),
  php: { markup: "php" },
};

function each<T>(keys: string[], value: T): Record<string, T> {
  return Object.fromEntries(keys.map((k) => [k, value]));
}

/**
 * The text with the content of YAML block scalars (`key: |` and `key: >`, then every line
 * indented deeper than the key) blanked out, offsets and newlines kept: a `#` there is text.
 */
export function maskYamlBlockScalars(text: string): string {
  const lines = text.split("\n");
  let parentIndent = -1;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n] as string;
    const indent = line.length - line.trimStart().length;
    if (parentIndent >= 0) {
      if (line.trim() === "" || indent > parentIndent) {
        lines[n] = line.replace(/[^\r]/g, " ");
        continue;
      }
      parentIndent = -1;
    }
    // Without its comment, the line ends with the indicator: `key: |`, `- >-`, `run: |2`.
    if (/(^|[\s:-])[|>][0-9+-]{0,2}\s*$/.test(line.replace(/(^|\s)#.*$/, ""))) parentIndent = indent;
  }
  return lines.join("\n");
}

/**
 * Markdown from untrusted data. Finding titles, messages, file paths and snippets come from
 * the scanned repositories, so an attacker writes them: nothing they contain may become raw
 * HTML, a link, a heading, a table cell break or the end of a code fence in our answers.
 * Answers also reach terminals (the `ax` CLI), so control characters never pass through.
 */

// C0 controls (but tab and newline) and DEL: terminal escape sequences start with ESC.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
// Bidirectional overrides reorder what a reader sees ("Trojan Source").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;
const INLINE_SPECIAL = /[\\`*_{}[\]()#+!|~<>&]/g;
const ENTITY: Record<string, string> = { "<": "&lt;", ">": "&gt;", "&": "&amp;" };

function clean(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "").replace(BIDI, "");
}

/** Cuts `text` to at most `max` characters, marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * Plain text for use inside a Markdown line: every character that could start markup is
 * escaped, `<`/`>`/`&` become entities, and newlines become spaces so the text cannot start
 * a block of its own.
 */
export function escapeInline(text: string): string {
  const flat = clean(text).replace(/\s*\n\s*/g, " ");
  let out = flat.replace(INLINE_SPECIAL, (c) => ENTITY[c] ?? `\\${c}`);
  // GFM turns bare URLs and www. names into links; break those patterns (best effort).
  out = out.replace(/([a-z][a-z0-9+.-]*):(?=\/\/)/gi, "$1\\:").replace(/\bwww\./gi, "www\\.");
  // Characters that are markup only at the start of a line.
  return out.replace(/^(\d+)([.)])/, "$1\\$2").replace(/^([-=])/, "\\$1");
}

/** Untrusted multi-line text as Markdown lines, each escaped; paragraphs are kept. */
export function escapeParagraphs(text: string, maxChars = 4_000): string[] {
  return clip(clean(text), maxChars)
    .split("\n")
    .map((line) => escapeInline(line.trim()));
}

/** A code span: the fence is longer than any backtick run inside, so it cannot be closed early. */
export function inlineCode(text: string): string {
  const flat = clean(text).replace(/\n/g, " ");
  if (flat === "") return "";
  const fence = "`".repeat(longestRun(flat, "`") + 1);
  // CommonMark strips one space on each side; pad when the content would touch the fence.
  const pad = /^[`\s]|[`\s]$/.test(flat) ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * A fenced code block as lines. The fence is at least one backtick longer than any backtick
 * run in the code, so a "```" line inside a hostile snippet stays code. Bidi controls are
 * shown as their code point rather than dropped: in code, they are the finding.
 */
export function codeBlock(code: string, lang = ""): string[] {
  const body = code
    .replace(/\r\n?/g, "\n")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
    .replace(BIDI, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase()}>`);
  const fence = "`".repeat(Math.max(3, longestRun(body, "`") + 1));
  const hint = /^[A-Za-z0-9_+#.-]{1,20}$/.test(lang) ? lang : "";
  return [`${fence}${hint}`, ...body.replace(/\n$/, "").split("\n"), fence];
}

const LANGUAGES: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  py: "python",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  scala: "scala",
  groovy: "groovy",
  gradle: "groovy",
  go: "go",
  rb: "ruby",
  php: "php",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  hh: "cpp",
  cs: "csharp",
  swift: "swift",
  rs: "rust",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  ps1: "powershell",
  yml: "yaml",
  yaml: "yaml",
  json: "json",
  xml: "xml",
  html: "html",
  htm: "html",
  vue: "vue",
  sql: "sql",
  tf: "hcl",
  hcl: "hcl",
  lua: "lua",
  pl: "perl",
  pm: "perl",
  dart: "dart",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  toml: "toml",
  ini: "ini",
  md: "markdown",
  diff: "diff",
  patch: "diff",
};

/** A language hint for a code fence, from the file's name; "" when unknown. */
export function languageFromPath(path: string): string {
  const base = path.split(/[\\/]/).pop()?.toLowerCase() ?? "";
  if (base === "dockerfile" || base.startsWith("dockerfile.")) return "dockerfile";
  if (base === "makefile") return "makefile";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? (LANGUAGES[base.slice(dot + 1)] ?? "") : "";
}

/** A table cell: plain text (escaped here), a number, or Markdown already made safe ({ md }). */
export type Cell = string | number | { md: string };

/** A GFM table as lines. Pipes in cells are escaped, even inside code spans, as GFM requires. */
export function table(headers: string[], rows: Cell[][]): string[] {
  const cell = (c: Cell): string => {
    const md = typeof c === "number" ? String(c) : typeof c === "string" ? escapeInline(c) : c.md;
    return md.replace(/\n/g, " ").replace(/\\?\|/g, "\\|");
  };
  const row = (cells: Cell[]) => `| ${cells.map(cell).join(" | ")} |`;
  return [row(headers), `|${headers.map(() => " --- ").join("|")}|`, ...rows.map(row)];
}

/** A link, only to an http(s) address; anything else is shown as plain text. */
export function link(text: string, url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return escapeInline(text);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return escapeInline(text);
  const href = parsed.href.replace(/[()<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `[${escapeInline(text)}](${href})`;
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

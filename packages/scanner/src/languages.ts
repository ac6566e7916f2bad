/**
 * Which languages a checkout contains, so analyzers that only understand one language
 * (bandit, flawfinder, shellcheck, …) are skipped when they have nothing to read. Extensions
 * first, shebangs for extension-less scripts. Bounded: a tree of millions of files costs at
 * most MAX_ENTRIES directory entries and MAX_SHEBANG_READS small reads.
 */
import { open, readdir } from "node:fs/promises";
import { extname, join } from "node:path";

const BY_EXTENSION: Record<string, string> = {
  ".js": "javascript",
  ".jsx": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".ts": "typescript",
  ".tsx": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".py": "python",
  ".pyw": "python",
  ".java": "java",
  ".kt": "kotlin",
  ".kts": "kotlin",
  ".jsp": "jsp",
  ".jspx": "jsp",
  ".jspf": "jsp",
  ".tag": "jsp",
  ".vue": "template",
  ".svelte": "template",
  ".ejs": "template",
  ".hbs": "template",
  ".handlebars": "template",
  ".mustache": "template",
  ".html": "template",
  ".htm": "template",
  ".jinja": "template",
  ".jinja2": "template",
  ".j2": "template",
  ".njk": "template",
  ".twig": "template",
  ".ftl": "template",
  ".ftlh": "template",
  ".go": "go",
  ".php": "php",
  ".rb": "ruby",
  ".cs": "csharp",
  ".c": "c",
  ".h": "c",
  ".cpp": "cpp",
  ".cc": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".hxx": "cpp",
  ".sh": "shell",
  ".bash": "shell",
};

const BY_INTERPRETER: [RegExp, string][] = [
  [/^(ba|da|k|z)?sh$/, "shell"],
  [/^python[0-9.]*$/, "python"],
  [/^(node|nodejs|deno|bun)$/, "javascript"],
  [/^ruby[0-9.]*$/, "ruby"],
  [/^php[0-9.]*$/, "php"],
];

/** Directories that hold third-party or generated code; findings there are noise. */
export const SKIPPED_DIRS = new Set([".git", "node_modules", "vendor", "dist", "build"]);

const MAX_ENTRIES = 200_000;
const MAX_SHEBANG_READS = 2_000;

export function languageOfExtension(ext: string): string | null {
  return BY_EXTENSION[ext.toLowerCase()] ?? null;
}

export async function detectLanguages(root: string): Promise<Set<string>> {
  const found = new Set<string>();
  const pending = [root];
  let entries = 0;
  let shebangReads = 0;
  while (pending.length > 0 && entries < MAX_ENTRIES) {
    const dir = pending.pop() as string;
    const list = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of list) {
      if (++entries > MAX_ENTRIES) break;
      // Dirent types come from lstat semantics: links are neither files nor directories here.
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) pending.push(join(dir, entry.name));
        continue;
      }
      if (!entry.isFile() || entry.name.endsWith(".min.js")) continue;
      const ext = extname(entry.name).toLowerCase();
      const lang = BY_EXTENSION[ext];
      if (lang) found.add(lang);
      else if (ext === "" && shebangReads++ < MAX_SHEBANG_READS) {
        const fromShebang = await shebangLanguage(join(dir, entry.name));
        if (fromShebang) found.add(fromShebang);
      }
    }
  }
  return found;
}

/** The language named by a `#!` line, e.g. `#!/usr/bin/env python3` → python. */
export function languageOfShebang(firstLine: string): string | null {
  const m = /^#!\s*(\S+)(?:\s+(.*))?$/.exec(firstLine.trim());
  if (!m?.[1]) return null;
  let interpreter = m[1].split("/").pop() ?? "";
  if (interpreter === "env") {
    // "env -S python3 -u" and "env python3": the first argument that is not an option.
    interpreter = (m[2] ?? "").split(/\s+/).find((arg) => arg && !arg.startsWith("-")) ?? "";
  }
  return BY_INTERPRETER.find(([re]) => re.test(interpreter))?.[1] ?? null;
}

async function shebangLanguage(path: string): Promise<string | null> {
  let handle;
  try {
    handle = await open(path, "r");
    const buf = Buffer.alloc(128);
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead).toString("utf8");
    return head.startsWith("#!") ? languageOfShebang(head.split("\n")[0] ?? "") : null;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}

/**
 * Which function (and class) encloses each line, from a real parser: ast-grep (tree-sitter)
 * matches every method, constructor, function and class declaration, and `--format github`
 * prints one short line per match with its name (the message interpolates the $NAME
 * metavariable) and its first and last line. No regexes over source text.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { astGrepBinary } from "@ax/rules";

export type SourceLanguage = "java" | "c";

export interface Declaration {
  kind: "function" | "class";
  /** As written: `bad`, `goodG2BSink`, `CWE121_..._01_bad`, `CWE..._81_bad::action`. */
  name: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** Repo-relative POSIX path → declarations in source order. */
export type DeclarationIndex = Map<string, Declaration[]>;

const JAVA_RULES = `
id: function
language: Java
severity: info
message: "$NAME"
rule:
  any:
    - kind: method_declaration
    - kind: constructor_declaration
  has: {field: name, pattern: $NAME}
---
id: class
language: Java
severity: info
message: "$NAME"
rule:
  any:
    - kind: class_declaration
    - kind: enum_declaration
    - kind: interface_declaration
  has: {field: name, pattern: $NAME}
`;

/** The function's name is the declarator of its (possibly pointer-wrapped) function_declarator. */
const cFunctionRule = (language: "C" | "Cpp", id: string): string => `
id: ${id}
language: ${language}
severity: info
message: "$NAME"
rule:
  kind: function_definition
  has:
    field: declarator
    any:
      - kind: function_declarator
        has: {field: declarator, pattern: $NAME}
      - has:
          stopBy: end
          kind: function_declarator
          has: {field: declarator, pattern: $NAME}
`;

const cClassRule = `
id: class
language: Cpp
severity: info
message: "$NAME"
rule:
  any:
    - kind: class_specifier
    - kind: struct_specifier
  all:
    - has: {field: name, pattern: $NAME}
    - has: {field: body, kind: field_declaration_list}
`;

const C_RULES = [cFunctionRule("C", "function"), cFunctionRule("Cpp", "function-cpp"), cClassRule].join("\n---\n");

const GITHUB_LINE = /^::\w+ file=(.*),line=(\d+),endLine=(\d+),title=([\w-]+)::(.*)$/;

/**
 * Indexes the declarations of every Java (or C/C++) file under `dir`. `files` limits the scan
 * to those repo-relative paths (in chunks, as command lines are bounded).
 */
export async function indexDeclarations(dir: string, language: SourceLanguage, files?: readonly string[]): Promise<DeclarationIndex> {
  const rules = language === "java" ? JAVA_RULES : C_RULES;
  const index: DeclarationIndex = new Map();
  const targets = files ? chunk([...files], 2000) : [["."]];
  for (const paths of targets) {
    await runAstGrep(dir, rules, paths, (line) => {
      const m = GITHUB_LINE.exec(line);
      if (!m) return;
      const file = decode(m[1] ?? "").replace(/^\.\//, "");
      const decl: Declaration = {
        kind: m[4] === "class" ? "class" : "function",
        name: decode(m[5] ?? "").trim(),
        startLine: Number(m[2]),
        endLine: Number(m[3]),
      };
      const list = index.get(file);
      if (list) list.push(decl);
      else index.set(file, [decl]);
    });
  }
  for (const list of index.values()) list.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
  return index;
}

/** The declarations that contain `line`, innermost first. */
export function enclosing(decls: readonly Declaration[] | undefined, line: number): Declaration[] {
  if (!decls) return [];
  return decls.filter((d) => d.startLine <= line && line <= d.endLine).sort((a, b) => b.startLine - a.startLine || a.endLine - b.endLine);
}

function runAstGrep(cwd: string, rules: string, paths: string[], onLine: (line: string) => void): Promise<void> {
  const args = ["scan", "--inline-rules", rules, "--format", "github", "--color", "never", "--threads", "2"];
  for (const kind of ["hidden", "dot", "exclude", "global", "parent", "vcs"]) args.push("--no-ignore", kind);
  args.push(...paths);
  return new Promise((resolve, reject) => {
    const child = spawn(astGrepBinary(), args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString("utf8");
    });
    createInterface({ input: child.stdout }).on("line", onLine);
    child.on("error", reject);
    child.on("close", (code) => {
      // ast-grep exits 1 when a rule with error severity matched; ours are "info".
      if (code === 0 || code === 1) resolve();
      else reject(new Error(`ast-grep (declaration index) exited with ${code}: ${stderr.slice(0, 500)}`));
    });
  });
}

/** GitHub workflow-command escaping: %25 %0D %0A %3A %2C. */
function decode(value: string): string {
  return value.replace(/%(25|0D|0A|3A|2C)/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * shellcheck (shell): `shellcheck -f json1 --norc <files>`. `--norc` so a .shellcheckrc in
 * the repository (or in HOME) cannot switch checks off; no `-x`, so `source` never makes it
 * read files outside the list. Inline `# shellcheck disable=` directives cannot be turned off
 * in 0.9 and are honoured by the tool (README.md).
 *
 * shellcheck is a linter: most of its ~400 checks are about correctness or style. A security
 * scanner reporting them all would bury the few that matter, so only the checks in
 * SECURITY_CHECKS are reported, each with the CWE that describes its security consequence and
 * a severity of our choosing (shellcheck's own level is about the script, not its risk).
 * `allChecks: true` reports the rest too, with no CWE and a severity from shellcheck's level.
 * When shellcheck offers a fix, it becomes `finding.fix` (one byte range of the file).
 */
import type { FindingFix, Level, NormalizedFinding, Severity } from "@ax/contracts";
import { concurrencyFor, finishRun, memoVersion, runToolOnFiles, safeFileArg, toolVersion } from "./exec";
import { buildFinding } from "./finding";
import { int, isRecord, repoPath, text } from "./normalize";
import { SourceFiles, type SourceFile } from "./source";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import type { Analyzer } from "./types";

export const SHELLCHECK = "shellcheck";
/** Bump when SECURITY_CHECKS or the mapping changes: the version is part of the cache key. */
const MAPPING_REVISION = 1;

export interface ShellcheckOptions {
  binary?: string;
  /** Report every shellcheck check, not only the security-relevant ones. Default false. */
  allChecks?: boolean;
}

interface SecurityCheck {
  title: string;
  cwe: string | null;
  severity: Severity;
  confidence: Level;
  /** Why this check has a security meaning and this CWE. */
  why: string;
}

const SPLIT =
  "Word splitting and globbing of an unquoted expansion can turn one attacker-influenced value into several arguments, or into options (argument injection).";

export const SECURITY_CHECKS: Readonly<Record<number, SecurityCheck>> = {
  2086: { title: "Unquoted variable expansion", cwe: "CWE-88", severity: "LOW", confidence: "LOW", why: SPLIT },
  2046: { title: "Unquoted command substitution", cwe: "CWE-88", severity: "LOW", confidence: "LOW", why: SPLIT },
  2048: { title: "Unquoted $* expansion", cwe: "CWE-88", severity: "LOW", confidence: "LOW", why: SPLIT },
  2068: { title: "Unquoted $@ expansion", cwe: "CWE-88", severity: "LOW", confidence: "LOW", why: SPLIT },
  2035: {
    title: "Glob can expand to options",
    cwe: "CWE-88",
    severity: "LOW",
    confidence: "MEDIUM",
    why: "A file named `-rf` matched by `*` becomes an option of the command.",
  },
  2011: {
    title: "ls output piped to xargs",
    cwe: "CWE-88",
    severity: "LOW",
    confidence: "LOW",
    why: "File names with spaces, quotes or newlines are split into several arguments.",
  },
  2038: {
    title: "find output piped to xargs without -print0",
    cwe: "CWE-88",
    severity: "LOW",
    confidence: "LOW",
    why: "File names with spaces, quotes or newlines are split into several arguments.",
  },
  2156: {
    title: "File name injected into a shell command",
    cwe: "CWE-78",
    severity: "MEDIUM",
    confidence: "MEDIUM",
    why: "`find -exec sh -c '… {}'` pastes file names into shell code: a file named `$(cmd)` runs cmd.",
  },
  2091: {
    title: "Command output executed as a command",
    cwe: "CWE-78",
    severity: "MEDIUM",
    confidence: "LOW",
    why: "`$(cmd)` as a statement runs whatever cmd prints.",
  },
  2294: {
    title: "eval of concatenated arguments",
    cwe: "CWE-78",
    severity: "MEDIUM",
    confidence: "LOW",
    why: '`eval "$@"` re-parses its arguments as shell code: metacharacters in them run commands.',
  },
  2029: {
    title: "Remote command expanded locally",
    cwe: "CWE-78",
    severity: "LOW",
    confidence: "LOW",
    why: "The local expansion is re-parsed by the remote shell: metacharacters in the value run commands there.",
  },
  2087: {
    title: "Here-document expanded locally for a remote shell",
    cwe: "CWE-78",
    severity: "LOW",
    confidence: "LOW",
    why: "As SC2029: the expanded text is run as code by the remote shell.",
  },
  2059: {
    title: "Variable in printf format string",
    cwe: "CWE-134",
    severity: "LOW",
    confidence: "MEDIUM",
    why: "Format directives in the value are interpreted (output forging, printf -v writes).",
  },
  2053: {
    title: "Unquoted pattern on the right of == in [[ ]]",
    cwe: "CWE-697",
    severity: "MEDIUM",
    confidence: "LOW",
    why: "The right side is a glob: a value of `*` matches anything, e.g. in a password or token comparison.",
  },
  2115: {
    title: "rm -rf of a path that can expand to /*",
    cwe: "CWE-456",
    severity: "MEDIUM",
    confidence: "MEDIUM",
    why: "When the variable is unset or empty the path becomes /*: the variable is used without guaranteed initialization.",
  },
  2164: {
    title: "cd without a failure check",
    cwe: "CWE-252",
    severity: "LOW",
    confidence: "MEDIUM",
    why: "If cd fails the following commands (often rm) run in the wrong directory: an unchecked return value.",
  },
  2174: {
    title: "mkdir -p -m sets the mode of the last directory only",
    cwe: "CWE-732",
    severity: "LOW",
    confidence: "MEDIUM",
    why: "Parent directories get the default permissions, not the mode asked for.",
  },
};

const LEVEL_SEVERITY: Record<string, Severity> = { error: "MEDIUM", warning: "LOW", info: "INFO", style: "INFO" };

export function shellcheckAnalyzer(opts: ShellcheckOptions = {}): Analyzer {
  const binary = opts.binary ?? "shellcheck";
  const allChecks = opts.allChecks ?? false;
  return {
    name: SHELLCHECK,
    languages: ["shell"],
    // Without -x every file is analyzed on its own.
    cacheable: true,
    version: memoVersion(async () => {
      const v = await toolVersion(binary, ["--version"], /version:\s*(\S+)/);
      return v ? `${v} (mapping ${MAPPING_REVISION}${allChecks ? ", all checks" : ""})` : null;
    }),
    async run(ctx) {
      const taxonomy = await loadTaxonomy();
      const { items, truncated } = await runToolOnFiles(
        ctx,
        // 0: clean, 1: comments. 2 (a file could not be read), 3 and 4 (bad options) are failures.
        { tool: SHELLCHECK, binary, succeeded: (code) => code === 0 || code === 1 },
        {
          files: ctx.files,
          args: (chunk) => ["-f", "json1", "--norc", "--color=never", "--", ...chunk.map(safeFileArg)],
          parse: ({ output }) => parseShellcheckJson(output),
          concurrency: concurrencyFor(ctx),
        },
      );
      const sources = new SourceFiles(ctx.dir);
      const findings: NormalizedFinding[] = [];
      for (const c of items) {
        const f = await shellcheckFinding(c, sources, taxonomy, allChecks, ctx.dir);
        if (f) findings.push(f);
      }
      return finishRun(ctx, SHELLCHECK, findings, truncated);
    },
  };
}

export function parseShellcheckJson(output: string): Record<string, unknown>[] {
  let doc: unknown;
  try {
    doc = JSON.parse(output);
  } catch {
    return [];
  }
  return isRecord(doc) && Array.isArray(doc.comments) ? doc.comments.filter(isRecord) : [];
}

async function shellcheckFinding(
  c: Record<string, unknown>,
  sources: SourceFiles,
  taxonomy: Taxonomy,
  allChecks: boolean,
  dir: string,
): Promise<NormalizedFinding | null> {
  const file = repoPath(c.file, dir);
  const code = int(c.code);
  const line = int(c.line);
  const level = text(c.level) ?? "warning";
  if (!file || code === null || line === null || line < 1) return null;
  const check = SECURITY_CHECKS[code];
  // SC1xxx are parse errors, SC2148 "add a shebang": about the tool's input, not the code's risk.
  if (!check && (!allChecks || code < 2000 || code === 2148)) return null;
  const endLine = Math.max(line, int(c.endLine) ?? line);
  const source = await sources.get(file);
  const fix = source ? shellcheckFix(c.fix, source) : null;
  const message = text(c.message) ?? `SC${code}`;
  return buildFinding(
    {
      analyzer: SHELLCHECK,
      rule_id: `${SHELLCHECK}.SC${code}`,
      title: check?.title ?? `SC${code}: ${message}`,
      message,
      cwe_id: check?.cwe ?? null,
      file,
      start_line: line,
      end_line: endLine,
      start_column: int(c.column) ?? 1,
      end_column: int(c.endColumn) ?? int(c.column) ?? 1,
      snippet: source?.snippet(line, endLine) ?? "",
      severity: check?.severity ?? LEVEL_SEVERITY[level] ?? "INFO",
      confidence: check?.confidence ?? "MEDIUM",
      remediation: `${check ? `${check.why} ` : ""}See https://www.shellcheck.net/wiki/SC${code}`,
      raw: { code, level, message, ...(fix ? { fixable: true } : {}) },
      ...(fix ? { fix } : {}),
    },
    taxonomy,
  );
}

/**
 * shellcheck's fix (several insertions/replacements, 1-based line and character columns,
 * end exclusive) as one byte range of the file: from the first change to the last, with the
 * text between kept. Null when any position does not map or changes overlap.
 */
export function shellcheckFix(fix: unknown, source: SourceFile): FindingFix | null {
  if (!isRecord(fix) || !Array.isArray(fix.replacements) || fix.replacements.length === 0) return null;
  const edits: { start: number; end: number; text: string; order: number }[] = [];
  for (const [order, r] of fix.replacements.entries()) {
    if (!isRecord(r) || typeof r.replacement !== "string") return null;
    const start = source.byteOffset(int(r.line) ?? 0, int(r.column) ?? 0);
    const end = source.byteOffset(int(r.endLine) ?? 0, int(r.endColumn) ?? 0);
    if (start === null || end === null || end < start) return null;
    edits.push({ start, end, text: r.replacement, order });
  }
  edits.sort((a, b) => a.start - b.start || a.end - b.end || a.order - b.order);
  for (let i = 1; i < edits.length; i++) if ((edits[i] as { start: number }).start < (edits[i - 1] as { end: number }).end) return null;
  const first = edits[0] as { start: number };
  const last = edits.reduce((m, e) => Math.max(m, e.end), first.start);
  let replacement = "";
  let at = first.start;
  for (const e of edits) {
    replacement += source.bytes.subarray(at, e.start).toString("utf8") + e.text;
    at = e.end;
  }
  replacement += source.bytes.subarray(at, last).toString("utf8");
  return { replacement, start_byte: first.start, end_byte: last, description: "shellcheck's suggested fix" };
}

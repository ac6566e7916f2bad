/**
 * flawfinder (C/C++): a lexical scan for risky library calls.
 * `flawfinder --csv --quiet --dataonly --falsepositive --neverignore --minlevel=N -- <files>`.
 *
 * - CSV, not SARIF: the CSV names every column (we map by header, so a reordering is
 *   harmless), carries the 0–5 risk level that SARIF flattens to error/warning/note, the
 *   function name, and all CWEs of the hit.
 * - `--falsepositive` drops hits flawfinder itself considers likely false (a function name
 *   not followed by `(`, static char arrays); `--neverignore` makes `// Flawfinder: ignore`
 *   comments powerless (suppressions are ours to report; raw.ignore_directive records one).
 * - `--minlevel` defaults to 4: on CASTLE C250 levels 1–3 added no flaw-line hit at level
 *   ≥ 4's cost and 104 more findings in the safe programs (see README.md).
 * - Format and command hits whose argument is a constant flawfinder did not recognise
 *   (`cond ? "a" : "b"`, a name bound once to a literal, `system("ls")`) are dropped: no
 *   attacker reaches a constant (c-constant-args.ts).
 * - flawfinder (Python 3) stops the whole run at the first file that is not UTF-8; such files
 *   are passed as sanitized copies (utf8-inputs.ts) and mapped back.
 */
import type { Level, NormalizedFinding, Severity } from "@ax/contracts";
import { hasConstantSafeArgument } from "./c-constant-args";
import { correctionReason, cweTableDigest, normalizeCwe } from "./cwe-normalize";
import { concurrencyFor, finishRun, memoVersion, runToolOnFiles, safeFileArg, toolVersion } from "./exec";
import { buildFinding } from "./finding";
import { cap, cweId, int, text } from "./normalize";
import { SourceFiles } from "./source";
import { utf8Inputs } from "./utf8-inputs";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import type { Analyzer } from "./types";

export const FLAWFINDER = "flawfinder";
const MAPPING_REVISION = 2;
export const FLAWFINDER_DEFAULT_MIN_LEVEL = 4;

export interface FlawfinderOptions {
  binary?: string;
  /** Lowest risk level reported, 0–5. Default 4. */
  minLevel?: number;
}

/** flawfinder's risk level → severity and confidence. Level 5 is gets() and friends: always wrong. */
const SEVERITY: readonly Severity[] = ["INFO", "INFO", "LOW", "LOW", "MEDIUM", "HIGH"];
const CONFIDENCE: readonly Level[] = ["LOW", "LOW", "LOW", "LOW", "MEDIUM", "HIGH"];

export function flawfinderAnalyzer(opts: FlawfinderOptions = {}): Analyzer {
  const binary = opts.binary ?? "flawfinder";
  const minLevel = Math.min(5, Math.max(0, Math.trunc(opts.minLevel ?? FLAWFINDER_DEFAULT_MIN_LEVEL)));
  return {
    name: FLAWFINDER,
    languages: ["c", "cpp"],
    // Lexical and per file: a file's hits depend on its content only.
    cacheable: true,
    version: memoVersion(async () => {
      const v = await toolVersion(binary, ["--version"], /^(\d+\.\d+(?:\.\d+)?)/);
      return v ? `${v} (minlevel ${minLevel}, mapping ${MAPPING_REVISION}.${cweTableDigest(FLAWFINDER)})` : null;
    }),
    async run(ctx) {
      const taxonomy = await loadTaxonomy();
      const { args: fileArgs, toRepo } = await utf8Inputs(ctx);
      const { items, truncated } = await runToolOnFiles(
        ctx,
        { tool: FLAWFINDER, binary, env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONNOUSERSITE: "1" } },
        {
          files: fileArgs,
          args: (chunk) => [
            "--csv",
            "--quiet",
            "--dataonly",
            "--falsepositive",
            "--neverignore",
            `--minlevel=${minLevel}`,
            "--",
            ...chunk.map(safeFileArg),
          ],
          parse: ({ output }, complete) => parseCsvRecords(output, complete),
          concurrency: concurrencyFor(ctx),
        },
      );
      const sources = new SourceFiles(ctx.dir);
      const findings: NormalizedFinding[] = [];
      for (const row of items) {
        const f = await flawfinderFinding(row, toRepo, sources, taxonomy);
        if (f) findings.push(f);
      }
      return finishRun(ctx, FLAWFINDER, findings, truncated);
    },
  };
}

/**
 * RFC 4180 CSV (what Python's csv module writes) → records keyed by the header row. With
 * `complete` false the last record may be cut: it is dropped.
 */
export function parseCsvRecords(output: string, complete = true): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  for (; i < output.length; i++) {
    const c = output[i];
    if (quoted) {
      if (c === '"' && output[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && output[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (complete && (field !== "" || row.length > 0)) rows.push([...row, field]);
  const [header, ...records] = rows;
  if (!header) return [];
  return records.filter((r) => r.length === header.length).map((r) => Object.fromEntries(header.map((h, k) => [h, r[k] ?? ""])));
}

/** "CWE-119!/CWE-120" → CWE-119 (the `!` marks the mapped one); "CWE-120, CWE-20" → CWE-120. */
export function flawfinderCwes(field: string): { primary: string | null; all: string[] } {
  const tokens = field.match(/CWE-\d+!?/g) ?? [];
  const all = tokens.map((t) => cweId(t.replace("!", ""))).filter((c): c is string => c !== null);
  const marked = tokens.find((t) => t.endsWith("!"));
  return { primary: marked ? cweId(marked.slice(0, -1)) : (all[0] ?? null), all };
}

async function flawfinderFinding(
  row: Record<string, string>,
  toRepo: (printed: string) => string | null,
  sources: SourceFiles,
  taxonomy: Taxonomy,
): Promise<NormalizedFinding | null> {
  const file = toRepo(row.File ?? "");
  const line = int(row.Line);
  const name = text(row.Name);
  const lvl = int(row.Level);
  if (!file || line === null || line < 1 || !name || !/^[\w:~]+$/.test(name) || lvl === null || lvl < 0 || lvl > 5) return null;
  const column = Math.max(1, int(row.Column) ?? 1);
  const source = await sources.get(file);
  const lineText = source?.lines[line - 1];
  // A constant format or command flawfinder could not see as one (c-constant-args.ts).
  if (source && hasConstantSafeArgument(source.lines, line, column, name)) return null;
  const { primary, all } = flawfinderCwes(row.CWEs ?? "");
  const cwe = normalizeCwe(FLAWFINDER, name, primary);
  const nameAtColumn = lineText !== undefined && [...lineText].slice(column - 1, column - 1 + name.length).join("") === name;
  const ignoreDirective = [lineText, source?.lines[line - 2]].some((l) => l !== undefined && /flawfinder:\s*ignore/i.test(l));
  const suggestion = [text(row.Suggestion), text(row.Note)].filter(Boolean).join(" ");
  return buildFinding(
    {
      analyzer: FLAWFINDER,
      rule_id: `${FLAWFINDER}.${name}`,
      title: `Risky call: ${name} (${text(row.Category) ?? "misc"})`,
      message: text(row.Warning) ?? `Use of ${name}.`,
      cwe_id: cwe,
      file,
      start_line: line,
      start_column: column,
      end_column: nameAtColumn ? column + name.length : column,
      snippet: lineText ?? text(row.Context) ?? "",
      severity: SEVERITY[lvl] as Severity,
      confidence: CONFIDENCE[lvl] as Level,
      remediation: suggestion || null,
      raw: {
        name,
        level: lvl,
        default_level: int(row.DefaultLevel),
        category: text(row.Category),
        cwes: all,
        ...(correctionReason(FLAWFINDER, name)
          ? { cwe_normalized: { from: primary, to: cwe, why: correctionReason(FLAWFINDER, name) } }
          : {}),
        rule: text(row.RuleId),
        context: cap(row.Context ?? "", 500),
        ignore_directive: ignoreDirective,
        help_uri: text(row.HelpUri),
      },
    },
    taxonomy,
  );
}

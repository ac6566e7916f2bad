/**
 * bandit (Python): `bandit -f json -q --ignore-nosec <files>`. `--ignore-nosec` because
 * suppressions are ours to report (an `ax-ignore` comment with a reason is shown as
 * suppressed); a `# nosec` must not make a finding vanish without a trace. When the line
 * carries one, `raw.nosec` says so. Files are given explicitly, so no `.bandit` or
 * pyproject configuration of the repository is read. CWEs go through cwe-normalize.ts
 * (bandit tags eval as CWE-78; Debian 12's 1.6.2 tags nothing at all).
 */
import type { Level, NormalizedFinding, Severity } from "@ax/contracts";
import { correctionReason, cweTableDigest, normalizeCwe } from "./cwe-normalize";
import { concurrencyFor, finishRun, memoVersion, runToolOnFiles, safeFileArg, toolVersion } from "./exec";
import { buildFinding } from "./finding";
import { cap, cweId, int, isRecord, isTestPath, repoPath, text } from "./normalize";
import { redacted } from "./secrets-patterns";
import { SourceFiles } from "./source";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import type { Analyzer, AnalyzerContext } from "./types";

export const BANDIT = "bandit";
/** Bump when the mapping below changes: the version string is part of the cache key. */
const MAPPING_REVISION = 1;

export interface BanditOptions {
  /** Default "bandit" on PATH. */
  binary?: string;
}

const SEVERITY: Record<string, Severity> = { HIGH: "HIGH", MEDIUM: "MEDIUM", LOW: "LOW", UNDEFINED: "INFO" };
const CONFIDENCE: Record<string, Level> = { HIGH: "HIGH", MEDIUM: "MEDIUM", LOW: "LOW", UNDEFINED: "LOW" };

const XML = "Parse untrusted XML with defusedxml (or disable DTDs and external entities explicitly).";
const REMEDIATION: Record<string, string> = {
  B101: "Raise an exception for checks that must hold in production: python -O removes assert statements.",
  B102: "Do not execute strings as code. Parse data with json or ast.literal_eval, or dispatch on a fixed table of functions.",
  B103: "Give files the narrowest permissions that work (e.g. 0o600 for secrets, 0o644 for public files); never world-writable.",
  B104: "Bind to a specific interface (127.0.0.1 for local services) unless the service must be reachable from every network.",
  B105: "Load the password at run time from a secret store or environment variable, and rotate the hard-coded one.",
  B106: "Load the password at run time from a secret store or environment variable, and rotate the hard-coded one.",
  B107: "Load the password at run time from a secret store or environment variable, and rotate the hard-coded one.",
  B108: "Use tempfile.mkstemp() or tempfile.TemporaryDirectory() instead of fixed paths in a shared temporary directory.",
  B110: "Handle or at least log the exception; a bare `except: pass` hides failures, including security checks that failed.",
  B113: "Pass a timeout to every requests call so a slow server cannot hang the process.",
  B201: "Never run Flask with debug=True in production: the debugger executes code. Read the setting from configuration.",
  B301: "Do not unpickle data that could come from outside; use JSON or another data-only format with schema validation.",
  B303: "Use SHA-256 or stronger; for passwords a slow KDF (argon2, scrypt, bcrypt). If the hash has no security purpose, pass usedforsecurity=False.",
  B324: "Use SHA-256 or stronger; for passwords a slow KDF (argon2, scrypt, bcrypt). If the hash has no security purpose, pass usedforsecurity=False.",
  B306: "Use tempfile.mkstemp() or NamedTemporaryFile(): mktemp() returns a name another process can take first.",
  B307: "Do not evaluate strings as code; use ast.literal_eval for literals or json for data.",
  B311: "Use the secrets module (secrets.token_bytes, secrets.token_urlsafe) for tokens, keys and anything an attacker must not guess.",
  B323: "Keep certificate verification on: use ssl.create_default_context().",
  B403: "Do not unpickle data that could come from outside; use JSON or another data-only format with schema validation.",
  B501: "Keep certificate verification on (verify=True, the default); to trust a private CA pass its bundle as verify=.",
  B506: "Use yaml.safe_load (or yaml.load with Loader=yaml.SafeLoader).",
  B602: "Pass the command as a list without shell=True; never build a shell command line from input.",
  B605: "Use subprocess.run with an argument list instead of a shell command string.",
  B608: "Use parameterized queries (cursor.execute(sql, params)); never format input into SQL.",
  B701: "Create the Environment with autoescape=select_autoescape() (or True) so HTML is escaped.",
  ...Object.fromEntries(
    ["B313", "B314", "B315", "B316", "B317", "B318", "B319", "B320", "B405", "B406", "B407", "B408", "B409", "B410", "B411"].map((id) => [
      id,
      XML,
    ]),
  ),
};

export function banditAnalyzer(opts: BanditOptions = {}): Analyzer {
  const binary = opts.binary ?? "bandit";
  return {
    name: BANDIT,
    languages: ["python"],
    cacheable: true,
    version: memoVersion(async () => {
      const v = await toolVersion(binary, ["--version"], /bandit\s+(\S+)/);
      return v ? `${v} (mapping ${MAPPING_REVISION}.${cweTableDigest(BANDIT)})` : null;
    }),
    async run(ctx) {
      const taxonomy = await loadTaxonomy();
      const { items, truncated } = await runToolOnFiles(
        ctx,
        // 0: no issues, 1: issues found. Anything else (2: usage) is a failure.
        {
          tool: BANDIT,
          binary,
          succeeded: (code) => code === 0 || code === 1,
          env: { PYTHONDONTWRITEBYTECODE: "1", PYTHONNOUSERSITE: "1" },
        },
        {
          files: ctx.files,
          args: (chunk) => ["-f", "json", "-q", "--ignore-nosec", "--", ...chunk.map(safeFileArg)],
          parse: ({ output }) => parseBanditJson(output),
          concurrency: concurrencyFor(ctx),
        },
      );
      return finishRun(ctx, BANDIT, await toFindings(ctx, items, taxonomy), truncated);
    },
  };
}

/** bandit's `results`; an unparsable document (cut at the cap) yields none. */
export function parseBanditJson(output: string): Record<string, unknown>[] {
  let doc: unknown;
  try {
    doc = JSON.parse(output);
  } catch {
    return [];
  }
  return isRecord(doc) && Array.isArray(doc.results) ? doc.results.filter(isRecord) : [];
}

async function toFindings(ctx: AnalyzerContext, results: Record<string, unknown>[], taxonomy: Taxonomy): Promise<NormalizedFinding[]> {
  const sources = new SourceFiles(ctx.dir);
  const findings: NormalizedFinding[] = [];
  for (const r of results) {
    const f = await banditFinding(r, sources, taxonomy, ctx.dir);
    if (f) findings.push(f);
  }
  return findings;
}

/** One bandit result → a finding, or null when it is malformed or noise (asserts in tests). */
export async function banditFinding(
  r: Record<string, unknown>,
  sources: SourceFiles,
  taxonomy: Taxonomy,
  dir?: string,
): Promise<NormalizedFinding | null> {
  const file = repoPath(r.filename, dir);
  const testId = text(r.test_id);
  const line = int(r.line_number);
  if (!file || !testId || !/^B\d{3}$/.test(testId) || line === null || line < 1) return null;
  // pytest tests are made of asserts: B101 there is noise, never a finding.
  if (testId === "B101" && isTestPath(file)) return null;

  const range = Array.isArray(r.line_range) ? r.line_range.map(int).filter((n): n is number => n !== null && n >= line) : [];
  const endLine = Math.max(line, ...range);
  const source = await sources.get(file);
  const col = int(r.col_offset);
  const endCol = int(r.end_col_offset);
  const reported = isRecord(r.issue_cwe) ? cweId(r.issue_cwe.id) : null;
  const cwe = normalizeCwe(BANDIT, testId, reported);
  const code = text(r.code) ?? "";
  const lineText = source?.lines[line - 1] ?? codeLine(code, line);
  const nosec = lineText !== null && lineText !== undefined && /#\s*nosec\b/i.test(lineText);
  const moreInfo = text(r.more_info);
  let message = text(r.issue_text) ?? testId;
  // B105-B107 quote the password in their message: "Possible hardcoded password: 's3cr3t'".
  if (/^B10[567]$/.test(testId)) message = message.replace(/'[^']*'/g, (q) => `'${redacted(q.slice(1, -1), 0)}'`);
  return buildFinding(
    {
      analyzer: BANDIT,
      rule_id: `${BANDIT}.${testId}`,
      title: banditTitle(testId, text(r.test_name), moreInfo),
      message,
      cwe_id: cwe,
      file,
      start_line: line,
      end_line: endLine,
      start_column: col !== null && col >= 0 ? col + 1 : 1,
      end_column: endCol !== null && endCol >= 0 ? endCol + 1 : (source?.lineEndColumn(endLine) ?? 1),
      snippet: source?.snippet(line, endLine) ?? codeLine(code, line) ?? "",
      severity: SEVERITY[text(r.issue_severity) ?? ""] ?? "MEDIUM",
      confidence: CONFIDENCE[text(r.issue_confidence) ?? ""] ?? "MEDIUM",
      remediation: REMEDIATION[testId] ?? (moreInfo && /^https:\/\//.test(moreInfo) ? `See ${moreInfo}` : null),
      raw: {
        test_id: testId,
        test_name: text(r.test_name),
        issue_severity: text(r.issue_severity),
        issue_confidence: text(r.issue_confidence),
        issue_cwe: reported,
        ...(correctionReason(BANDIT, testId) ? { cwe_normalized: { from: reported, to: cwe, why: correctionReason(BANDIT, testId) } } : {}),
        line_range: range.length > 0 ? range : [line],
        code: cap(code, 2000),
        more_info: moreInfo,
        nosec,
      },
    },
    taxonomy,
  );
}

/** The text of `line` in bandit's `code` excerpt ("12 foo()\n13 bar()"), or null. */
function codeLine(code: string, line: number): string | null {
  for (const l of code.split("\n")) {
    const m = /^(\d+)\s(.*)$/.exec(l);
    if (m && Number(m[1]) === line) return m[2] ?? "";
  }
  return null;
}

/**
 * A readable title. Blacklist checks all share test_name "blacklist"; their name is in the
 * more_info anchor (…#b307-eval, …#b403-import-pickle).
 */
function banditTitle(testId: string, testName: string | null, moreInfo: string | null): string {
  if (testName && testName !== "blacklist") {
    const words = testName.replace(/_/g, " ");
    return words.charAt(0).toUpperCase() + words.slice(1);
  }
  const anchor = moreInfo ? /#b\d{3}-([\w-]+)$/i.exec(moreInfo)?.[1] : undefined;
  if (!anchor) return `bandit ${testId}`;
  return anchor.startsWith("import-") ? `Import of ${anchor.slice(7).replace(/-/g, " ")}` : `Use of ${anchor.replace(/-/g, " ")}`;
}

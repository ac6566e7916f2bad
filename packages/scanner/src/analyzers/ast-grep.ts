/**
 * The ast-grep adapter: runs the project's rule pack over the checkout. The config path is
 * always given with --config, so an sgconfig.yml inside the repository is never read, and
 * custom-language native libraries are never loaded (--custom-languages ignore).
 */
import { execa } from "execa";
import type { NormalizedFinding } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { ANALYZER_NAME, parseAstGrepLine } from "./ast-grep-parse";
import { analyzerEnv, stderrSummary, toolPath } from "../process-env";
import { loadRulePack } from "./rule-pack";
import {
  AnalyzerFailedError,
  AnalyzerOutputLimitError,
  AnalyzerTimeoutError,
  AnalyzerUnavailableError,
  type Analyzer,
  type AnalyzerContext,
} from "./types";

export interface AstGrepOptions {
  /** Path of the ast-grep binary; defaults to @ax/rules' astGrepBinary(). */
  binary?: string;
  /** Path of the sgconfig.yml; defaults to @ax/rules' sgConfigPath. */
  configPath?: string;
}

/** Third-party, generated and minified code: findings there are noise and slow the scan. */
const EXCLUDE_GLOBS = [".git", "node_modules", "vendor", "dist", "build", "*.min.js"];
const MAX_STDERR = 1024 * 1024;

export function astGrepAnalyzer(opts: AstGrepOptions = {}): Analyzer {
  const setup = async (): Promise<{ binary: string; configPath: string; rules: string | null }> => {
    if (opts.binary && opts.configPath) return { binary: opts.binary, configPath: opts.configPath, rules: null };
    const pack = await loadRulePack();
    const configPath = opts.configPath ?? pack?.configPath;
    if (!configPath) throw new AnalyzerUnavailableError("The ast-grep rule pack (@ax/rules) is not installed on this worker.");
    const binary = opts.binary ?? pack?.binary;
    if (!binary) throw new AnalyzerUnavailableError("ast-grep is not installed on this worker.");
    return { binary, configPath, rules: pack?.version ?? null };
  };

  return {
    name: ANALYZER_NAME,
    // The rule pack spans many languages, some of which detectLanguages doesn't name.
    appliesTo: () => true,
    async version() {
      // Throws AnalyzerUnavailableError when the rule pack is missing: a more precise notice.
      const { binary, rules } = await setup();
      const result = await execa(binary, ["--version"], { reject: false, timeout: 10_000, extendEnv: false, env: { PATH: toolPath() } });
      const version = /ast-grep\s+(\S+)/.exec(String(result.stdout))?.[1];
      if (result.failed || !version) return null;
      return rules ? `${version} (rules ${rules})` : version;
    },
    async run(ctx) {
      const { binary, configPath } = await setup();
      return scan(binary, configPath, ctx);
    },
  };
}

async function scan(binary: string, configPath: string, ctx: AnalyzerContext): Promise<NormalizedFinding[]> {
  const args = ["scan", "--config", configPath, "--json=stream", "--include-metadata", "--color", "never"];
  args.push("--custom-languages", "ignore", "--threads", String(ctx.threads ?? 0));
  // Every file in a fresh clone is tracked, so .gitignore/.ignore must not hide any of them
  // (a repository could otherwise hide code from the scan); hidden files like .github/ count.
  for (const kind of ["hidden", "dot", "exclude", "global", "parent", "vcs"]) args.push("--no-ignore", kind);
  for (const glob of EXCLUDE_GLOBS) args.push("--globs", `!${glob}`);
  args.push(".");

  const result = await execa(binary, args, {
    cwd: ctx.dir,
    extendEnv: false,
    env: analyzerEnv(ctx.scratchDir),
    stdin: "ignore",
    timeout: ctx.timeoutMs,
    cancelSignal: ctx.signal,
    forceKillAfterDelay: 2_000,
    // Bytes, not characters: the cap is a memory bound.
    encoding: "buffer",
    maxBuffer: { stdout: ctx.maxOutputBytes, stderr: MAX_STDERR },
    cleanup: true,
    reject: false,
  });
  const stdout = Buffer.from(result.stdout ?? new Uint8Array()).toString("utf8");
  const stderr = Buffer.from(result.stderr ?? new Uint8Array()).toString("utf8");

  if (result.timedOut) throw new AnalyzerTimeoutError(`ast-grep did not finish within ${formatDuration(ctx.timeoutMs)}.`);
  if (result.isCanceled) {
    // Our signal fires for the caller's cancel and for the per-analyzer time limit alike.
    if (ctx.signal.reason instanceof AnalyzerTimeoutError) throw ctx.signal.reason;
    throw new ScanAbortedError();
  }
  if (result.isMaxBuffer) {
    const partial = parseOutput(stdout);
    throw new AnalyzerOutputLimitError(
      `ast-grep produced more than ${formatBytes(ctx.maxOutputBytes)} of output; ${partial.length} findings were kept and the rest dropped.`,
      partial,
    );
  }
  if (result.code === "ENOENT" || result.code === "EACCES") throw new AnalyzerUnavailableError("ast-grep is not installed on this worker.");
  // Exit 1 with "Scan succeeded" means rules with severity "error" matched: a normal result.
  const succeeded = result.exitCode === 0 || (result.exitCode === 1 && /scan succeeded/i.test(stderr));
  if (!succeeded) {
    const summary = stderrSummary(stderr);
    throw new AnalyzerFailedError(
      `ast-grep failed (${result.exitCode === undefined ? result.signal ?? "no exit code" : `exit code ${result.exitCode}`})${summary ? `: ${summary}` : "."}`,
      stderr.slice(0, 4000),
    );
  }
  return parseOutput(stdout);
}

function parseOutput(stdout: string): NormalizedFinding[] {
  const findings: NormalizedFinding[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.trim()) continue;
    const finding = parseAstGrepLine(line);
    if (finding) findings.push(finding);
  }
  return findings;
}

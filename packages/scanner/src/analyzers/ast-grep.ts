/**
 * The ast-grep adapter: runs the project's rule pack over exactly the files the selection
 * chose (ctx.files, in chunks). The config path is always given with --config, so an
 * sgconfig.yml inside the repository is never read, and custom-language native libraries are
 * never loaded (--custom-languages ignore). Files named on the command line are scanned even
 * if a .gitignore lists them or they are hidden: the selection, not ast-grep, decides.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, extname, join, resolve } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { languageOfExtension } from "../languages";
import { ANALYZER_NAME, parseAstGrepLine } from "./ast-grep-parse";
import { finishRun, memoVersion, runToolOnFiles, toolVersion } from "./exec";
import { loadRulePack } from "./rule-pack";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { AnalyzerUnavailableError, type Analyzer, type AnalyzerContext } from "./types";
import { utf8Inputs } from "./utf8-inputs";

export interface AstGrepOptions {
  /** Path of the ast-grep binary; defaults to @ax/rules' astGrepBinary(). */
  binary?: string;
  /** Path of the sgconfig.yml; defaults to @ax/rules' sgConfigPath. */
  configPath?: string;
}

/** The languages the rule pack has rules for, as named by the selection. */
export const AST_GREP_LANGUAGES = ["javascript", "typescript", "python", "java", "go", "php", "ruby", "csharp", "kotlin"] as const;

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
    languages: AST_GREP_LANGUAGES,
    // A file's matches depend on its content, the binary and the rules; the version names both.
    cacheable: true,
    version: memoVersion(async () => {
      // Throws AnalyzerUnavailableError when the rule pack is missing: a more precise notice.
      const { binary, rules } = await setup();
      const version = await toolVersion(binary, ["--version"], /ast-grep\s+(\S+)/);
      if (!version) return null;
      // The rule pack version is part of the cache key: new rules must re-scan cached files.
      return rules ? `${version} (rules ${rules})` : version;
    }),
    async run(ctx) {
      const { binary, configPath } = await setup();
      return scan(binary, configPath, ctx, await loadTaxonomy());
    },
  };
}

/** The rule pack's directory of each language the selection names (one grammar, tsx, serves JavaScript and TypeScript). */
const RULE_DIR: Record<string, string> = {
  javascript: "javascript",
  typescript: "javascript",
  python: "python",
  java: "java",
  go: "go",
  php: "php",
  ruby: "ruby",
  csharp: "csharp",
  kotlin: "kotlin",
};

/**
 * A config with only the rule directories of the languages among `files`, written to
 * `scratchDir`; or the pack's own config when that cannot be done exactly (a file of another
 * language, a layout not split by language, settings this does not rewrite). ast-grep
 * compiles every rule it is given before it reads a file — about 0.3 s for the whole pack,
 * most of a rescan's run on a few changed files — and a rule only ever matches files of its
 * own language, so leaving out other languages' rules changes no finding.
 */
export async function ruleConfigFor(configPath: string, files: readonly string[], scratchDir: string): Promise<string> {
  const wanted = new Set<string>();
  for (const file of files) {
    const language = languageOfExtension(extname(file));
    const dir = language ? RULE_DIR[language] : undefined;
    if (!dir) return configPath;
    wanted.add(dir);
  }
  const text = await readFile(configPath, "utf8");
  const block = /^ruleDirs:\n((?:[ \t]+- [^\n]+\n)+)/m.exec(text);
  if (!block?.[1] || /^(utilDirs|customLanguages|languageInjections):/m.test(text)) return configPath;
  const roots = [...block[1].matchAll(/- ([^\n]+)/g)].map((m) => resolve(dirname(configPath), (m[1] ?? "").trim()));
  const split = roots.every((root) => Object.values(RULE_DIR).some((d) => existsSync(join(root, d))));
  if (!split) return configPath;
  const dirs = roots.flatMap((root) => [...wanted].map((d) => join(root, d))).filter((d) => existsSync(d));
  if (dirs.length === 0) return configPath;
  const path = join(scratchDir, "sgconfig.yml");
  // JSON strings are YAML double-quoted scalars: any path is written exactly.
  await writeFile(path, text.replace(block[0], `ruleDirs:\n${dirs.map((d) => `  - ${JSON.stringify(d)}\n`).join("")}`));
  return path;
}

async function scan(binary: string, packConfig: string, ctx: AnalyzerContext, taxonomy: Taxonomy): Promise<NormalizedFinding[]> {
  const configPath = await ruleConfigFor(packConfig, ctx.files, ctx.scratchDir);
  const base = ["scan", "--config", configPath, "--json=stream", "--include-metadata", "--color", "never"];
  base.push("--custom-languages", "ignore", "--threads", String(ctx.threads ?? 0));
  // Belt and braces: named files are scanned whatever ignore files say, but a directory
  // argument never is here, and these keep it that way if one ever is.
  for (const kind of ["hidden", "dot", "exclude", "global", "parent", "vcs"]) base.push("--no-ignore", kind);
  // ast-grep silently skips a file that is not UTF-8: give it a sanitized copy instead.
  const { args: files, toRepo } = await utf8Inputs(ctx);
  const { items, truncated } = await runToolOnFiles(
    ctx,
    {
      tool: "ast-grep",
      binary,
      // Exit 1 with "Scan succeeded" means rules with severity "error" matched: a normal result.
      succeeded: (code, stderr) => code === 0 || (code === 1 && /scan succeeded/i.test(stderr)),
    },
    {
      files,
      // `--` ends the options: a file named "-r.js" is a file.
      args: (chunk) => [...base, "--", ...chunk],
      parse: ({ output }) => parseOutput(output, taxonomy, toRepo),
      // ast-grep is multi-threaded: one process at a time.
      concurrency: 1,
    },
  );
  return finishRun(ctx, "ast-grep", items, truncated);
}

function parseOutput(stdout: string, taxonomy: Taxonomy, toRepo: (printed: string) => string | null): NormalizedFinding[] {
  const findings: NormalizedFinding[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.trim()) continue;
    const finding = parseAstGrepLine(line, taxonomy, toRepo);
    if (finding) findings.push(finding);
  }
  return findings;
}

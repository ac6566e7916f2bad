/**
 * Any SARIF 2.1.0 tool as an analyzer, configured by the operator (semgrep, CodeQL, gosec, …).
 * The command is an argv array run without a shell; placeholders:
 *
 * | Placeholder | Replaced by |
 * |---|---|
 * | `{files}` (a whole element) | the files to analyze, repo-relative; the command runs once per chunk |
 * | `{filelist}` (in an element) | path of a file listing them, one per line; one run |
 * | `{output}` (in an element) | path of a file the tool writes SARIF to (with `outputFile: true`); else SARIF is read from stdout |
 *
 * With neither `{files}` nor `{filelist}` the tool analyzes its working directory (the
 * checkout) on its own. In every case only results in `ctx.files` are kept, paths are made
 * repo-relative, and a path that escapes the checkout is refused (sarif-parse.ts).
 */
import { access, constants, readFile, stat, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { delimiter, join } from "node:path";
import { execa } from "execa";
import type { NormalizedFinding } from "@ax/contracts";
import { concurrencyFor, finishRun, memoVersion, runTool, runToolOnFiles, safeFileArg, type ToolCommand } from "./exec";
import { cap } from "./normalize";
import { SarifToolConfig, type SarifToolInput } from "./sarif-config";
import { parseSarif } from "./sarif-parse";
import { loadTaxonomy } from "./taxonomy";
import { toolPath } from "../process-env";
import type { Analyzer, AnalyzerContext } from "./types";

export { KNOWN_LANGUAGES, parseSarifToolsConfig, SarifToolConfig, SarifToolsConfig, type SarifToolInput } from "./sarif-config";
export { cweFromTag, parseSarif, type SarifParseContext } from "./sarif-parse";

export function sarifAnalyzer(input: SarifToolInput): Analyzer {
  const cfg = SarifToolConfig.parse(input);
  const configDigest = createHash("sha256")
    .update(JSON.stringify([cfg.command, cfg.versionCommand ?? null]))
    .digest("hex")
    .slice(0, 8);
  return {
    name: cfg.name,
    languages: cfg.languages,
    cacheable: cfg.cacheable,
    version: memoVersion(async () => {
      const binary = cfg.command[0] as string;
      if (!(await isExecutable(binary))) return null;
      if (!cfg.versionCommand) return `unversioned (config ${configDigest})`;
      const v = await versionLine(cfg.versionCommand, cfg.env);
      return v === null ? null : `${v} (config ${configDigest})`;
    }),
    run: (ctx) => runSarifTool(cfg, ctx),
  };
}

async function runSarifTool(cfg: SarifToolConfig, outer: AnalyzerContext): Promise<NormalizedFinding[]> {
  const ctx = { ...outer, timeoutMs: Math.min(outer.timeoutMs, cfg.timeoutMs ?? outer.timeoutMs) };
  const taxonomy = await loadTaxonomy();
  const [binary, ...template] = cfg.command as [string, ...string[]];
  const cmd: ToolCommand = {
    tool: cfg.name,
    binary,
    succeeded: (code) => cfg.successExitCodes.includes(code),
    ...(cfg.env ? { env: cfg.env } : {}),
  };
  const files = new Set(ctx.files);
  let runs = 0;
  const outputs = new Map<string[], string>();
  /** The command for one run: placeholders filled, a fresh {output} path. */
  const commandFor = (chunk: string[] | null, listFile: string | null): { args: string[]; output: string } => {
    const output = join(ctx.scratchDir, `sarif-${runs++}.json`);
    const args = template.flatMap((a) => {
      if (a === "{files}") return (chunk ?? []).map(safeFileArg);
      return [a.replaceAll("{output}", output).replaceAll("{filelist}", listFile ?? "")];
    });
    return { args, output };
  };

  // Each run's SARIF: the stdout text, or "@file:<path>" for a tool writing to {output}.
  let documents: string[];
  let truncated: boolean;
  if (template.includes("{files}")) {
    const run = await runToolOnFiles(ctx, cmd, {
      files: ctx.files,
      args: (chunk) => {
        const { args, output } = commandFor(chunk, null);
        outputs.set(chunk, output);
        return args;
      },
      parse: ({ output }, _complete, chunk) => [cfg.outputFile ? `@file:${outputs.get(chunk) ?? ""}` : output],
      // Operator tools may be heavy; one process at a time unless they are known to be cheap.
      concurrency: cfg.cacheable ? concurrencyFor(ctx) : 1,
    });
    documents = run.items;
    truncated = run.truncated;
  } else {
    let listFile: string | null = null;
    if (template.some((a) => a.includes("{filelist}"))) {
      listFile = join(ctx.scratchDir, "sarif-files.txt");
      await writeFile(
        listFile,
        ctx.files
          .filter((f) => !/[\r\n]/.test(f))
          .map((f) => `${f}\n`)
          .join(""),
      );
    }
    const { args, output } = commandFor(null, listFile);
    const out = await runTool(ctx, cmd, args);
    documents = [cfg.outputFile ? `@file:${output}` : out.output];
    truncated = out.truncated;
  }

  const findings: NormalizedFinding[] = [];
  let bytes = 0;
  for (const doc of documents) {
    let json = doc;
    if (doc.startsWith("@file:")) {
      const path = doc.slice(6);
      const size = (await stat(path).catch(() => null))?.size ?? 0;
      if (bytes + size > ctx.maxOutputBytes) {
        truncated = true;
        break;
      }
      bytes += size;
      json = size > 0 ? await readFile(path, "utf8") : "";
    }
    if (!json.trim()) continue;
    findings.push(...(await parseSarif(json, { tool: cfg.name, dir: ctx.dir, files, taxonomy })));
  }
  return finishRun(ctx, cfg.name, findings, truncated);
}

async function isExecutable(binary: string): Promise<boolean> {
  const candidates = binary.includes("/")
    ? [binary]
    : toolPath()
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, binary));
  for (const c of candidates) {
    if (
      await access(c, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

async function versionLine(command: string[], env?: Record<string, string>): Promise<string | null> {
  const [bin, ...args] = command as [string, ...string[]];
  const r = await execa(bin, args, {
    reject: false,
    timeout: 30_000,
    extendEnv: false,
    env: { PATH: toolPath(), LANG: "C", LC_ALL: "C", ...env },
    stdin: "ignore",
    maxBuffer: 64 * 1024,
    cleanup: true,
  });
  if (r.failed) return null;
  const line = `${String(r.stdout)}\n${String(r.stderr)}`
    .split("\n")
    .map((l) => l.trim())
    .find(Boolean);
  return line ? cap(line, 100) : null;
}

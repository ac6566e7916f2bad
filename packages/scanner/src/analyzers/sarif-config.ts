/**
 * The operator's configuration of SARIF tools (SARIF_TOOLS): one entry per tool, validated
 * with Zod so a typo fails the worker's start-up with a message instead of a tool that never
 * runs. See README.md for the format and examples.
 */
import { z } from "zod";

/** Language names of the selection (selection.ts / languages.ts). */
export const KNOWN_LANGUAGES = [
  "javascript",
  "typescript",
  "python",
  "java",
  "go",
  "php",
  "ruby",
  "csharp",
  "kotlin",
  "jsp",
  "c",
  "cpp",
  "shell",
] as const;
/** Names the built-in analyzers use; a SARIF tool may not take one. */
const RESERVED_NAMES = ["ast-grep", "bandit", "flawfinder", "cppcheck", "shellcheck", "secrets", "jsp"];

export const SarifToolConfig = z
  .object({
    /** Analyzer name (AnalyzerRun.name) and rule id prefix: `semgrep.<ruleId>`. */
    name: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "name must be 1-40 characters of a-z, 0-9, _ and -, starting with a letter or digit"),
    command: z.array(z.string().min(1).max(4096)).min(1).max(200),
    languages: z.union([z.literal("*"), z.array(z.enum(KNOWN_LANGUAGES)).min(1)]),
    /** Results of a file depend only on that file (and the version): cache them per blob. */
    cacheable: z.boolean().default(false),
    /** The tool writes SARIF to `{output}` instead of stdout. */
    outputFile: z.boolean().default(false),
    /** A time limit of its own, below the analyzer limit. */
    timeoutMs: z
      .number()
      .int()
      .min(1000)
      .max(24 * 3600 * 1000)
      .optional(),
    /** Prints the tool's version (first line is used); part of the cache key. */
    versionCommand: z.array(z.string().min(1).max(4096)).min(1).max(20).optional(),
    /** Exit codes that mean "ran to the end" (many tools exit 1 when they find something). */
    successExitCodes: z.array(z.number().int().min(0).max(255)).min(1).default([0, 1]),
    /** Extra environment for the tool (e.g. SEMGREP_SEND_METRICS=off). Nothing else is inherited. */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(4096)).optional(),
  })
  .strict()
  .refine((c) => !RESERVED_NAMES.includes(c.name), { message: "name is taken by a built-in analyzer" })
  .refine((c) => !c.outputFile || c.command.some((a) => a.includes("{output}")), {
    message: "outputFile needs an {output} placeholder in command",
  })
  .refine((c) => c.command.every((a) => a === "{files}" || !a.includes("{files}")), {
    message: "{files} must be a command element of its own",
  })
  .refine((c) => !(c.command.includes("{files}") && c.command.some((a) => a.includes("{filelist}"))), {
    message: "use {files} or {filelist}, not both",
  });
export type SarifToolConfig = z.infer<typeof SarifToolConfig>;
export type SarifToolInput = z.input<typeof SarifToolConfig>;

export const SarifToolsConfig = z
  .array(SarifToolConfig)
  .max(20)
  .refine((list) => new Set(list.map((t) => t.name)).size === list.length, { message: "tool names must be unique" });

/**
 * The operator's SARIF_TOOLS value (a JSON array) → validated tool configs. Throws an Error
 * whose message says what is wrong, for a fail-fast start-up.
 */
export function parseSarifToolsConfig(json: string): SarifToolConfig[] {
  let value: unknown;
  try {
    value = JSON.parse(json.trim() === "" ? "[]" : json);
  } catch (err) {
    throw new Error(`SARIF_TOOLS is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = SarifToolsConfig.safeParse(value);
  if (!parsed.success) throw new Error(`SARIF_TOOLS is invalid:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

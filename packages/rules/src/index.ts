/**
 * The ax ast-grep security rule pack: where its files live, which ast-grep binary runs them,
 * and the metadata of every rule (read from the YAML, which stays the single source of truth).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

// js-yaml has no bundled types and @types/js-yaml is not installed; this is the one call used.
interface YamlModule {
  load(source: string, options?: { filename?: string }): unknown;
}
const yaml = require("js-yaml") as YamlModule;

/** Absolute path of packages/rules. */
export const rulesRoot: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The ast-grep project config (ruleDirs, testConfigs, languageGlobs). */
export const sgConfigPath: string = join(rulesRoot, "sgconfig.yml");

export const rulesDir: string = join(rulesRoot, "rules");
export const ruleTestsDir: string = join(rulesRoot, "rule-tests");

export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
export const LEVELS = ["HIGH", "MEDIUM", "LOW"] as const;
export type Severity = (typeof SEVERITIES)[number];
export type Level = (typeof LEVELS)[number];

export interface RuleMeta {
  id: string;
  /** ast-grep language name as written in the rule (Tsx, Python, Java). */
  language: string;
  message: string;
  note: string;
  cwe: string;
  cwe_name: string;
  owasp: string;
  severity: Severity;
  confidence: Level;
  likelihood: Level;
  impact: Level;
  title: string;
  remediation: string;
  references: string[];
  /** Absolute path of the rule's YAML file. */
  file: string;
}

// npm here does not run install scripts, so @ast-grep/cli's postinstall never links its
// binary; the per-platform optional dependency carries the real executable.
const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@ast-grep/cli-linux-x64-gnu",
  "linux-arm64": "@ast-grep/cli-linux-arm64-gnu",
  "darwin-x64": "@ast-grep/cli-darwin-x64",
  "darwin-arm64": "@ast-grep/cli-darwin-arm64",
  "win32-x64": "@ast-grep/cli-win32-x64-msvc",
  "win32-arm64": "@ast-grep/cli-win32-arm64-msvc",
  "win32-ia32": "@ast-grep/cli-win32-ia32-msvc",
};

let binaryPath: string | undefined;

/** Absolute path of the ast-grep executable for this platform; throws if none is installed. */
export function astGrepBinary(): string {
  if (binaryPath) return binaryPath;
  const exe = process.platform === "win32" ? "ast-grep.exe" : "ast-grep";
  const tried: string[] = [];
  const platformPackage = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  const cliDir = packageDir("@ast-grep/cli");
  if (platformPackage) {
    // Hoisted next to us, or nested under @ast-grep/cli in non-hoisted layouts.
    for (const from of [undefined, cliDir ?? undefined]) {
      const dir = packageDir(platformPackage, from);
      if (dir) tried.push(join(dir, exe));
    }
  }
  if (cliDir) tried.push(join(cliDir, exe));
  const found = tried.find((candidate) => existsSync(candidate));
  if (!found) {
    const where = tried.length > 0 ? ` Looked for: ${[...new Set(tried)].join(", ")}.` : "";
    throw new Error(
      `No ast-grep executable found for ${process.platform}-${process.arch}. ` +
        `Install @ast-grep/cli (and its platform package ${platformPackage ?? "for this platform"}).${where}`,
    );
  }
  binaryPath = found;
  return found;
}

function packageDir(name: string, from?: string): string | null {
  try {
    const manifest = from ? require.resolve(`${name}/package.json`, { paths: [from] }) : require.resolve(`${name}/package.json`);
    return dirname(manifest);
  } catch {
    return null;
  }
}

/** Every rule YAML file under rules/, sorted by path relative to rulesRoot. */
export function ruleFiles(): string[] {
  return listYaml(rulesDir).sort((a, b) => compare(relative(rulesRoot, a), relative(rulesRoot, b)));
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listYaml(full));
    else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out;
}

// Locale-independent ordering, so the pack version is the same on every machine.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Parses one YAML file; the result is untyped and must be checked by the caller. */
export function readYaml(file: string): unknown {
  return yaml.load(readFileSync(file, "utf8"), { filename: file });
}

/** Metadata of every rule in the pack. Throws on a rule whose metadata is missing or malformed. */
export function loadRules(): RuleMeta[] {
  return ruleFiles().map(loadRule);
}

function loadRule(file: string): RuleMeta {
  const doc = readYaml(file);
  const fail = (what: string): never => {
    throw new Error(`${relative(rulesRoot, file)}: ${what}`);
  };
  if (!isRecord(doc)) return fail("not a YAML mapping");
  const meta = doc.metadata;
  if (!isRecord(meta)) return fail("missing metadata mapping");
  const str = (obj: Record<string, unknown>, key: string, where: string): string => {
    const value = obj[key];
    return typeof value === "string" && value.trim().length > 0 ? value.trim() : fail(`${where}${key} must be a non-empty string`);
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[]): T => {
    const value = str(meta, key, "metadata.");
    return (allowed as readonly string[]).includes(value) ? (value as T) : fail(`metadata.${key} must be one of ${allowed.join("|")}`);
  };
  const references = meta.references;
  if (!Array.isArray(references) || references.length === 0 || !references.every((r): r is string => typeof r === "string")) {
    return fail("metadata.references must be a non-empty list of URLs");
  }
  return {
    id: str(doc, "id", ""),
    language: str(doc, "language", ""),
    message: str(doc, "message", ""),
    note: str(doc, "note", ""),
    cwe: str(meta, "cwe", "metadata."),
    cwe_name: str(meta, "cwe_name", "metadata."),
    owasp: str(meta, "owasp", "metadata."),
    severity: oneOf("severity", SEVERITIES),
    confidence: oneOf("confidence", LEVELS),
    likelihood: oneOf("likelihood", LEVELS),
    impact: oneOf("impact", LEVELS),
    title: str(meta, "title", "metadata."),
    remediation: str(meta, "remediation", "metadata."),
    references: [...references],
    file,
  };
}

let packVersion: string | undefined;

/**
 * First 12 hex chars of a sha256 over the rule files (relative path and content, in path
 * order): any edit, addition, removal or rename of a rule changes it.
 */
export function rulePackVersion(): string {
  if (packVersion) return packVersion;
  const hash = createHash("sha256");
  for (const file of ruleFiles()) {
    hash.update(relative(rulesRoot, file).split(sep).join("/"));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  packVersion = hash.digest("hex").slice(0, 12);
  return packVersion;
}

/**
 * The pack version. An ESM string export cannot be deferred past module evaluation, so it is
 * computed (once) when this module is first imported; consumers such as the scanner import
 * the pack lazily, so nothing is read until a scan actually needs the pack.
 */
export const RULE_PACK_VERSION: string = rulePackVersion();

/** Rule id → test file path, for the tests and tooling. */
export function ruleTestFile(id: string): string {
  return join(ruleTestsDir, `${id}-test.yml`);
}

/** The language directory a rule file sits in (javascript, python, java). */
export function ruleLanguageDir(file: string): string {
  return basename(dirname(file));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
export { CWE_NAMES, OWASP_2021, cweName } from "./taxonomy";
export { cweChildren, cweLevels, cweParents, cweWithChildren } from "./cwe-levels";

/**
 * The repository's own scan configuration, `.ax.yml` at its root. It can only narrow what is
 * reported (exclude paths or rules, or opt vendored code back in); it cannot change how
 * anything runs. A bad file never fails the scan: it is ignored with a notice.
 *
 *   exclude:            # globs, relative to the repository root
 *     - "test/fixtures/**"
 *   exclude_rules:      # rule ids, or CWE ids such as CWE-338
 *     - js-insecure-random
 *   include_vendored: false
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import yaml from "js-yaml";
import picomatch from "picomatch";
import { z } from "zod";

export const REPO_CONFIG_FILES = [".ax.yml", ".ax.yaml"];
const MAX_CONFIG_BYTES = 64 * 1024;

const RepoConfigSchema = z.strictObject({
  exclude: z.array(z.string().min(1).max(500)).max(500).default([]),
  exclude_rules: z.array(z.string().min(1).max(200)).max(1000).default([]),
  include_vendored: z.boolean().default(false),
});

export interface RepoConfig {
  file: string | null;
  exclude: string[];
  excludeRules: Set<string>;
  includeVendored: boolean;
  /** Why the file was ignored, if it was. */
  notice: string | null;
  isExcluded(path: string): boolean;
}

const EMPTY = (file: string | null, notice: string | null): RepoConfig => ({
  file,
  exclude: [],
  excludeRules: new Set(),
  includeVendored: false,
  notice,
  isExcluded: () => false,
});

export async function loadRepoConfig(root: string): Promise<RepoConfig> {
  for (const name of REPO_CONFIG_FILES) {
    const path = join(root, name);
    const info = await lstat(path).catch(() => null);
    if (!info) continue;
    if (!info.isFile()) return EMPTY(name, `${name} is not a regular file; ignored.`);
    if (info.size > MAX_CONFIG_BYTES) return EMPTY(name, `${name} is larger than 64 KiB; ignored.`);
    let parsed: unknown;
    try {
      // The core schema: no custom tags, no object construction from the document.
      parsed = yaml.load(await readFile(path, "utf8"), { schema: yaml.CORE_SCHEMA, json: true }) ?? {};
    } catch {
      return EMPTY(name, `${name} is not valid YAML; ignored.`);
    }
    const result = RepoConfigSchema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0];
      return EMPTY(
        name,
        `${name} is not valid (${issue ? `${issue.path.join(".") || "root"}: ${issue.message}` : "unknown problem"}); ignored.`,
      );
    }
    const matchers = result.data.exclude.map((glob) => picomatch(glob, { dot: true }));
    return {
      file: name,
      exclude: result.data.exclude,
      excludeRules: new Set(result.data.exclude_rules.map((r) => (/^cwe-\d+$/i.test(r) ? r.toUpperCase() : r))),
      includeVendored: result.data.include_vendored,
      notice: null,
      isExcluded: (p) => matchers.some((m) => m(p)),
    };
  }
  return EMPTY(null, null);
}

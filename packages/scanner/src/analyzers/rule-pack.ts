/**
 * Loads the ast-grep rule pack (@ax/rules) on first use rather than at import time, so the
 * scanner still loads — and reports ast-grep as skipped with a notice — on a worker where
 * the pack is not installed. The module is treated as unknown and checked field by field.
 */
export interface RulePack {
  configPath: string;
  /** null when the pack could not locate an ast-grep binary for this platform. */
  binary: string | null;
  version: string | null;
}

// A variable specifier keeps the import lazy and lets the scanner compile before @ax/rules exists.
const RULES_MODULE = "@ax/rules";
const NOT_FOUND = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"]);

let cached: Promise<RulePack | null> | undefined;

/** The pack, or null when it is not installed. A pack that is present but broken throws. */
export function loadRulePack(): Promise<RulePack | null> {
  cached ??= importRulePack();
  return cached;
}

async function importRulePack(): Promise<RulePack | null> {
  let mod: unknown;
  try {
    mod = await import(RULES_MODULE);
  } catch (err) {
    if (NOT_FOUND.has(String((err as { code?: unknown }).code))) return null;
    throw err;
  }
  const fields = (mod ?? {}) as Record<string, unknown>;
  if (typeof fields.sgConfigPath !== "string") throw new Error("@ax/rules does not export sgConfigPath.");
  return {
    configPath: fields.sgConfigPath,
    binary: locateBinary(fields.astGrepBinary),
    version: typeof fields.RULE_PACK_VERSION === "string" ? fields.RULE_PACK_VERSION : null,
  };
}

function locateBinary(astGrepBinary: unknown): string | null {
  if (typeof astGrepBinary !== "function") return null;
  try {
    const path: unknown = astGrepBinary();
    return typeof path === "string" && path.length > 0 ? path : null;
  } catch {
    return null; // no binary for this platform: the analyzer is skipped, not failed
  }
}

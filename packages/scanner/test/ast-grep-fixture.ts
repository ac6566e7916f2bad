/**
 * A tiny rule pack for adapter tests: an sgconfig.yml and three rules written to a temp dir.
 * It stands in for @ax/rules (developed separately) and uses the real ast-grep binary.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export function astGrepBinaryPath(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("@ast-grep/cli/package.json")), "ast-grep");
}

const EVAL_RULE = `id: js-eval
language: javascript
severity: error
message: Avoid eval of $X
note: eval runs arbitrary code.
rule:
  pattern: eval($X)
metadata:
  cwe: CWE-95
  cwe_name: "Improper Neutralization of Directives in Dynamically Evaluated Code ('Eval Injection')"
  owasp: "A03:2021 - Injection"
  severity: HIGH
  confidence: medium
  likelihood: LOW
  impact: HIGH
  title: Use of eval
  remediation: Parse the data instead of evaluating it.
  references:
    - https://cwe.mitre.org/data/definitions/95.html
`;

// No metadata block: exercises the fallback from ast-grep's own severity.
const EXEC_RULE = `id: py-exec
language: python
severity: warning
message: exec() call
note: Avoid exec.
rule:
  pattern: exec($X)
`;

// A mechanical fix: ast-grep emits `replacement` and `replacementOffsets` for it.
const YAML_RULE = `id: py-yaml-load
language: python
severity: warning
message: yaml.load can build arbitrary objects
rule:
  pattern: yaml.load($X)
fix: yaml.safe_load($X)
metadata:
  cwe: CWE-502
  fix_description: Use yaml.safe_load.
`;

/** Writes the fixture pack under `dir`; returns the sgconfig.yml path. */
export function writeFixtureRulePack(dir: string): string {
  mkdirSync(join(dir, "rules"), { recursive: true });
  writeFileSync(join(dir, "sgconfig.yml"), "ruleDirs:\n  - rules\n");
  writeFileSync(join(dir, "rules", "js-eval.yml"), EVAL_RULE);
  writeFileSync(join(dir, "rules", "py-exec.yml"), EXEC_RULE);
  writeFileSync(join(dir, "rules", "py-yaml-load.yml"), YAML_RULE);
  return join(dir, "sgconfig.yml");
}

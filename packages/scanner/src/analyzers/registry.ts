/**
 * The analyzers a scan runs, in order. Each is skipped with a notice when its tool is absent,
 * so adding one here never breaks a worker that lacks the binary. Next: bandit, flawfinder,
 * cppcheck, shellcheck, the secrets detector and operator-configured SARIF tools.
 */
import { astGrepAnalyzer } from "./ast-grep";
import type { Analyzer } from "./types";

export function defaultAnalyzers(): Analyzer[] {
  return [astGrepAnalyzer()];
}

export { cloneRepository, type CloneOptions, type CloneResult } from "./clone";
export { withWorkspace, type WorkspaceOptions } from "./workspace";
export { detectLanguages, languageOfShebang } from "./languages";
export { fingerprintFindings, matchedCode, normalizeCode } from "./fingerprint";
export { runAnalyzers, type RunAnalyzersOptions, type RunAnalyzersResult } from "./run";
export { astGrepAnalyzer, type AstGrepOptions } from "./analyzers/ast-grep";
export { defaultAnalyzers } from "./analyzers/registry";
export {
  AnalyzerFailedError,
  AnalyzerOutputLimitError,
  AnalyzerTimeoutError,
  AnalyzerUnavailableError,
  type Analyzer,
  type AnalyzerContext,
} from "./analyzers/types";
export { ScanAbortedError, ScanInputError, ScanTimeoutError, isAbortError } from "./errors";
export { hardenedGitConfig, hardenedGitEnv } from "./git/hardening";
export type { ResolveHost } from "./git/resolve-host";

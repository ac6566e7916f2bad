export {
  checkoutRepository,
  cloneRepository,
  remoteCommit,
  type BaseCommit,
  type CheckoutResult,
  type CloneOptions,
  type CloneResult,
} from "./clone";
export { reusableScanResult } from "./result-reuse";
export { withWorkspace, sweepStaleWorkspaces, removeTree, type WorkspaceOptions } from "./workspace";
export { detectLanguages, languageOfShebang } from "./languages";
export { fingerprintFindings, matchedCode, normalizeCode } from "./fingerprint";
export { runAnalyzers, type RunAnalyzersOptions, type RunAnalyzersResult, type SelectionSummary } from "./run";
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
export { resolveWithSystem, type ResolveHost } from "./git/resolve-host";
export { selectFiles, filesFor, VENDORED_DIRS, type Selection, type SourceFile } from "./selection";
export { loadRepoConfig, REPO_CONFIG_FILES, type RepoConfig } from "./repo-config";
export { postprocess, findSuppression } from "./postprocess";
export { MemoryAnalysisCache, type AnalysisCache, type CachedFinding } from "./cache";
export { replacementDiff } from "./unified-diff";
export { banditAnalyzer } from "./analyzers/bandit";
export { cppcheckAnalyzer } from "./analyzers/cppcheck";
export { flawfinderAnalyzer } from "./analyzers/flawfinder";
export { shellcheckAnalyzer } from "./analyzers/shellcheck";
export { secretsAnalyzer } from "./analyzers/secrets";
export { sarifAnalyzer, parseSarif, parseSarifToolsConfig, type SarifToolInput } from "./analyzers/sarif";
export { normalizeCwe } from "./analyzers/cwe-normalize";
export { redactSecrets } from "./analyzers/secrets-patterns";
export type { DefaultAnalyzersOptions } from "./analyzers/registry";
export { SourceFiles, SourceFile as CheckoutFile } from "./analyzers/source";
export { DATAFLOW, dataflowAnalyzer, dataflowVersion, forgetKeptAnalyses } from "./analyzers/dataflow";
export {
  snippetDataflowFacts,
  snippetLanguage,
  SNIPPET_TIME_LIMIT_MS,
  type SnippetFacts,
  type SnippetInput,
  type SnippetLanguage,
  type SnippetOptions,
} from "./snippet-dataflow";
export {
  externalAnalyzers,
  missingAnalyzers,
  missingAnalyzersNotice,
  reportMissingAnalyzers,
  type ExternalAnalyzer,
  type WarnSink,
} from "./missing-analyzers";

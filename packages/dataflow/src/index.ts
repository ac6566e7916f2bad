/**
 * @ax/dataflow — the taint analysis: lowers Java, Python and JavaScript/TypeScript files to a
 * small IR and follows untrusted input from its sources to dangerous calls, across functions
 * and files. Give it files and the language tables; it returns the traces it found. It knows
 * nothing of scans: the scanner reads the checkout and turns traces into findings.
 */
export { analyzeFiles, analyzeRepository, dataflowVersion, forgetKeptAnalyses, keptAnalyses, LANGUAGE_TABLES } from "./analysis";
export type { AnalysisInput, LanguageTables } from "./analysis";
export { analyzeModules, analyzeProgram } from "./engine";
export type { EngineOptions, ProgramAnalysis, TaintTrace } from "./engine";
export type { CleanReason, OpenReason, SinkSite } from "./sites";
export type { AlgorithmUse } from "./weak-algorithms";
export type { ModuleIR } from "./ir";
export { DATAFLOW_LANGUAGES, LOWERERS, SPECS } from "./languages";
export type { Lowerer } from "./languages";
export { engineMemo } from "./memo";
export type { EngineMemo } from "./memo";
export { parseSource } from "./parser";
export type { DataflowLanguage } from "./parser";
export type { LanguageSpec, SinkRule, SourceKind } from "./spec";
export { JAVA_SPEC } from "./java-spec";
export { JAVASCRIPT_SPEC } from "./javascript-spec";
export { PYTHON_SPEC } from "./python-spec";
export { lowerJava } from "./java";
export { lowerJavaScript } from "./javascript";
export { lowerPython } from "./python";

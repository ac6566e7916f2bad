/**
 * The analyzers a scan runs, in order. Each is skipped with a notice when its tool is absent,
 * so adding one here never breaks a worker that lacks the binary. The order breaks ties when
 * two analyzers report the same CWE on the same line (postprocess.ts): the rule pack first,
 * then the more precise tool of a pair (cppcheck before flawfinder).
 */
import { dataflowAnalyzer } from "./dataflow";
import { astGrepAnalyzer, type AstGrepOptions } from "./ast-grep";
import { banditAnalyzer, type BanditOptions } from "./bandit";
import { cppcheckAnalyzer, type CppcheckOptions } from "./cppcheck";
import { flawfinderAnalyzer, type FlawfinderOptions } from "./flawfinder";
import { jspAnalyzer } from "./jsp";
import { templatesAnalyzer } from "./templates";
import { parseSarifToolsConfig, sarifAnalyzer, type SarifToolInput } from "./sarif";
import { secretsAnalyzer, type SecretsOptions } from "./secrets";
import { shellcheckAnalyzer, type ShellcheckOptions } from "./shellcheck";
import type { Analyzer } from "./types";

export interface DefaultAnalyzersOptions {
  /** Operator-configured SARIF tools: parsed configs, or the raw SARIF_TOOLS JSON (validated here). */
  sarifTools?: readonly SarifToolInput[] | string;
  astGrep?: AstGrepOptions;
  bandit?: BanditOptions;
  cppcheck?: CppcheckOptions;
  flawfinder?: FlawfinderOptions;
  shellcheck?: ShellcheckOptions;
  secrets?: SecretsOptions;
  /** The in-process taint analysis (default on). */
  dataflow?: boolean;
}

export function defaultAnalyzers(opts: DefaultAnalyzersOptions = {}): Analyzer[] {
  const sarifTools = typeof opts.sarifTools === "string" ? parseSarifToolsConfig(opts.sarifTools) : (opts.sarifTools ?? []);
  return [
    astGrepAnalyzer(opts.astGrep),
    ...(opts.dataflow === false ? [] : [dataflowAnalyzer()]),
    banditAnalyzer(opts.bandit),
    cppcheckAnalyzer(opts.cppcheck),
    flawfinderAnalyzer(opts.flawfinder),
    shellcheckAnalyzer(opts.shellcheck),
    secretsAnalyzer(opts.secrets),
    jspAnalyzer(),
    templatesAnalyzer(),
    ...sarifTools.map((tool) => sarifAnalyzer(tool)),
  ];
}

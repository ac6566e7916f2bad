/**
 * A process that scans (`npm start`, the worker) on a machine without some of the analyzers
 * still scans (each missing one is skipped, its run recorded as such), but says once at start
 * which are missing and the command that installs them, rather than leaving it to be noticed
 * in every scan's runs.
 */
import { banditAnalyzer } from "./analyzers/bandit";
import { cppcheckAnalyzer } from "./analyzers/cppcheck";
import { flawfinderAnalyzer } from "./analyzers/flawfinder";
import { shellcheckAnalyzer } from "./analyzers/shellcheck";

/** What the notice is logged through (a logger's warn). */
export interface WarnSink {
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** An external analyzer as the scanner runs it, and the Debian package that provides it. */
export interface ExternalAnalyzer {
  name: string;
  version(): Promise<string | null>;
  debianPackage: string;
}

/** The tools the worker image installs from Debian (apps/worker/Dockerfile). */
export function externalAnalyzers(): ExternalAnalyzer[] {
  return [
    { ...pick(banditAnalyzer()), debianPackage: "bandit" },
    { ...pick(flawfinderAnalyzer()), debianPackage: "flawfinder" },
    { ...pick(cppcheckAnalyzer()), debianPackage: "cppcheck" },
    { ...pick(shellcheckAnalyzer()), debianPackage: "shellcheck" },
  ];
}

function pick(a: { name: string; version(): Promise<string | null> }): Omit<ExternalAnalyzer, "debianPackage"> {
  return { name: a.name, version: () => a.version() };
}

/** Those whose version cannot be read: the scanner skips them for the same reason. */
export async function missingAnalyzers(analyzers: readonly ExternalAnalyzer[] = externalAnalyzers()): Promise<ExternalAnalyzer[]> {
  const found = await Promise.all(analyzers.map((a) => a.version().catch(() => null)));
  return analyzers.filter((_, i) => found[i] === null);
}

export function missingAnalyzersNotice(missing: readonly ExternalAnalyzer[]): string | null {
  if (missing.length === 0) return null;
  const names = missing.map((a) => a.name).join(", ");
  const packages = [...new Set(missing.map((a) => a.debianPackage))].join(" ");
  return `Analyzers not installed: ${names}. Scans run without them; install them with: apt-get install ${packages}`;
}

/** Logs the notice once, as a warning; never fails the start. */
export async function reportMissingAnalyzers(log: WarnSink, analyzers?: readonly ExternalAnalyzer[]): Promise<void> {
  try {
    const missing = await missingAnalyzers(analyzers);
    const notice = missingAnalyzersNotice(missing);
    if (notice) log.warn(notice, { missing: missing.map((a) => a.name) });
  } catch (err) {
    log.warn("could not check which analyzers are installed", { error: (err as Error).message });
  }
}

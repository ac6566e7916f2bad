/**
 * The product's own analysis path: `runAnalyzers` from @ax/scanner with the worker's analyzer
 * registry (`defaultAnalyzers()`), so the figures describe what a scan reports. Only the
 * limits differ from a worker's defaults (a benchmark tree is far bigger than a repository).
 */
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import { defaultAnalyzers, runAnalyzers, type Analyzer } from "@ax/scanner";

export interface ScanResult {
  findings: NormalizedFinding[];
  /** Pattern matches the taint analysis refuted: not reported, kept apart (`dataflow.status` "refuted"). */
  refuted: NormalizedFinding[];
  analyzers: AnalyzerRun[];
  durationMs: number;
}

export interface ScanOptions {
  /** Keep only the registry's analyzers with these names (e.g. ["cppcheck"]); default all. */
  only?: readonly string[];
  timeoutMs?: number;
  threads?: number;
  onProgress?: (pct: number) => void;
}

/** Names of the analyzers the worker runs, in order. */
export function registryNames(): string[] {
  return defaultAnalyzers().map((a) => a.name);
}

export async function scanTree(dir: string, opts: ScanOptions = {}): Promise<ScanResult> {
  let analyzers: Analyzer[] = defaultAnalyzers();
  if (opts.only) analyzers = analyzers.filter((a) => opts.only?.includes(a.name));
  const started = performance.now();
  const result = await runAnalyzers({
    dir,
    analyzers,
    timeoutMs: opts.timeoutMs ?? 60 * 60 * 1000,
    // V8 strings top out near 512 MiB; the largest run (Juliet Java) produces ~60 MB.
    maxOutputBytes: 400 * 1024 * 1024,
    threads: opts.threads ?? 2,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  // Suppressed findings are reported by the product as suppressed, not as results.
  const findings = result.findings.filter((f) => !f.suppression);
  return { findings, refuted: result.refuted, analyzers: result.analyzers, durationMs: Math.round(performance.now() - started) };
}

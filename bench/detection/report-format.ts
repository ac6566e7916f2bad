/** Formatting shared by the sections of docs/detection.md (report.ts). */
import type { AnalyzerRun } from "@ax/contracts";

/** Issue 3's floors. */
export const TARGETS = {
  julietJava: { minScore: 0.5, maxFpr: 0.2 },
  castle: { cppcheckPublished: { tp: 18, fp: 5, version: "2.13" } },
};

export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
export const secs = (ms: number): string => (ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);

export function runsLine(runs: AnalyzerRun[]): string {
  return runs
    .map(
      (r) =>
        `${r.name} ${r.version ?? "(no version)"} — ${r.status}${r.notice ? ` (${r.notice})` : ""}, ${r.findings} findings, ${secs(r.duration_ms)}`,
    )
    .join("; ");
}

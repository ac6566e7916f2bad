/**
 * Our own labeled Python and JavaScript/TypeScript handlers (taint-cases/), scanned like a
 * repository and scored before and after the taint analysis, as the Juliet Java suite is.
 */
import { cp, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DATAFLOW } from "@ax/scanner";
import { loadLabeledCases, scoreLabeled, type LabeledScore } from "./labeled";
import { scanTree } from "./scan";

export const LABELED_LANGUAGES = ["python", "javascript"] as const;
export const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), "taint-cases");

export interface LabeledSuiteResult {
  language: string;
  cases: number;
  patternOnly: LabeledScore;
  withDataflow: LabeledScore;
  dataflowMs: number;
  scanMs: number;
}

export async function runLabeled(opts: { scratch: string; log: (m: string) => void }): Promise<LabeledSuiteResult[]> {
  const out: LabeledSuiteResult[] = [];
  for (const language of LABELED_LANGUAGES) {
    const root = join(opts.scratch, "labeled", language);
    await mkdir(root, { recursive: true });
    await cp(join(CASES_DIR, language), root, { recursive: true });
    const cases = await loadLabeledCases(root);
    opts.log(`labeled ${language}: scanning ${cases.length} cases`);
    const scan = await scanTree(root);
    out.push({
      language,
      cases: cases.length,
      patternOnly: scoreLabeled(
        cases,
        scan.findings.filter((f) => f.analyzer !== DATAFLOW),
      ),
      withDataflow: scoreLabeled(cases, scan.findings, { counts: (f) => f.dataflow?.status !== "unconfirmed" }),
      dataflowMs: scan.analyzers.find((a) => a.name === DATAFLOW)?.duration_ms ?? 0,
      scanMs: scan.durationMs,
    });
  }
  return out;
}

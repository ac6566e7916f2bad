/**
 * The analysis of one scan, the steps between "running" and "storing": clone, analyze, compare
 * with the merge-base (diff-aware scans), label (auto-triage) — or the stored analysis of the
 * same commit, without cloning.
 */
import type { ScanDiff } from "@ax/contracts";
import { PgAnalysisCache, referenceCommits, updateProgress, type Db, type Scan } from "@ax/db";
import type { Logger } from "@ax/logger";
import { defaultReviewModel } from "@ax/ai/review";
import {
  checkoutRepository,
  defaultAnalyzers,
  remoteCommit,
  reusableScanResult,
  runAnalyzers,
  type CheckoutResult,
  type RunAnalyzersOptions,
  type RunAnalyzersResult,
} from "@ax/scanner";
import { keepCommitLabels, keptCommitLabels, labelsFor, type AiLabel } from "./auto-triage";
import { adjustLabels, orgStatsFor } from "./org-learning";
import { projectStateDir } from "./project-state";
import { compareWithBase } from "./pull-request";
import type { ScanDeps } from "./scan-deps";

/** What one attempt at a scan carries through its steps. */
export interface ScanAttempt {
  deps: ScanDeps;
  scan: Scan;
  log: Logger;
  /** A scan of the public organization (anonymous callers). */
  publicScan: boolean;
  allowInsecure: boolean;
  /** Fires on the time limit, a cancel or a delete. */
  signal: AbortSignal;
  /** Records the wall time since the previous lap under `phase`. */
  lap: (phase: string) => void;
}

/** A fresh analysis, or the stored one of the same commit. */
type AnalysisResult = RunAnalyzersResult | NonNullable<Awaited<ReturnType<typeof reusableScanResult>>>;

export type ScanAnalysis = AnalysisResult & {
  aiLabels: Map<string, AiLabel> | undefined;
  lineMaps: CheckoutResult["lineMaps"];
  diff: ScanDiff | undefined;
};

/** Clones the scan's repository into `dir` (a fresh workspace) and analyzes it. */
export async function analyzeInWorkspace(a: ScanAttempt, dir: string): Promise<ScanAnalysis> {
  const { db, config } = a.deps;
  const checkout = `${dir}/src`;
  a.log.info("cloning");
  // Kept per organization and project on this worker, like the analyzers' state below. Not
  // the repository of a public scan: one-off projects would each keep a copy on disk.
  const stateDir = projectStateDir(config.worker.workspaceDir, a.scan.organization_id, a.scan.project_id);
  const cloned = await cloneForScan(a, dir, checkout, stateDir);
  const blobs = config.scan.analysisCache ? cloned.blobs : undefined;
  const cache = config.scan.analysisCache ? projectCache(db, a.scan) : undefined;
  a.lap("clone_ms");
  await updateProgress(db, a.scan.id, { phase: "analyzing", progress: 30, commit: cloned.commit, branch: cloned.branch });
  a.log.info("analyzing", { commit: cloned.commit });
  const progress = new AnalysisProgress(db, a.scan.id);
  const analyzerRun = analyzerOptions(a);
  const analysis = await runAnalyzers({
    ...analyzerRun,
    dir: checkout,
    // With the cache, a commit this project already analysed (same analyzers and
    // versions) gets that analysis back instead of a second run.
    ...(cache && blobs ? { cache, blobs, commit: cloned.commit } : {}),
    // Kept per organization and project on this worker (cppcheck's incremental build
    // directory); outside the scan-* workspaces, which are swept.
    stateDir,
    onProgress: (pct) => progress.report(pct),
  });
  a.signal.throwIfAborted();
  a.lap("analyze_ms");
  const diff = await diffWithBase(a, cloned, analysis, { analyzerRun, cache, lastPct: progress.last });
  const aiLabels = await triage(a, checkout, analysis, cloned.commit, cache, blobs);
  a.lap("triage_ms");
  return { ...analysis, aiLabels, lineMaps: cloned.lineMaps, diff };
}

function projectCache(db: Db, scan: Scan): PgAnalysisCache {
  return new PgAnalysisCache(db, { organizationId: scan.organization_id, projectId: scan.project_id });
}

function cloneForScan(a: ScanAttempt, dir: string, checkout: string, stateDir: string): Promise<CheckoutResult> {
  const { db, config } = a.deps;
  const scan = a.scan;
  return checkoutRepository({
    gitUri: scan.git_uri,
    ...(scan.requested_branch ? { branch: scan.requested_branch } : {}),
    dest: checkout,
    allowInsecure: a.allowInsecure,
    timeoutMs: config.scan.timeoutMs,
    maxRepoBytes: config.scan.maxRepoBytes,
    signal: a.signal,
    ...(a.publicScan ? {} : { stateDir }),
    // Diff-aware scans: the merge-base with the baseline, whose findings this commit's are
    // compared with (pull-request.ts); its files are checked out beside the commit's.
    ...(scan.baseline_commit ? { baseline: scan.baseline_commit, baselineDest: `${dir}/base` } : {}),
    // Where the earlier scans' lines are in this commit: how findings keep their identity
    // (and so their triage). Public scans have no triage: no extra fetch for them.
    ...(a.publicScan
      ? {}
      : {
          references: (_commit: string, branch: string) =>
            referenceCommits(db, scan.organization_id, scan.project_id, branch, scan.id).catch(() => []),
        }),
  });
}

/** The options of both analyses of a scan (the commit's and its merge-base's). */
function analyzerOptions(a: ScanAttempt) {
  const { config } = a.deps;
  return {
    timeoutMs: config.scan.analyzerTimeoutMs,
    maxOutputBytes: config.scan.analyzerMaxOutputBytes,
    signal: a.signal,
    ...(a.deps.analyzers ? { analyzers: a.deps.analyzers } : {}),
    ...(config.scan.analyzerThreads > 0 ? { threads: config.scan.analyzerThreads } : {}),
  } satisfies Partial<RunAnalyzersOptions>;
}

/** The analysis's progress, 30 to 85 %, written in steps of at least 5 points. */
class AnalysisProgress {
  private lastPct = 30;

  constructor(
    private readonly db: Db,
    private readonly scanId: string,
  ) {}

  get last(): number {
    return this.lastPct;
  }

  report(pct: number): void {
    const next = 30 + Math.round(pct * 0.55);
    if (next >= this.lastPct + 5) {
      this.lastPct = next;
      void updateProgress(this.db, this.scanId, { progress: next }).catch(() => undefined);
    }
  }
}

/** A diff-aware scan's comparison with its merge-base; undefined for other scans. */
async function diffWithBase(
  a: ScanAttempt,
  cloned: CheckoutResult,
  analysis: RunAnalyzersResult,
  run: { analyzerRun: ReturnType<typeof analyzerOptions>; cache: PgAnalysisCache | undefined; lastPct: number },
): Promise<ScanDiff | undefined> {
  if (!cloned.base?.dir) return undefined;
  await updateProgress(a.deps.db, a.scan.id, { progress: Math.max(run.lastPct, 80) });
  // The merge-base's stored analysis when the project has one, else an analysis of its files.
  const before = await runAnalyzers({
    ...run.analyzerRun,
    dir: cloned.base.dir,
    ...(run.cache ? { cache: run.cache, blobs: cloned.base.blobs, commit: cloned.base.mergeBase } : {}),
  });
  a.signal.throwIfAborted();
  const diff = compareWithBase(cloned.base, cloned.commit, analysis, before);
  a.lap("base_ms");
  return diff;
}

/** The review model's labels of the findings, with auto-triage on; kept for a later scan of the commit. */
async function triage(
  a: ScanAttempt,
  checkout: string,
  analysis: RunAnalyzersResult,
  commit: string,
  cache: PgAnalysisCache | undefined,
  blobs: ReadonlyMap<string, string> | undefined,
): Promise<Map<string, AiLabel> | undefined> {
  if (!a.deps.config.ai.autoTriage) return undefined;
  try {
    const model = a.deps.reviewModel ?? defaultReviewModel();
    const labels = await labelsFor(checkout, analysis.findings, model, cache && blobs ? { cache, blobs } : undefined, a.signal);
    if (cache) await keepCommitLabels(cache, model, commit, labels);
    // The model's labels are kept; the organization's own triage moves them (org-learning.ts).
    const stats = await orgStatsFor(a.deps.db, a.scan, { publicScan: a.publicScan, log: a.log });
    return adjustLabels(labels, analysis.findings, stats, model);
  } catch (err) {
    if (a.signal.aborted) throw err;
    // A label is advice: a scan never fails for want of one.
    a.log.warn("auto-triage failed; findings stored without AI labels", { error: err });
    return undefined;
  }
}

/**
 * The stored analysis of the commit the scan would clone, when the project has one for
 * these analyzers (and, with auto-triage, the model's labels of it); null otherwise, for
 * diff-aware scans, whose introduced lines need the clone, and when an earlier scan to match
 * findings to is of another commit (the line mapping needs the clone).
 */
export async function earlierAnalysis(a: ScanAttempt): Promise<ScanAnalysis | null> {
  const { config, db } = a.deps;
  const scan = a.scan;
  if (!config.scan.analysisCache || scan.baseline_commit) return null;
  const remote = await remoteCommit({
    gitUri: scan.git_uri,
    ...(scan.requested_branch ? { branch: scan.requested_branch } : {}),
    allowInsecure: a.allowInsecure,
    timeoutMs: config.scan.timeoutMs,
    signal: a.signal,
  }).catch(() => null);
  if (!remote) return null;
  // Findings are matched to the earlier scans' through git's line mapping, which needs the
  // clone unless every reference is of this very commit (a rescan, a branch at the same commit).
  // (Other branches' references serve only what the branch's own leave unmatched: none, when
  // the branch's last scan is of this commit; on a branch's first scan they are all there is.)
  const references = await referenceCommits(db, scan.organization_id, scan.project_id, remote.branch, scan.id);
  const own = references.filter((r) => r.sameBranch);
  if ((own.length > 0 ? own : references).some((r) => r.commit !== remote.commit)) return null;
  const cache = projectCache(db, scan);
  const analysis = await reusableScanResult(cache, a.deps.analyzers ?? defaultAnalyzers(), remote.commit);
  if (!analysis) return null;
  let aiLabels: Map<string, AiLabel> | undefined;
  if (config.ai.autoTriage) {
    const model = a.deps.reviewModel ?? defaultReviewModel();
    const kept = await keptCommitLabels(cache, model, remote.commit, analysis.findings);
    if (!kept) return null;
    const stats = await orgStatsFor(db, scan, { publicScan: a.publicScan, log: a.log });
    aiLabels = adjustLabels(kept, analysis.findings, stats, model);
  }
  await updateProgress(db, scan.id, { phase: "analyzing", progress: 30, commit: remote.commit, branch: remote.branch });
  return { ...analysis, aiLabels, lineMaps: [], diff: undefined };
}

import type { Config } from "@ax/config";
import type { JobData, ScanDiff } from "@ax/contracts";
import {
  PgAnalysisCache,
  failScan,
  referenceCommits,
  getScanForJob,
  getState,
  isPublicOrganization,
  markRunning,
  requeueScan,
  storeScanResults,
  updateProgress,
  type Db,
  type Scan,
} from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";
import { defaultReviewModel, type ReviewModel } from "@ax/ai/review";
import { keepCommitLabels, keptCommitLabels, labelsFor, type AiLabel } from "./auto-triage";
import { emitWebhookEvent, scanEndedEvent } from "@ax/events";
import { projectStateDir } from "./project-state";
import { compareWithBase } from "./pull-request";
import {
  checkoutRepository,
  defaultAnalyzers,
  remoteCommit,
  reusableScanResult,
  runAnalyzers,
  ScanInputError,
  ScanTimeoutError,
  withWorkspace,
  type AnalysisCache,
  type Analyzer,
} from "@ax/scanner";

export interface ScanDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** The analyzers to run (built once per worker from the config); default: the registry's. */
  analyzers?: Analyzer[];
  /** The review model for auto-triage (loaded once per worker); default: the shipped one. */
  reviewModel?: ReviewModel;
  /** Where webhook deliveries are enqueued; absent, they wait for the reconciler. */
  queue?: JobQueue;
}

/**
 * Emits scan.completed or scan.failed after the write that ended the scan. Only the caller
 * whose write moved the scan out of queued/running gets here (the writes are guarded), and
 * the event id is derived from the scan, so a scan's ending is delivered once.
 */
export async function emitScanEnded(deps: ScanDeps, scanId: string, organizationId: string): Promise<void> {
  const scan = await getScanForJob(deps.db, organizationId, scanId).catch(() => undefined);
  if (scan && (scan.state === "completed" || scan.state === "failed")) await emitWebhookEvent(deps, scanEndedEvent(scan));
}

export interface AttemptInfo {
  /** 1-based number of this try. */
  attempt: number;
  maxAttempts: number;
}

export type ScanOutcome = "completed" | "discarded" | "failed" | "retry";

/** Thrown for a failure that another try cannot fix; the queue must not retry it. */
export class PermanentScanError extends Error {}

const CANCEL_POLL_MS = 1_000;

/**
 * Runs one scan job: clone, analyze, store. A scan ends exactly once in PostgreSQL: every
 * write checks that the scan is still running, so a scan cancelled or deleted (group hard
 * delete) meanwhile stops early and its results are discarded without error.
 */
export async function processScan(deps: ScanDeps, data: JobData<"scan.run">, info: AttemptInfo): Promise<ScanOutcome> {
  const { db, config } = deps;
  const log = deps.logger.child({ scan_id: data.scan_id, request_id: data.request_id, attempt: info.attempt });
  const scan = await getScanForJob(db, data.organization_id, data.scan_id);
  if (!scan || !["queued", "running"].includes(scan.state)) {
    log.info("scan no longer needs running", { state: scan?.state ?? "deleted" });
    return "discarded";
  }
  // Anonymous callers never get the insecure policy that a deployment may grant its members
  // (ALLOW_INSECURE_GIT_URLS skips the internal-address check after DNS resolution).
  const publicScan = await isPublicOrganization(db, scan.organization_id);
  const allowInsecure = publicScan ? config.publicScan.allowInsecure : config.scan.allowInsecureGitUrls;
  const running = await markRunning(db, scan.id);
  if (!running) return "discarded";

  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new ScanTimeoutError(`Scan exceeded the time limit of ${Math.round(config.scan.timeoutMs / 1000)} s.`)),
    config.scan.timeoutMs,
  );
  const poll = setInterval(() => {
    getState(db, scan.id)
      .then((state) => {
        if (state !== "running") abort.abort(new StoppedError(state ?? "deleted"));
      })
      .catch(() => undefined);
  }, CANCEL_POLL_MS);

  // Wall time of each phase, logged with the completion (docs/performance.md reads them).
  const phases: Record<string, number> = {};
  let mark = performance.now();
  const lap = (phase: string) => {
    const now = performance.now();
    phases[phase] = Math.round(now - mark);
    mark = now;
  };
  try {
    // A commit this project has analysed already (same analyzers and versions): its
    // analysis and labels are taken as they are, without cloning.
    const earlier = await earlierAnalysis(deps, scan, allowInsecure, abort.signal);
    if (earlier) lap("reuse_ms");
    const result =
      earlier ??
      (await withWorkspace(config.worker.workspaceDir, async (dir) => {
        const checkout = `${dir}/src`;
        log.info("cloning");
        // Kept per organization and project on this worker, like the analyzers' state below. Not
        // the repository of a public scan: one-off projects would each keep a copy on disk.
        const stateDir = projectStateDir(config.worker.workspaceDir, scan.organization_id, scan.project_id);
        const cloned = await checkoutRepository({
          gitUri: scan.git_uri,
          ...(scan.requested_branch ? { branch: scan.requested_branch } : {}),
          dest: checkout,
          allowInsecure,
          timeoutMs: config.scan.timeoutMs,
          maxRepoBytes: config.scan.maxRepoBytes,
          signal: abort.signal,
          ...(publicScan ? {} : { stateDir }),
          // Diff-aware scans: the merge-base with the baseline, whose findings this commit's are
          // compared with (pull-request.ts); its files are checked out beside the commit's.
          ...(scan.baseline_commit ? { baseline: scan.baseline_commit, baselineDest: `${dir}/base` } : {}),
          // Where the earlier scans' lines are in this commit: how findings keep their identity
          // (and so their triage). Public scans have no triage: no extra fetch for them.
          ...(publicScan
            ? {}
            : {
                references: (_commit: string, branch: string) =>
                  referenceCommits(db, scan.organization_id, scan.project_id, branch, scan.id).catch(() => []),
              }),
        });
        const blobs = config.scan.analysisCache ? cloned.blobs : undefined;
        const cache: AnalysisCache | undefined = config.scan.analysisCache
          ? new PgAnalysisCache(db, { organizationId: scan.organization_id, projectId: scan.project_id })
          : undefined;
        lap("clone_ms");
        await updateProgress(db, scan.id, { phase: "analyzing", progress: 30, commit: cloned.commit, branch: cloned.branch });
        log.info("analyzing", { commit: cloned.commit });
        let lastPct = 30;
        const analyzerRun = {
          timeoutMs: config.scan.analyzerTimeoutMs,
          maxOutputBytes: config.scan.analyzerMaxOutputBytes,
          signal: abort.signal,
          ...(deps.analyzers ? { analyzers: deps.analyzers } : {}),
          ...(config.scan.analyzerThreads > 0 ? { threads: config.scan.analyzerThreads } : {}),
        };
        const analysis = await runAnalyzers({
          ...analyzerRun,
          dir: checkout,
          // With the cache, a commit this project already analysed (same analyzers and
          // versions) gets that analysis back instead of a second run.
          ...(cache && blobs ? { cache, blobs, commit: cloned.commit } : {}),
          // Kept per organization and project on this worker (cppcheck's incremental build
          // directory); outside the scan-* workspaces, which are swept.
          stateDir,
          onProgress: (pct) => {
            const next = 30 + Math.round(pct * 0.55);
            if (next >= lastPct + 5) {
              lastPct = next;
              void updateProgress(db, scan.id, { progress: next }).catch(() => undefined);
            }
          },
        });
        abort.signal.throwIfAborted();
        lap("analyze_ms");
        let diff: ScanDiff | undefined;
        if (cloned.base?.dir) {
          await updateProgress(db, scan.id, { progress: Math.max(lastPct, 80) });
          // The merge-base's stored analysis when the project has one, else an analysis of its files.
          const before = await runAnalyzers({
            ...analyzerRun,
            dir: cloned.base.dir,
            ...(cache ? { cache, blobs: cloned.base.blobs, commit: cloned.base.mergeBase } : {}),
          });
          abort.signal.throwIfAborted();
          diff = compareWithBase(cloned.base, cloned.commit, analysis, before);
          lap("base_ms");
        }
        let aiLabels: Map<string, AiLabel> | undefined;
        if (config.ai.autoTriage) {
          try {
            const model = deps.reviewModel ?? defaultReviewModel();
            aiLabels = await labelsFor(checkout, analysis.findings, model, cache && blobs ? { cache, blobs } : undefined, abort.signal);
            if (cache) await keepCommitLabels(cache, model, cloned.commit, aiLabels);
          } catch (err) {
            if (abort.signal.aborted) throw err;
            // A label is advice: a scan never fails for want of one.
            log.warn("auto-triage failed; findings stored without AI labels", { error: err });
          }
        }
        lap("triage_ms");
        return { ...analysis, aiLabels, lineMaps: cloned.lineMaps, diff };
      }));
    lap("cleanup_ms");

    await updateProgress(db, scan.id, { phase: "storing", progress: 90, languages: result.languages });
    const stored = await storeScanResults(db, {
      scanId: scan.id,
      projectId: scan.project_id,
      organizationId: scan.organization_id,
      findings: result.findings,
      analyzers: result.analyzers,
      languages: result.languages,
      lineMaps: result.lineMaps,
      ...(result.diff ? { diff: result.diff } : {}),
      selection: { ...result.selection },
      ...(result.aiLabels ? { aiLabels: result.aiLabels } : {}),
    });
    if (!stored.stored) {
      log.info("scan stopped before its results were stored; discarded");
      return "discarded";
    }
    lap("store_ms");
    log.info("scan completed", { counts: stored.counts, phases_ms: phases });
    await emitScanEnded(deps, scan.id, scan.organization_id);
    return "completed";
  } catch (err) {
    const reason = abort.signal.aborted ? abort.signal.reason : err;
    if (reason instanceof StoppedError) {
      log.info("scan stopped", { state: reason.state });
      return "discarded";
    }
    if (reason instanceof ScanInputError || reason instanceof ScanTimeoutError) {
      if (await failScan(db, scan.id, reason.message)) await emitScanEnded(deps, scan.id, scan.organization_id);
      log.warn("scan failed", { reason: reason.message });
      throw new PermanentScanError(reason.message);
    }
    // Not the error itself: a git failure's message is git's stderr, server-provided lines and all.
    log.error("scan attempt failed", { error: errorSummary(err) });
    if (info.attempt >= info.maxAttempts) {
      if (await failScan(db, scan.id, `Scan failed after ${info.attempt} attempt(s): an internal error occurred. Reference: ${scan.id}.`)) {
        await emitScanEnded(deps, scan.id, scan.organization_id);
      }
      throw new PermanentScanError("attempts exhausted");
    }
    await requeueScan(db, scan.id);
    return "retry";
  } finally {
    clearTimeout(timer);
    clearInterval(poll);
  }
}

/** Longest error message logged for a failed attempt. */
const MAX_LOGGED_ERROR = 300;

/**
 * An error as logged for a failed attempt: its name and its first lines, without what a git
 * server wrote ("remote: …" lines: progress, banners, anything), at most MAX_LOGGED_ERROR characters.
 */
function errorSummary(err: unknown): { name: string; message: string } {
  const name = err instanceof Error ? err.name : typeof err;
  const lines = (err instanceof Error ? err.message : String(err)).split(/[\r\n]+/).map((l) => l.trim());
  const message = lines.filter((l) => l !== "" && !/^remote:/i.test(l)).join(" | ");
  return { name, message: message.length > MAX_LOGGED_ERROR ? `${message.slice(0, MAX_LOGGED_ERROR - 1)}…` : message };
}

class StoppedError extends Error {
  constructor(readonly state: string) {
    super(`scan is ${state}`);
  }
}

/**
 * The stored analysis of the commit the scan would clone, when the project has one for
 * these analyzers (and, with auto-triage, the model's labels of it); null otherwise, for
 * diff-aware scans, whose introduced lines need the clone, and when an earlier scan to match
 * findings to is of another commit (the line mapping needs the clone).
 */
async function earlierAnalysis(deps: ScanDeps, scan: Scan, allowInsecure: boolean, signal: AbortSignal) {
  const { config, db } = deps;
  if (!config.scan.analysisCache || scan.baseline_commit) return null;
  const remote = await remoteCommit({
    gitUri: scan.git_uri,
    ...(scan.requested_branch ? { branch: scan.requested_branch } : {}),
    allowInsecure,
    timeoutMs: config.scan.timeoutMs,
    signal,
  }).catch(() => null);
  if (!remote) return null;
  // Findings are matched to the earlier scans' through git's line mapping, which needs the
  // clone unless every reference is of this very commit (a rescan, a branch at the same commit).
  // (Other branches' references serve only what the branch's own leave unmatched: none, when
  // the branch's last scan is of this commit; on a branch's first scan they are all there is.)
  const references = await referenceCommits(db, scan.organization_id, scan.project_id, remote.branch, scan.id);
  const own = references.filter((r) => r.sameBranch);
  if ((own.length > 0 ? own : references).some((r) => r.commit !== remote.commit)) return null;
  const cache = new PgAnalysisCache(db, { organizationId: scan.organization_id, projectId: scan.project_id });
  const analysis = await reusableScanResult(cache, deps.analyzers ?? defaultAnalyzers(), remote.commit);
  if (!analysis) return null;
  let aiLabels: Map<string, AiLabel> | undefined;
  if (config.ai.autoTriage) {
    const model = deps.reviewModel ?? defaultReviewModel();
    aiLabels = await keptCommitLabels(cache, model, remote.commit, analysis.findings);
    if (!aiLabels) return null;
  }
  await updateProgress(db, scan.id, { phase: "analyzing", progress: 30, commit: remote.commit, branch: remote.branch });
  return { ...analysis, aiLabels, lineMaps: [], diff: undefined };
}

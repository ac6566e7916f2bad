import type { JobData } from "@ax/contracts";
import {
  failScan,
  getScanForJob,
  getState,
  isPublicOrganization,
  markRunning,
  requeueScan,
  storeScanResults,
  updateProgress,
  type Db,
} from "@ax/db";
import { emitWebhookEvent, scanEndedEvent } from "@ax/events";
import { ScanInputError, ScanTimeoutError, withWorkspace } from "@ax/scanner";
import { analyzeInWorkspace, earlierAnalysis, type ScanAnalysis, type ScanAttempt } from "./analyze-scan";
import type { ScanDeps } from "./scan-deps";

export type { ScanDeps } from "./scan-deps";

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

  const limits = new ScanLimits(db, scan.id, config.scan.timeoutMs);
  const clock = new PhaseClock();
  const attempt: ScanAttempt = { deps, scan, log, publicScan, allowInsecure, signal: limits.signal, lap: (phase) => clock.lap(phase) };
  try {
    // A commit this project has analysed already (same analyzers and versions): its
    // analysis and labels are taken as they are, without cloning.
    const earlier = await earlierAnalysis(attempt);
    if (earlier) clock.lap("reuse_ms");
    const result = earlier ?? (await withWorkspace(config.worker.workspaceDir, (dir) => analyzeInWorkspace(attempt, dir)));
    clock.lap("cleanup_ms");
    return await storeAnalysis(attempt, result, clock);
  } catch (err) {
    return await attemptFailed(attempt, info, limits.signal.aborted ? limits.signal.reason : err, err);
  } finally {
    limits.stop();
  }
}

/** The scan's time limit and the poll that notices a cancel or a delete: both abort `signal`. */
class ScanLimits {
  private readonly abort = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly poll: NodeJS.Timeout;

  constructor(db: Db, scanId: string, timeoutMs: number) {
    const abort = this.abort;
    this.timer = setTimeout(
      () => abort.abort(new ScanTimeoutError(`Scan exceeded the time limit of ${Math.round(timeoutMs / 1000)} s.`)),
      timeoutMs,
    );
    this.poll = setInterval(() => {
      getState(db, scanId)
        .then((state) => {
          if (state !== "running") abort.abort(new StoppedError(state ?? "deleted"));
        })
        .catch(() => undefined);
    }, CANCEL_POLL_MS);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.poll);
  }
}

/** Wall time of each phase, logged with the completion (docs/performance.md reads them). */
class PhaseClock {
  readonly phases: Record<string, number> = {};
  private mark = performance.now();

  lap(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round(now - this.mark);
    this.mark = now;
  }
}

/** Stores the analysis, unless the scan stopped meanwhile, and emits scan.completed. */
async function storeAnalysis(a: ScanAttempt, result: ScanAnalysis, clock: PhaseClock): Promise<ScanOutcome> {
  const { db } = a.deps;
  const scan = a.scan;
  await updateProgress(db, scan.id, { phase: "storing", progress: 90, languages: result.languages });
  const stored = await storeScanResults(db, {
    scanId: scan.id,
    projectId: scan.project_id,
    organizationId: scan.organization_id,
    findings: result.findings,
    refuted: result.refuted ?? [],
    analyzers: result.analyzers,
    languages: result.languages,
    lineMaps: result.lineMaps,
    ...(result.diff ? { diff: result.diff } : {}),
    selection: { ...result.selection },
    ...(result.aiLabels ? { aiLabels: result.aiLabels } : {}),
  });
  if (!stored.stored) {
    a.log.info("scan stopped before its results were stored; discarded");
    return "discarded";
  }
  clock.lap("store_ms");
  a.log.info("scan completed", { counts: stored.counts, phases_ms: clock.phases });
  await emitScanEnded(a.deps, scan.id, scan.organization_id);
  return "completed";
}

/**
 * The end of an attempt that threw: `reason` is why the scan's signal fired, if it did, else
 * the error. A stopped scan is discarded; bad input or the time limit fails it for good;
 * anything else is retried until the attempts run out.
 */
async function attemptFailed(a: ScanAttempt, info: AttemptInfo, reason: unknown, err: unknown): Promise<ScanOutcome> {
  const { db } = a.deps;
  const scan = a.scan;
  if (reason instanceof StoppedError) {
    a.log.info("scan stopped", { state: reason.state });
    return "discarded";
  }
  if (reason instanceof ScanInputError || reason instanceof ScanTimeoutError) {
    if (await failScan(db, scan.id, reason.message)) await emitScanEnded(a.deps, scan.id, scan.organization_id);
    a.log.warn("scan failed", { reason: reason.message });
    throw new PermanentScanError(reason.message);
  }
  // Not the error itself: a git failure's message is git's stderr, server-provided lines and all.
  a.log.error("scan attempt failed", { error: errorSummary(err) });
  if (info.attempt >= info.maxAttempts) {
    if (await failScan(db, scan.id, `Scan failed after ${info.attempt} attempt(s): an internal error occurred. Reference: ${scan.id}.`)) {
      await emitScanEnded(a.deps, scan.id, scan.organization_id);
    }
    throw new PermanentScanError("attempts exhausted");
  }
  await requeueScan(db, scan.id);
  return "retry";
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

import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import type { Config } from "@ax/config";
import type { JobData, NormalizedFinding } from "@ax/contracts";
import { PgAnalysisCache, failScan, getScanForJob, getState, isPublicOrganization, markRunning, requeueScan, storeScanResults, updateProgress, type Db, type Scan } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { JobQueue } from "@ax/queue";
import { defaultReviewModel, type ReviewModel } from "@ax/ai/review";
import { labelFindings, type AiLabel } from "./auto-triage";
import { emitWebhookEvent, scanEndedEvent } from "./webhooks/events";
import { changedSince, cloneRepository, defaultAnalyzers, isIntroduced, remoteCommit, reusableScanResult, listBlobs, runAnalyzers, ScanInputError, ScanTimeoutError, withWorkspace, type AnalysisCache, type Analyzer } from "@ax/scanner";

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
  const allowInsecure = (await isPublicOrganization(db, scan.organization_id)) ? config.publicScan.allowInsecure : config.scan.allowInsecureGitUrls;
  const running = await markRunning(db, scan.id);
  if (!running) return "discarded";

  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new ScanTimeoutError(`Scan exceeded the time limit of ${Math.round(config.scan.timeoutMs / 1000)} s.`)), config.scan.timeoutMs);
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
    // A commit this organization has analysed already (same analyzers and versions): its
    // analysis and labels are taken as they are, without cloning.
    const earlier = await earlierAnalysis(deps, scan, allowInsecure, abort.signal);
    if (earlier) lap("reuse_ms");
    const result = earlier ?? await withWorkspace(config.worker.workspaceDir, async (dir) => {
      const checkout = `${dir}/src`;
      log.info("cloning");
      const cloned = await cloneRepository({
        gitUri: scan.git_uri,
        ...(scan.requested_branch ? { branch: scan.requested_branch } : {}),
        dest: checkout,
        allowInsecure,
        timeoutMs: config.scan.timeoutMs,
        maxRepoBytes: config.scan.maxRepoBytes,
        signal: abort.signal,
      });
      // Diff-aware scans: what changed since the baseline decides which findings are new.
      const changed = scan.baseline_commit
        ? await changedSince(checkout, scan.baseline_commit, { allowInsecure, signal: abort.signal })
        : null;
      const blobs = config.scan.analysisCache ? await listBlobs(checkout, { signal: abort.signal }) : undefined;
      const cache: AnalysisCache | undefined = config.scan.analysisCache ? new PgAnalysisCache(db, scan.organization_id) : undefined;
      lap("clone_ms");
      await updateProgress(db, scan.id, { phase: "analyzing", progress: 30, commit: cloned.commit, branch: cloned.branch });
      log.info("analyzing", { commit: cloned.commit });
      let lastPct = 30;
      const analysis = await runAnalyzers({
        dir: checkout,
        timeoutMs: config.scan.analyzerTimeoutMs,
        maxOutputBytes: config.scan.analyzerMaxOutputBytes,
        signal: abort.signal,
        // With the cache, a commit this organization already analysed (same analyzers and
        // versions) gets that analysis back instead of a second run.
        ...(cache && blobs ? { cache, blobs, commit: cloned.commit } : {}),
        ...(deps.analyzers ? { analyzers: deps.analyzers } : {}),
        // Kept per organization and project on this worker (cppcheck's incremental build
        // directory); outside the scan-* workspaces, which are swept.
        stateDir: join(config.worker.workspaceDir, ".analyzer-state", scan.organization_id, scan.project_id),
        ...(config.scan.analyzerThreads > 0 ? { threads: config.scan.analyzerThreads } : {}),
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
      if (changed) for (const f of analysis.findings) f.introduced = isIntroduced(changed, f.file, f.start_line, f.end_line);
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
      return { ...analysis, aiLabels };
    });
    lap("cleanup_ms");

    await updateProgress(db, scan.id, { phase: "storing", progress: 90, languages: result.languages });
    const stored = await storeScanResults(db, {
      scanId: scan.id,
      projectId: scan.project_id,
      organizationId: scan.organization_id,
      findings: result.findings,
      analyzers: result.analyzers,
      languages: result.languages,
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
    log.error("scan attempt failed", { error: err });
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

class StoppedError extends Error {
  constructor(readonly state: string) {
    super(`scan is ${state}`);
  }
}

const AI_LABEL = "ai-label";
const AI_COMMIT_LABELS = "ai-labels";
const modelDigests = new WeakMap<ReviewModel, string>();

function modelDigest(model: ReviewModel): string {
  let digest = modelDigests.get(model);
  if (!digest) {
    digest = createHash("sha256").update(JSON.stringify(model.artifact)).digest("hex");
    modelDigests.set(model, digest);
  }
  return digest;
}

/** The labels of a whole commit's findings, for a later scan of the same commit that does not clone. */
async function keepCommitLabels(cache: AnalysisCache, model: ReviewModel, commit: string, labels: ReadonlyMap<string, AiLabel>): Promise<void> {
  await cache.put(AI_COMMIT_LABELS, modelDigest(model), new Map([[commit, [Object.fromEntries(labels) as never]]])).catch(() => undefined);
}

/**
 * The stored analysis of the commit the scan would clone, when the organization has one for
 * these analyzers (and, with auto-triage, the model's labels of it); null otherwise, and for
 * diff-aware scans, whose introduced lines need the clone.
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
  const cache = new PgAnalysisCache(db, scan.organization_id);
  const analysis = await reusableScanResult(cache, deps.analyzers ?? defaultAnalyzers(), remote.commit);
  if (!analysis) return null;
  let aiLabels: Map<string, AiLabel> | undefined;
  if (config.ai.autoTriage) {
    const model = deps.reviewModel ?? defaultReviewModel();
    const kept = (await cache.get(AI_COMMIT_LABELS, modelDigest(model), [remote.commit]).catch(() => undefined))?.get(remote.commit)?.[0] as unknown as Record<string, AiLabel> | undefined;
    if (!kept || !analysis.findings.every((f) => Object.hasOwn(kept, f.fingerprint))) return null;
    aiLabels = new Map(analysis.findings.map((f) => [f.fingerprint, kept[f.fingerprint] as AiLabel]));
  }
  await updateProgress(db, scan.id, { phase: "analyzing", progress: 30, commit: remote.commit, branch: remote.branch });
  return { ...analysis, aiLabels };
}

/**
 * The review model's labels for the findings. A label depends on the model, the finding and
 * the code of the finding's directory (its function, callers and callees are looked up
 * there): each is kept in the organization's analysis cache under a digest of exactly that —
 * model, finding, and the blob ids of every file in its directory — and only findings without
 * one are labelled. Without the cache (or blob ids) every finding is labelled.
 */
async function labelsFor(
  checkout: string,
  findings: readonly NormalizedFinding[],
  model: ReviewModel,
  kept: { cache: AnalysisCache; blobs: ReadonlyMap<string, string> } | undefined,
  signal: AbortSignal,
): Promise<Map<string, AiLabel>> {
  if (!kept) return labelFindings(checkout, findings, model, signal);
  const digest = modelDigest(model);
  const byDir = new Map<string, [string, string][]>();
  for (const [path, blob] of kept.blobs) {
    const d = dirname(path);
    const list = byDir.get(d) ?? [];
    list.push([path, blob]);
    byDir.set(d, list);
  }
  const dirDigests = new Map<string, string>();
  const dirDigest = (d: string) => {
    let v = dirDigests.get(d);
    if (v === undefined) {
      v = createHash("sha256").update(JSON.stringify((byDir.get(d) ?? []).sort((a, b) => (a[0] < b[0] ? -1 : 1)))).digest("hex");
      dirDigests.set(d, v);
    }
    return v;
  };
  // The first finding of each fingerprint is the one labelled (as labelFindings does).
  const first = new Map<string, { finding: NormalizedFinding; key: string | null }>();
  for (const f of findings) {
    if (first.has(f.fingerprint)) continue;
    const key = kept.blobs.has(f.file) ? createHash("sha256").update(JSON.stringify([f.fingerprint, f.file, f.start_line, f.end_line, f.cwe_id, f.snippet, dirDigest(dirname(f.file))])).digest("hex") : null;
    first.set(f.fingerprint, { finding: f, key });
  }
  const keys = [...first.values()].map((v) => v.key).filter((k): k is string => k !== null);
  const hits = await kept.cache.get(AI_LABEL, digest, keys).catch(() => new Map<string, unknown[]>());
  const labels = new Map<string, AiLabel>();
  const missing: NormalizedFinding[] = [];
  for (const [fp, { finding, key }] of first) {
    const hit = key ? (hits.get(key)?.[0] as AiLabel | undefined) : undefined;
    if (hit) labels.set(fp, hit);
    else missing.push(finding);
  }
  if (missing.length === 0) return labels;
  const fresh = await labelFindings(checkout, missing, model, signal);
  const entries = new Map<string, AiLabel[]>();
  for (const [fp, label] of fresh) {
    labels.set(fp, label);
    const key = first.get(fp)?.key;
    if (key) entries.set(key, [label]);
  }
  await kept.cache.put(AI_LABEL, digest, entries as never).catch(() => undefined);
  // In the findings' order, as labelFindings returns them.
  return new Map(findings.filter((f) => labels.has(f.fingerprint)).map((f) => [f.fingerprint, labels.get(f.fingerprint) as AiLabel]));
}

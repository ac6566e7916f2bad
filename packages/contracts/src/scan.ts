import { z } from "zod";
import { bodyObject } from "./body";

export const SCAN_STATES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type ScanState = (typeof SCAN_STATES)[number];
export const SCAN_PHASES = ["cloning", "analyzing", "storing"] as const;
export type ScanPhase = (typeof SCAN_PHASES)[number];
export const TERMINAL_STATES: readonly ScanState[] = ["completed", "failed", "cancelled"];

/** A git ref name as git check-ref-format would accept it, minus anything option-like. */
export const BranchName = z
  .string({ error: "branch must be a string." })
  .min(1, { message: "branch must not be empty." })
  .max(255, { message: "branch must be at most 255 characters." })
  .refine(
    (b) =>
      !b.startsWith("-") &&
      !b.startsWith("/") &&
      !b.endsWith("/") &&
      !b.endsWith(".lock") &&
      !b.endsWith(".") &&
      !b.includes("..") &&
      !b.includes("@{") &&
      !b.includes("//") &&
      // eslint-disable-next-line no-control-regex
      !/[\u0000-\u0020\u007f~^:?*[\\]/.test(b),
    { message: "branch is not a valid git branch name." },
  );

/** Body of POST /scan (spec §4.5). The URL policy is applied by the route, which knows the config. */
export const ScanCreateBody = bodyObject({
  git_uri: z
    .string({ error: "git_uri is required and must be a string." })
    .max(2048, { message: "git_uri must be at most 2048 characters." }),
  branch: BranchName.optional(),
  // Optional (added with diff-aware scans): older clients never send it.
  baseline_commit: z
    .string({ error: "baseline_commit must be a string." })
    .regex(/^([0-9a-f]{40}|[0-9a-f]{64})$/i, { message: "baseline_commit must be a full commit id (40 or 64 hexadecimal characters)." })
    .transform((v) => v.toLowerCase())
    .optional(),
});
export type ScanCreateBody = z.infer<typeof ScanCreateBody>;

/** Body of POST /public/scan: a repository and branch only (no diff-aware scans for anonymous callers). */
export const PublicScanCreateBody = bodyObject({
  git_uri: ScanCreateBody.shape.git_uri,
  branch: BranchName.optional(),
});
export type PublicScanCreateBody = z.infer<typeof PublicScanCreateBody>;

/** A finding of the merge-base that a diff-aware scan's commit no longer has: what the pull request fixes. */
export interface ScanDiffFixed {
  rule_id: string;
  title: string;
  severity: string;
  cwe_id: string | null;
  /** Where it was, in the merge-base. */
  file: string;
  start_line: number;
}

/**
 * What a diff-aware scan compared its commit with: the baseline asked for, the merge-base the
 * comparison ran from, and the merge-base's findings this commit no longer has (at most
 * SCAN_DIFF_FIXED_MAX listed; `fixed_total` counts them all).
 */
export interface ScanDiff {
  baseline_commit: string;
  merge_base: string;
  fixed_total: number;
  fixed: ScanDiffFixed[];
}
export const SCAN_DIFF_FIXED_MAX = 1000;

export interface AnalyzerRun {
  name: string;
  version: string | null;
  status: "completed" | "skipped" | "failed" | "timeout";
  notice?: string;
  duration_ms: number;
  findings: number;
  /** Files the analyzer was given, and how many of them came from the cache instead. */
  files?: number;
  cached_files?: number;
}

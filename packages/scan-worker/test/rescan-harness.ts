/**
 * The two scans rescan-property.test.ts compares after every step: the worker's job handler on
 * a project that keeps everything it may (kept clone, analysis cache, whole-scan results, the
 * dataflow thread), and beside it a scan that reuses nothing (rescan-fresh-scan.ts, a process
 * of its own). Check 1 is their difference on what analyzers report.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Config } from "@ax/config";
import type { NormalizedFinding } from "@ax/contracts";
import { createScan, findOrCreateProject, type Db } from "@ax/db";
import { createLogger } from "@ax/logger";
import type { TestStack } from "@ax/testkit";
import { processScan } from "../src/process-scan";
import type { FreshScanInput } from "./rescan-fresh-scan";

const logger = createLogger({ level: "error", format: "json", silent: true });

/** What an analyzer reports of a finding: check 1 compares these, never the reviewers' fields. */
const REPORTED = [
  "analyzer",
  "rule_id",
  "file",
  "start_line",
  "end_line",
  "start_column",
  "end_column",
  "snippet",
  "cwe_id",
  "suppression",
] as const;
const reportedOf = (f: Record<(typeof REPORTED)[number], unknown>) => JSON.stringify(REPORTED.map((k) => f[k] ?? null));

const FRESH_SCAN = fileURLToPath(new URL("./rescan-fresh-scan.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const execFileAsync = promisify(execFile);

async function freshScan(
  config: Config,
  gitUri: string,
  branch: string | null,
): Promise<{ commit: string; findings: NormalizedFinding[] }> {
  const { scan } = config;
  const input: FreshScanInput = {
    gitUri,
    ...(branch ? { branch } : {}),
    timeoutMs: scan.timeoutMs,
    maxRepoBytes: scan.maxRepoBytes,
    analyzerTimeoutMs: scan.analyzerTimeoutMs,
    maxOutputBytes: scan.analyzerMaxOutputBytes,
  };
  const { stdout } = await execFileAsync(process.execPath, ["--import", "tsx", FRESH_SCAN, JSON.stringify(input)], {
    cwd: ROOT,
    maxBuffer: 64 << 20,
    timeout: 180_000,
  });
  return JSON.parse(stdout) as { commit: string; findings: NormalizedFinding[] };
}

export interface Scanned {
  scanId: string;
  commit: string | null;
  rows: Awaited<ReturnType<typeof reportedRows>>;
  fresh: { commit: string; findings: NormalizedFinding[] };
}

/** The scan's reported findings: an `absent` row records a finding of the previous scan that is gone. */
function reportedRows(db: Db, scanId: string) {
  // In a fixed order: the triage picks from them, and a seed must replay the same picks.
  return db
    .selectFrom("findings")
    .selectAll()
    .where("scan_id", "=", scanId)
    .where("baseline_state", "!=", "absent")
    .orderBy("file")
    .orderBy("start_line")
    .orderBy("rule_id")
    .orderBy("start_column")
    .execute();
}

export async function newProject(stack: TestStack, gitUri: string): Promise<string> {
  const t = stack.tenant;
  return (
    await findOrCreateProject(stack.handle.db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: gitUri, name: "rescan" })
  ).id;
}

/** A scan job run by the worker's handler, and beside it the fresh scan of the same branch. */
export async function scanWithReference(stack: TestStack, gitUri: string, projectId: string, branch: string | null): Promise<Scanned> {
  const {
    tenant: t,
    handle: { db },
  } = stack;
  const ids = { organizationId: t.organization_id, groupId: t.group_id, projectId, createdBy: t.user_id };
  const { scan } = await createScan(db, { ...ids, gitUri, branch, idempotencyKey: null, requestHash: null });
  const [outcome, fresh] = await Promise.all([
    processScan(
      { db, config: stack.config, logger },
      { scan_id: scan.id, organization_id: scan.organization_id },
      { attempt: 1, maxAttempts: 1 },
    ),
    freshScan(stack.config, gitUri, branch),
  ]);
  const row = await db.selectFrom("scans").select(["state", "commit_sha", "error"]).where("id", "=", scan.id).executeTakeFirstOrThrow();
  if (outcome !== "completed" || row.state !== "completed")
    throw new Error(`scan ${scan.id} ended ${outcome}/${row.state}: ${row.error ?? ""}`);
  return { scanId: scan.id, commit: row.commit_sha, rows: await reportedRows(db, scan.id), fresh };
}

/** Check 1: "" when the scan reported what the fresh scan of `head` did, else the difference. */
export function commitMismatch(s: Scanned, head: string): string {
  const problems: string[] = [];
  if (s.commit !== head) problems.push(`scans.commit_sha is ${s.commit}, the branch head is ${head}`);
  if (s.fresh.commit !== head) problems.push(`the fresh clone got ${s.fresh.commit}, the branch head is ${head}`);
  const reported = s.rows.map((r) => reportedOf(r)).sort();
  const fresh = s.fresh.findings.map((f) => reportedOf(f as unknown as Record<(typeof REPORTED)[number], unknown>)).sort();
  const missing = without(fresh, reported);
  const extra = without(reported, fresh);
  for (const f of missing) problems.push(`  - only in the fresh scan: ${f}`);
  for (const f of extra) problems.push(`  + only in the scan: ${f}`);
  return problems.join("\n");
}
/** Multiset difference. */
function without(xs: string[], ys: string[]): string[] {
  const left = [...ys];
  return xs.filter((x) => {
    const i = left.indexOf(x);
    if (i === -1) return true;
    left.splice(i, 1);
    return false;
  });
}

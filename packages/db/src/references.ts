/**
 * The earlier scans a new scan's findings are matched to (docs/scanning.md "Finding identity
 * and triage"). Per analyzer: the latest completed scan of the same branch in which that
 * analyzer completed; without one, the latest such scan of any branch. So an analyzer that
 * failed on the branch's last scan is matched against the scan before it, where its findings
 * were seen, and a branch's first scan takes its identities from the project's other branches.
 * Only same-branch references can make a finding FIXED or `unchanged`.
 */
import type { AnalyzerRun } from "@ax/contracts";
import type { Db } from "./client";

/** How far back references are looked for. */
const CANDIDATES = 100;

export interface ReferenceScan {
  scanId: string;
  commit: string | null;
  sameBranch: boolean;
  /** The analyzers whose findings are taken from this scan. */
  analyzers: Set<string>;
}

export async function selectReferences(db: Db, projectId: string, branch: string | null, excludeScanId: string): Promise<ReferenceScan[]> {
  const candidates = await db
    .selectFrom("scans")
    .select(["id", "branch", "commit_sha", "analyzers"])
    .where("project_id", "=", projectId)
    .where("state", "=", "completed")
    .where("id", "!=", excludeScanId)
    .orderBy("finished_at", "desc")
    .orderBy("id", "desc")
    .limit(CANDIDATES)
    .execute();
  const completedIn = candidates.map((c) => new Set((c.analyzers as AnalyzerRun[]).filter((a) => a.status === "completed").map((a) => a.name)));
  const names = new Set(completedIn.flatMap((s) => [...s]));
  const refs = new Map<string, ReferenceScan>();
  for (const name of names) {
    let index = candidates.findIndex((c, i) => c.branch === branch && completedIn[i]?.has(name));
    if (index === -1) index = completedIn.findIndex((s) => s.has(name));
    const c = candidates[index];
    if (!c) continue;
    const ref = refs.get(c.id) ?? { scanId: c.id, commit: c.commit_sha, sameBranch: c.branch === branch, analyzers: new Set<string>() };
    ref.analyzers.add(name);
    refs.set(c.id, ref);
  }
  return [...refs.values()];
}

/** The commits whose line mapping to the new commit the store will want (asked by the worker at clone time). */
export async function referenceCommits(db: Db, projectId: string, branch: string, scanId: string): Promise<string[]> {
  const refs = await selectReferences(db, projectId, branch, scanId);
  return [...new Set(refs.map((r) => r.commit).filter((c): c is string => c !== null))];
}

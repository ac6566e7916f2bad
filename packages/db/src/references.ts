/**
 * The earlier scans a new scan's findings are matched to (docs/scanning.md "Finding identity
 * and triage"), in tiers. Tier 0 is the branch's own: per analyzer, the latest completed scan
 * of the same branch in which that analyzer completed (so an analyzer that failed on the
 * branch's last scan is matched against the scan before it, where its findings were seen).
 * Then one tier per other branch (the four most recently scanned), chosen the same way: what
 * the branch's own scans do not account for (a branch's first scan, code merged from main)
 * takes its identity from there. The store consults the other branches closest first — the
 * one whose commit differs least from the new commit, by git's diff, is the likely parent —
 * and the most recently scanned first where that is not known. Only tier 0 can make a
 * finding FIXED or `unchanged`.
 *
 * A finding that a branch consulted earlier has recorded as fixed is not brought back by a
 * later one (a sibling that still has it), and code matching such a fixed record is a new
 * finding: identical code that returns where it was fixed is new, whether or not some other
 * branch still carries the old one (or a copy of it).
 */
import type { AnalyzerRun, FindingLocator } from "@ax/contracts";
import type { Db } from "./client";

/** How far back references are looked for. */
const CANDIDATES = 100;
/** Other branches consulted, the most recently scanned first. */
const OTHER_BRANCHES = 4;

export interface ReferenceScan {
  scanId: string;
  commit: string | null;
  branch: string | null;
  /** 0: the same branch; 1…: other branches, the most recently scanned first. */
  tier: number;
  /** The analyzers whose findings are taken from this scan. */
  analyzers: Set<string>;
}

export async function selectReferences(
  db: Db,
  organizationId: string,
  projectId: string,
  branch: string | null,
  excludeScanId: string,
): Promise<ReferenceScan[]> {
  const candidates = await db
    .selectFrom("scans")
    .select(["id", "branch", "commit_sha", "analyzers"])
    .where("organization_id", "=", organizationId)
    .where("project_id", "=", projectId)
    .where("state", "=", "completed")
    .where("id", "!=", excludeScanId)
    .orderBy("finished_at", "desc")
    .orderBy("id", "desc")
    .limit(CANDIDATES)
    .execute();
  const others = [...new Set(candidates.map((c) => c.branch).filter((b) => b !== branch))].slice(0, OTHER_BRANCHES);
  const tierOf = (b: string | null) => {
    if (b === branch) return 0;
    const i = others.indexOf(b);
    return i === -1 ? -1 : i + 1;
  };
  const refs = new Map<string, ReferenceScan>();
  const chosen = new Set<string>();
  for (const c of candidates) {
    const tier = tierOf(c.branch);
    if (tier < 0) continue;
    for (const run of c.analyzers as AnalyzerRun[]) {
      // The latest scan of this tier in which the analyzer completed; candidates are newest first.
      if (run.status !== "completed" || chosen.has(`${tier}\0${run.name}`)) continue;
      chosen.add(`${tier}\0${run.name}`);
      const ref = refs.get(c.id) ?? { scanId: c.id, commit: c.commit_sha, branch: c.branch, tier, analyzers: new Set<string>() };
      ref.analyzers.add(run.name);
      refs.set(c.id, ref);
    }
  }
  return [...refs.values()].sort((x, y) => x.tier - y.tier);
}

/** What a branch's scans have recorded as fixed (`absent` rows): enough to recognise the same code coming back. */
export interface FixedRecord {
  identity: string;
  rule_id: string;
  file: string;
  start_line: number;
  locator: FindingLocator | null;
  fingerprint: string;
}

/** Per branch, the findings its scans have recorded as fixed. */
export async function fixedRecords(
  db: Db,
  organizationId: string,
  projectId: string,
  branches: (string | null)[],
): Promise<Map<string | null, FixedRecord[]>> {
  const out = new Map<string | null, FixedRecord[]>();
  const named = branches.filter((b): b is string => b !== null);
  if (named.length === 0) return out;
  const rows = await db
    .selectFrom("findings as f")
    .innerJoin("scans as s", "s.id", "f.scan_id")
    .select(["s.branch", "f.identity", "f.rule_id", "f.file", "f.start_line", "f.locator", "f.fingerprint"])
    .where("f.organization_id", "=", organizationId)
    .where("f.project_id", "=", projectId)
    .where("f.baseline_state", "=", "absent")
    .where("s.branch", "in", named)
    .execute();
  for (const { branch, ...record } of rows) out.set(branch, [...(out.get(branch) ?? []), record]);
  return out;
}

/** The commits whose line mapping to the new commit the store will want, tier by tier (asked by the worker at clone time). */
export async function referenceCommits(
  db: Db,
  organizationId: string,
  projectId: string,
  branch: string,
  scanId: string,
): Promise<{ commit: string; sameBranch: boolean }[]> {
  const refs = await selectReferences(db, organizationId, projectId, branch, scanId);
  const seen = new Set<string>();
  const out: { commit: string; sameBranch: boolean }[] = [];
  for (const r of refs) {
    if (r.commit === null || seen.has(r.commit)) continue;
    seen.add(r.commit);
    out.push({ commit: r.commit, sameBranch: r.tier === 0 });
  }
  return out;
}

import type { CommitLineMap, NormalizedFinding } from "@ax/contracts";
import { matchFindings } from "./identity";
import type { FixedRecord, ReferenceScan } from "./references";
import type { Finding } from "./schema";

/**
 * For each new finding, the index of the earlier finding it is: matched against the branch's
 * own references first, then each other branch's in turn (closest first), each only among the
 * findings still unmatched, never to an identity given away before, and never to one that a
 * branch consulted before has recorded as fixed (references.ts).
 */
export function matchByTier(
  prior: Finding[],
  next: NormalizedFinding[],
  refOf: (f: Finding) => ReferenceScan,
  fixedOn: ReadonlyMap<string | null, readonly FixedRecord[]>,
  commit: string | null,
  maps: readonly CommitLineMap[],
): (number | null)[] {
  const result: (number | null)[] = next.map(() => null);
  const taken = new Set<string>();
  // The branch's own first; then the other branches closest to this commit first (git's diff:
  // the likely parent), the most recently scanned first where no diff is known.
  const distance = new Map(maps.filter((m) => m.to === commit).map((m) => [m.from, m.changed]));
  const closeness = new Map<number, number>();
  for (const f of prior) {
    const ref = refOf(f);
    const d = ref.tier === 0 ? -1 : ref.commit === commit ? 0 : (distance.get(ref.commit ?? "") ?? Number.POSITIVE_INFINITY);
    closeness.set(ref.tier, Math.min(closeness.get(ref.tier) ?? Number.POSITIVE_INFINITY, d));
  }
  const tiers = [...closeness.keys()].sort((a, b) => (closeness.get(a) as number) - (closeness.get(b) as number) || a - b);
  const branchOf = new Map(prior.map((f) => [refOf(f).tier, refOf(f).branch]));
  const reintroduced = new Set<number>();
  for (const [position, tier] of tiers.entries()) {
    // What the branches consulted before have seen fixed stays fixed for this one, and a new
    // finding that is such a fixed one come back (same code where it was) stays new.
    const fixed = position === 0 ? [] : (fixedOn.get(branchOf.get(tiers[position - 1] as number) ?? null) ?? []);
    for (const r of fixed) taken.add(r.identity);
    if (fixed.length > 0) {
      const open = next.map((f, j) => ({ f, j })).filter(({ j }) => result[j] === null && !reintroduced.has(j));
      const back = matchFindings(
        fixed.map((r) => ({ ...r, commit: null })),
        open.map(({ f }) => ({ ...f, locator: f.locator ?? null })),
        commit,
        [],
      );
      back.forEach((k, x) => {
        if (k !== null) reintroduced.add((open[x] as { j: number }).j);
      });
    }
    const p = prior.map((f, i) => ({ f, i })).filter(({ f }) => refOf(f).tier === tier && !taken.has(f.identity));
    const n = next.map((f, j) => ({ f, j })).filter(({ j }) => result[j] === null && !reintroduced.has(j));
    if (p.length === 0 || n.length === 0) continue;
    const m = matchFindings(
      p.map(({ f }) => ({ ...f, commit: refOf(f).commit })),
      n.map(({ f }) => ({ ...f, locator: f.locator ?? null })),
      commit,
      maps,
      // Strict for other branches, except the closest on a branch's first scan: there it is the
      // branch's only history (its parent, likely), and its code may have moved since.
      tier !== 0 && (tiers[0] === 0 || position > 0),
    );
    m.forEach((k, x) => {
      if (k === null) return;
      const hit = p[k] as { f: Finding; i: number };
      if (taken.has(hit.f.identity)) return;
      taken.add(hit.f.identity);
      result[(n[x] as { j: number }).j] = hit.i;
    });
  }
  return result;
}

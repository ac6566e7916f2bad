/**
 * The caller's organization's label counts for `POST /ai/review` (issue 21, item 6): built
 * from that organization's triaged findings and review votes only, and rebuilt when they
 * change (a cheap signature query per review). Kept per database and organization, for a
 * bounded number of organizations.
 */
import { buildOrgStats, orgLabelOf, type OrgStats } from "@ax/ai/review";
import { orgLabelRows, orgLabelSignature, type Db } from "@ax/db";

const MAX_ORGS = 200;
const built = new WeakMap<Db, Map<string, { signature: string; stats: OrgStats }>>();

export async function orgStatsOf(db: Db, organizationId: string): Promise<OrgStats> {
  let byOrg = built.get(db);
  if (!byOrg) {
    byOrg = new Map();
    built.set(db, byOrg);
  }
  const signature = await orgLabelSignature(db, organizationId);
  const hit = byOrg.get(organizationId);
  if (hit && hit.signature === signature) return hit.stats;
  const stats = buildOrgStats((await orgLabelRows(db, organizationId)).map(orgLabelOf));
  byOrg.delete(organizationId);
  byOrg.set(organizationId, { signature, stats });
  // The least recently built organization goes first.
  if (byOrg.size > MAX_ORGS) byOrg.delete(byOrg.keys().next().value as string);
  return stats;
}

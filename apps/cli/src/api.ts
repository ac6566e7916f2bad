/** The endpoints `ax` uses. Their shapes are the API's wire types (@ax/contracts); the CLI's types name the fields it reads. */
import type {
  FindingUpdated,
  FindingView,
  GroupDeleted,
  GroupView,
  MembershipView,
  ProfileView,
  RefutedMatchView,
  ReviewRequestBody,
  ReviewResult,
  ScanCreateBody,
  ScanStarted,
  ScanView,
} from "@ax/contracts";
import type { ApiClient, Query } from "./client";
import { CliError, EXIT } from "./errors";

export type Membership = MembershipView;
export type Profile = ProfileView;
export type Scan = Pick<
  ScanView,
  | "scan_id"
  | "organization_id"
  | "group_id"
  | "state"
  | "phase"
  | "progress"
  | "git_uri"
  | "branch"
  | "commit"
  | "error"
  | "counts"
  | "duration_ms"
>;
export type Finding = Pick<
  FindingView,
  "finding_id" | "rule_id" | "title" | "cwe_id" | "file" | "start_line" | "severity" | "status" | "reason" | "suppression"
> &
  Partial<Pick<FindingView, "baseline_state" | "ai">>;
export type Group = GroupView;
export type { ReviewResult };

export const getProfile = (c: ApiClient) => c.json<Profile>("GET", "/profile");

export const startScan = (c: ApiClient, body: Pick<ScanCreateBody, "git_uri" | "branch">, query: Query) =>
  c.json<ScanStarted>("POST", "/scan", { body, query });

export const getScan = (c: ApiClient, scanId: string) => c.json<Scan>("GET", `/scan/${encodeURIComponent(scanId)}`);

/** Every page of a cursor-paginated list. */
async function allPages<T>(c: ApiClient, path: string, key: string, query: Query, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await c.json<Record<string, unknown> & { next_cursor: string | null }>("GET", path, {
      query: { ...query, limit, cursor },
    });
    items.push(...(page[key] as T[]));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

export const listFindings = (c: ApiClient, scanId: string, filters: Query = {}) =>
  allPages<Finding>(c, `/scan/${encodeURIComponent(scanId)}/findings`, "findings", filters, 500);

/** Pattern matches the taint analysis refuted (not findings), with the reason. */
export const listRefuted = (c: ApiClient, scanId: string) =>
  allPages<RefutedMatchView>(c, `/scan/${encodeURIComponent(scanId)}/refuted`, "refuted", {}, 500);

export const getSarif = (c: ApiClient, scanId: string) => c.json<Sarif>("GET", `/scan/${encodeURIComponent(scanId)}/sarif`);

export interface Sarif {
  runs: { results: { properties?: Record<string, unknown> }[] }[];
}

export const updateFinding = (c: ApiClient, scanId: string, findingId: string, patch: Record<string, string>) =>
  c.json<FindingUpdated>("PUT", `/scan/${encodeURIComponent(scanId)}/finding/${encodeURIComponent(findingId)}`, { body: patch });

export const review = (c: ApiClient, body: ReviewRequestBody, query: Query) => c.json<ReviewResult>("POST", "/ai/review", { body, query });

const orgPath = (orgId: string) => `/organization/${encodeURIComponent(orgId)}/group`;

export const listGroups = (c: ApiClient, orgId: string) => allPages<Group>(c, orgPath(orgId), "groups", {}, 200);

export const createGroup = (c: ApiClient, orgId: string, name: string) => c.json<Group>("POST", orgPath(orgId), { body: { name } });

export const deleteGroup = (c: ApiClient, orgId: string, groupId: string) =>
  c.json<GroupDeleted>("DELETE", `${orgPath(orgId)}/${encodeURIComponent(groupId)}`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization to act in: `--org` as an id or a name, else the caller's only one.
 * Several and no `--org` is a usage error listing them.
 */
export async function resolveOrganization(c: ApiClient, org: string | undefined): Promise<string> {
  if (org && UUID.test(org)) return org;
  const { organizations } = await getProfile(c);
  if (org) {
    const match = organizations.find((o) => o.name.toLowerCase() === org.toLowerCase());
    if (!match) throw new CliError(`You are not a member of an organization named "${org}". Yours: ${names(organizations)}.`);
    return match.organization_id;
  }
  if (organizations.length === 1) return organizations[0]!.organization_id;
  if (organizations.length === 0) throw new CliError("Your account does not belong to any organization.");
  throw new CliError(`You belong to several organizations; choose one with --org: ${names(organizations)}.`, EXIT.usage);
}

/** `--group` as an id, or a group name looked up in the organization. */
export async function resolveGroup(c: ApiClient, orgId: string, group: string): Promise<string> {
  if (UUID.test(group)) return group;
  const match = (await listGroups(c, orgId)).find((g) => g.name === group);
  if (!match) throw new CliError(`No group named "${group}" in the organization; see "ax groups list".`);
  return match.group_id;
}

const names = (orgs: Membership[]) => orgs.map((o) => `${o.name} (${o.organization_id})`).join(", ");

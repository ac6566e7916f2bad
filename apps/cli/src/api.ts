/** The endpoints `ax` uses, typed with the fields it reads (docs/api.md has the full shapes). */
import type { FindingStatus, ScanPhase, ScanState, Severity } from "@ax/contracts";
import type { ApiClient, Query } from "./client";
import { CliError, EXIT } from "./errors";

export interface Membership {
  organization_id: string;
  name: string;
  role: "owner" | "admin" | "member" | "viewer";
}

export interface Profile {
  user_id: string;
  display_name: string;
  email: string;
  identity_provider: string;
  organizations: Membership[];
  token: { name: string; expires_at: string | null };
}

export interface Scan {
  scan_id: string;
  organization_id: string;
  group_id: string;
  state: ScanState;
  phase: ScanPhase | null;
  progress: number;
  git_uri: string;
  branch: string | null;
  commit: string | null;
  error: string | null;
  counts: Record<string, number>;
  duration_ms: number | null;
}

export interface Finding {
  finding_id: string;
  rule_id: string;
  title: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  severity: Severity;
  status: FindingStatus;
  reason: string | null;
  suppression: unknown;
  /** "absent": the record of a finding that disappeared since the previous scan. */
  baseline_state?: "new" | "unchanged" | "absent";
}

export interface Group {
  group_id: string;
  organization_id: string;
  name: string;
  created_at: string | null;
}

export interface ReviewResult {
  class: "TRUE_POSITIVE" | "FALSE_POSITIVE";
  confidence: number;
  request_id: string;
  model: string;
}

export const getProfile = (c: ApiClient) => c.json<Profile>("GET", "/profile");

export const startScan = (c: ApiClient, body: { git_uri: string; branch?: string }, query: Query) =>
  c.json<{ scan_id: string; state: ScanState }>("POST", "/scan", { body, query });

export const getScan = (c: ApiClient, scanId: string) => c.json<Scan>("GET", `/scan/${encodeURIComponent(scanId)}`);

/** Every page of a cursor-paginated list. */
async function allPages<T>(c: ApiClient, path: string, key: string, query: Query, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await c.json<Record<string, unknown> & { next_cursor: string | null }>("GET", path, { query: { ...query, limit, cursor } });
    items.push(...(page[key] as T[]));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

export const listFindings = (c: ApiClient, scanId: string, filters: Query = {}) =>
  allPages<Finding>(c, `/scan/${encodeURIComponent(scanId)}/findings`, "findings", filters, 500);

export const getSarif = (c: ApiClient, scanId: string) => c.json<Sarif>("GET", `/scan/${encodeURIComponent(scanId)}/sarif`);

export interface Sarif {
  runs: { results: { properties?: Record<string, unknown> }[] }[];
}

export const updateFinding = (c: ApiClient, scanId: string, findingId: string, patch: Record<string, string>) =>
  c.json<{ message: string; finding: Finding }>("PUT", `/scan/${encodeURIComponent(scanId)}/finding/${encodeURIComponent(findingId)}`, { body: patch });

export const review = (c: ApiClient, body: { code: string; cwe_id?: string; line: string; file: string }, query: Query) =>
  c.json<ReviewResult>("POST", "/ai/review", { body, query });

const orgPath = (orgId: string) => `/organization/${encodeURIComponent(orgId)}/group`;

export const listGroups = (c: ApiClient, orgId: string) => allPages<Group>(c, orgPath(orgId), "groups", {}, 200);

export const createGroup = (c: ApiClient, orgId: string, name: string) => c.json<Group>("POST", orgPath(orgId), { body: { name } });

export const deleteGroup = (c: ApiClient, orgId: string, groupId: string) =>
  c.json<{ message: string; group_id: string; deleted: { projects: number; scans: number; findings: number } }>("DELETE", `${orgPath(orgId)}/${encodeURIComponent(groupId)}`);

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

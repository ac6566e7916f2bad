import { isId, type Principal, type Role } from "@ax/db";
import { badRequest, forbidden, notFound } from "../http/errors";

/** Role ranks: a route names the least role it needs (DESIGN §2). */
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/**
 * The caller's role in an organization. Not a member: 404, exactly as for an organization
 * that does not exist, so ids of other tenants reveal nothing. A member below the needed
 * role: 403.
 */
export function requireRole(principal: Principal, organizationId: string, least: Role): Role {
  const m = principal.memberships.find((x) => x.organization_id === organizationId);
  if (!m) throw notFound("Organization");
  if (RANK[m.role] < RANK[least]) throw forbidden();
  return m.role;
}

/** The organization a request acts on: the given id, or the caller's only organization. */
export function resolveOrganization(principal: Principal, organizationId: string | undefined, least: Role): string {
  if (organizationId !== undefined) {
    if (!isId(organizationId)) throw notFound("Organization");
    requireRole(principal, organizationId, least);
    return organizationId;
  }
  if (principal.memberships.length === 1) {
    const only = principal.memberships[0]!.organization_id;
    requireRole(principal, only, least);
    return only;
  }
  if (principal.memberships.length === 0) throw forbidden("You do not belong to any organization.");
  throw badRequest("organization_id is required because you belong to several organizations.");
}

export const orgIds = (principal: Principal): string[] => principal.memberships.map((m) => m.organization_id);

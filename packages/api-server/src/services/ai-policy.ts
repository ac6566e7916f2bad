import type { AiPolicyBody, AiPolicyView } from "@ax/contracts";
import { getAiPolicy, putAiPolicy, type Principal, type StoredAiPolicy } from "@ax/db";
import type { AppDeps } from "../http/context";
import { badRequest } from "../http/errors";
import { loadGroup } from "./groups";

/** The group's AI policy as the API shows it (the default until an admin sets one). */
const presentAiPolicy = (p: StoredAiPolicy): AiPolicyView => ({
  group_id: p.groupId,
  auto_close_at: p.autoCloseAt,
  suggest_at: p.suggestAt,
  updated_at: p.updatedAt ? p.updatedAt.toISOString() : null,
});

/** GET …/group/{group_id}/ai-policy; 404 for a group that is not the organization's. */
export async function aiPolicyOf(deps: AppDeps, organizationId: string, groupId: string): Promise<AiPolicyView> {
  const group = await loadGroup(deps, organizationId, groupId);
  return presentAiPolicy(await getAiPolicy(deps.db, organizationId, group.id));
}

/**
 * PUT …/group/{group_id}/ai-policy: the fields given replace the current ones, the others
 * stay. It applies to the group's scans stored from now on; findings already stored keep
 * what the policy of their scan did.
 */
export async function setAiPolicy(
  deps: AppDeps,
  principal: Principal,
  target: { organizationId: string; groupId: string },
  body: AiPolicyBody,
): Promise<AiPolicyView> {
  const group = await loadGroup(deps, target.organizationId, target.groupId);
  const current = await getAiPolicy(deps.db, target.organizationId, group.id);
  const policy = {
    autoCloseAt: body.auto_close_at === undefined ? current.autoCloseAt : body.auto_close_at,
    suggestAt: body.suggest_at ?? current.suggestAt,
  };
  if (policy.autoCloseAt !== null && policy.autoCloseAt < policy.suggestAt) {
    const message = `auto_close_at (${policy.autoCloseAt}) must be at least suggest_at (${policy.suggestAt}): a verdict sure enough to close a finding is sure enough to suggest.`;
    throw badRequest(`Invalid body: ${message}`, [{ path: "body.auto_close_at", message }]);
  }
  const stored = await putAiPolicy(deps.db, {
    organizationId: target.organizationId,
    groupId: group.id,
    policy,
    userId: principal.user.id,
  });
  return presentAiPolicy(stored);
}

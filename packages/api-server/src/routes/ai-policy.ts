import { z } from "zod";
import { AiPolicyBody, AiPolicyView, ErrorBody, Id } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { commonErrors } from "../http/schemas";
import { requireRole } from "../services/access";
import { aiPolicyOf, setAiPolicy } from "../services/ai-policy";

const GroupParams = z.object({ organization_id: Id, group_id: Id });

const POLICY_DESCRIPTION = [
  "What the review model's label does to the group's findings when a scan is stored. A FALSE_POSITIVE label at `auto_close_at` or surer",
  "closes the finding (status FALSE POSITIVE, a history entry of source `ai` saying why) — only a finding still TO REVIEW whose status no",
  "reviewer decided, on this scan or an earlier one; a label at `suggest_at` or surer is `suggested`; below, `needs_review`. Each finding",
  "shows it as `ai.action` and `?ai_action=` filters by it. Default: auto_close_at null (never closes), suggest_at 0.8.",
].join(" ");

const getPolicyRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/organization/:organization_id/group/:group_id/ai-policy",
    operationId: "getAiPolicy",
    summary: "The group's AI policy: when the AI closes, suggests or asks a human",
    description: POLICY_DESCRIPTION,
    tags: ["GenAI"],
    params: GroupParams,
    responses: {
      200: { description: "The policy (the default until an admin sets one).", schema: AiPolicyView },
      ...commonErrors,
      404: { description: "Organization or group not found, or not visible to the caller.", schema: ErrorBody },
    },
    handler: async ({ params, principal }) => {
      requireRole(principal, params.organization_id, "viewer");
      return aiPolicyOf(deps, params.organization_id, params.group_id);
    },
  });

const putPolicyRoute = (deps: AppDeps) =>
  defineRoute({
    method: "put",
    path: "/organization/:organization_id/group/:group_id/ai-policy",
    operationId: "setAiPolicy",
    summary: "Set the group's AI policy (admin or owner)",
    description: `${POLICY_DESCRIPTION} Omitted fields keep their values; \`auto_close_at\` must be at least \`suggest_at\`. Applies to scans stored from now on.`,
    tags: ["GenAI"],
    params: GroupParams,
    body: AiPolicyBody,
    responses: {
      200: { description: "The policy as stored.", schema: AiPolicyView },
      ...commonErrors,
      403: { description: "Only admins and owners set the policy.", schema: ErrorBody },
      404: { description: "Organization or group not found, or not visible to the caller.", schema: ErrorBody },
    },
    handler: async ({ params, body, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return setAiPolicy(deps, principal, { organizationId: params.organization_id, groupId: params.group_id }, body);
    },
  });

export const aiPolicyRoutes = (deps: AppDeps): AnyRoute[] => [getPolicyRoute(deps), putPolicyRoute(deps)];

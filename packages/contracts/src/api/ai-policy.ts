import { z } from "zod";
import { bodyObject } from "../body";

/** GET/PUT /organization/{organization_id}/group/{group_id}/ai-policy (docs/ai.md, "Policy per group"). */

const Threshold = (name: string, min: number) =>
  z
    .number({ error: `${name} must be a number between ${min} and 1.` })
    .min(min, { error: `${name} must be at least ${min}.` })
    .max(1, { error: `${name} must be at most 1.` });

const AUTO_CLOSE =
  "A FALSE_POSITIVE label at this confidence or above closes the finding (status FALSE POSITIVE) when no reviewer decided its status; " +
  "null: the AI never closes a finding (the default).";
const SUGGEST = "A label at this confidence or above is a suggestion (`suggested`); below it the finding needs a human (`needs_review`).";

/** Omitted fields keep their current values; the result must have auto_close_at ≥ suggest_at. */
export const AiPolicyBody = bodyObject({
  auto_close_at: Threshold("auto_close_at", 0.5).nullable().optional().describe(AUTO_CLOSE),
  suggest_at: Threshold("suggest_at", 0).optional().describe(SUGGEST),
});
export type AiPolicyBody = z.output<typeof AiPolicyBody>;

export const AiPolicyView = z.object({
  group_id: z.string(),
  auto_close_at: z.number().nullable().describe(AUTO_CLOSE),
  suggest_at: z.number().describe(SUGGEST),
  updated_at: z.string().nullable().describe("When an admin last set it; null while the group has the default policy."),
});
export type AiPolicyView = z.output<typeof AiPolicyView>;

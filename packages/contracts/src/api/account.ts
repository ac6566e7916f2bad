import { z } from "zod";
import { bodyObject } from "../body";

/** Request bodies (POST /profile/tokens, POST …/group) and responses of the Profile and organization endpoints (docs/api.md). */

export const TokenCreateBody = bodyObject({
  name: z
    .string({ error: "name is required and must be a string." })
    .trim()
    .min(1, { error: "name must not be empty." })
    .max(100, { error: "name must be at most 100 characters." }),
  expires_days: z
    .number({ error: "expires_days must be a number." })
    .int({ error: "expires_days must be a whole number." })
    .min(1, { error: "expires_days must be between 1 and 365." })
    .max(365, { error: "expires_days must be between 1 and 365." })
    .optional(),
});
export type TokenCreateBody = z.infer<typeof TokenCreateBody>;

export const GroupCreateBody = bodyObject({
  name: z
    .string({ error: "name is required and must be a string." })
    .trim()
    .min(1, { error: "name must not be empty." })
    .max(100, { error: "name must be at most 100 characters." })
    // eslint-disable-next-line no-control-regex
    .refine((n) => !/[\u0000-\u001f\u007f]/.test(n), { error: "name must not contain control characters." }),
});
export type GroupCreateBody = z.infer<typeof GroupCreateBody>;

export const ROLES = ["owner", "admin", "member", "viewer"] as const;

export const TokenView = z.object({
  token_id: z.string(),
  name: z.string(),
  hint: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type TokenView = z.output<typeof TokenView>;

export const MembershipView = z.object({ organization_id: z.string(), name: z.string(), role: z.enum(ROLES) });
export type MembershipView = z.output<typeof MembershipView>;

export const ProfileView = z.object({
  user_id: z.string(),
  display_name: z.string(),
  email: z.string(),
  identity_provider: z.string(),
  is_instance_admin: z.boolean(),
  organizations: z.array(MembershipView),
  token: TokenView,
});
export type ProfileView = z.output<typeof ProfileView>;

/** The answer of POST /profile/tokens: the token's value, shown only there. */
export const TokenCreated = z.object({ token: z.string(), token_info: TokenView });
export const TokenRevoked = z.object({ message: z.string(), token_info: TokenView });

export const GroupView = z.object({
  group_id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  created_at: z.string().nullable(),
});
export type GroupView = z.output<typeof GroupView>;

export const ProjectView = z.object({
  project_id: z.string(),
  group_id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  git_url: z.string(),
  created_at: z.string().nullable(),
});
export type ProjectView = z.output<typeof ProjectView>;

/** The answer of DELETE /organization/{organization_id}/group/{group_id}. */
export const GroupDeleted = z.object({
  message: z.string(),
  group_id: z.string(),
  deleted: z.object({ projects: z.number().int(), scans: z.number().int(), findings: z.number().int() }),
});
export type GroupDeleted = z.output<typeof GroupDeleted>;

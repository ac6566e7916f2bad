import { z } from "zod";
import { bodyObject } from "@ax/contracts";
import { createToken, isId, listTokens, revokeToken } from "@ax/db";
import type { AppDeps } from "../http/context";
import { notFound } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { Id, TokenView, commonErrors } from "../http/schemas";
import { presentToken } from "../services/presenters";

const ProfileView = z.object({
  user_id: z.string(),
  display_name: z.string(),
  email: z.string(),
  identity_provider: z.string(),
  is_instance_admin: z.boolean(),
  organizations: z.array(z.object({ organization_id: z.string(), name: z.string(), role: z.enum(["owner", "admin", "member", "viewer"]) })),
  token: TokenView,
});

const TokenCreateBody = bodyObject(
  {
    name: z.string({ error: "name is required and must be a string." }).trim().min(1, { error: "name must not be empty." }).max(100, { error: "name must be at most 100 characters." }),
    expires_days: z.number({ error: "expires_days must be a number." }).int({ error: "expires_days must be a whole number." }).min(1, { error: "expires_days must be between 1 and 365." }).max(365, { error: "expires_days must be between 1 and 365." }).optional(),
  }
);

export function profileRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "get",
      path: "/profile",
      operationId: "getProfile",
      summary: "Who am I: display name, email, identity provider, organizations and roles, this token",
      tags: ["Profile"],
      responses: { 200: { description: "The caller's profile.", schema: ProfileView }, 401: commonErrors[401] },
      handler: async ({ principal }) => ({
        user_id: principal.user.id,
        display_name: principal.user.display_name,
        email: principal.user.email,
        identity_provider: principal.user.identity_provider,
        is_instance_admin: principal.user.is_instance_admin,
        organizations: principal.memberships,
        token: presentToken(principal.token),
      }),
    }),
    defineRoute({
      method: "get",
      path: "/profile/tokens",
      operationId: "listTokens",
      summary: "The caller's own tokens (never their secret values)",
      tags: ["Profile"],
      responses: { 200: { description: "Tokens, newest first.", schema: z.object({ tokens: z.array(TokenView) }) }, 401: commonErrors[401] },
      handler: async ({ principal }) => ({ tokens: (await listTokens(deps.db, principal.user.id)).map(presentToken) }),
    }),
    defineRoute({
      method: "post",
      path: "/profile/tokens",
      operationId: "createToken",
      summary: "Create a personal access token; its value is shown only in this response",
      tags: ["Profile"],
      body: TokenCreateBody,
      responses: {
        200: { description: "The new token and its value.", schema: z.object({ token: z.string(), token_info: TokenView }) },
        400: commonErrors[400],
        401: commonErrors[401],
      },
      handler: async ({ principal, body, res }) => {
        const created = await createToken(deps.db, {
          userId: principal.user.id,
          name: body.name,
          expiresInDays: body.expires_days ?? deps.config.tokens.defaultExpiryDays,
        });
        res.set("Cache-Control", "no-store");
        return { token: created.token, token_info: presentToken(created.record) };
      },
    }),
    defineRoute({
      method: "delete",
      path: "/profile/tokens/:token_id",
      operationId: "revokeToken",
      summary: "Revoke one of the caller's tokens",
      tags: ["Profile"],
      params: z.object({ token_id: Id }),
      responses: { 200: { description: "Revoked.", schema: z.object({ message: z.string(), token_info: TokenView }) }, ...commonErrors },
      handler: async ({ principal, params }) => {
        const revoked = isId(params.token_id) ? await revokeToken(deps.db, principal.user.id, params.token_id) : undefined;
        if (!revoked) throw notFound("Token");
        return { message: "Token revoked", token_info: presentToken(revoked) };
      },
    }),
  ];
}

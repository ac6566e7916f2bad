import { z } from "zod";
import { Id, ProfileView, TokenCreateBody, TokenCreated, TokenRevoked, TokenView } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { commonErrors } from "../http/schemas";
import { newToken, profileOf, revokeOwnToken, tokensOf } from "../services/profile";

export function profileRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "get",
      path: "/profile",
      operationId: "getProfile",
      summary: "Who am I: display name, email, identity provider, organizations and roles, this token",
      tags: ["Profile"],
      responses: { 200: { description: "The caller's profile.", schema: ProfileView }, 401: commonErrors[401] },
      handler: async ({ principal }) => profileOf(principal),
    }),
    defineRoute({
      method: "get",
      path: "/profile/tokens",
      operationId: "listTokens",
      summary: "The caller's own tokens (never their secret values)",
      tags: ["Profile"],
      responses: {
        200: { description: "Tokens, newest first.", schema: z.object({ tokens: z.array(TokenView) }) },
        401: commonErrors[401],
      },
      handler: async ({ principal }) => tokensOf(deps, principal),
    }),
    defineRoute({
      method: "post",
      path: "/profile/tokens",
      operationId: "createToken",
      summary: "Create a personal access token; its value is shown only in this response",
      tags: ["Profile"],
      body: TokenCreateBody,
      responses: {
        200: { description: "The new token and its value.", schema: TokenCreated },
        400: commonErrors[400],
        401: commonErrors[401],
      },
      handler: async ({ principal, body, res }) => {
        const created = await newToken(deps, principal, body);
        res.set("Cache-Control", "no-store");
        return created;
      },
    }),
    defineRoute({
      method: "delete",
      path: "/profile/tokens/:token_id",
      operationId: "revokeToken",
      summary: "Revoke one of the caller's tokens",
      tags: ["Profile"],
      params: z.object({ token_id: Id }),
      responses: { 200: { description: "Revoked.", schema: TokenRevoked }, ...commonErrors },
      handler: async ({ principal, params }) => revokeOwnToken(deps, principal, params.token_id),
    }),
  ];
}

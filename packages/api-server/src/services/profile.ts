import type { ProfileView, TokenCreateBody, TokenView } from "@ax/contracts";
import { createToken, isId, listTokens, revokeToken, type Principal } from "@ax/db";
import type { AppDeps } from "../http/context";
import { notFound } from "../http/errors";
import { presentToken } from "./presenters";

/** The caller's profile and their own tokens (never a token's secret value, except once on creation). */

export const profileOf = (principal: Principal): ProfileView => ({
  user_id: principal.user.id,
  display_name: principal.user.display_name,
  email: principal.user.email,
  identity_provider: principal.user.identity_provider,
  is_instance_admin: principal.user.is_instance_admin,
  organizations: principal.memberships,
  token: presentToken(principal.token),
});

export async function tokensOf(deps: AppDeps, principal: Principal): Promise<{ tokens: TokenView[] }> {
  return { tokens: (await listTokens(deps.db, principal.user.id)).map(presentToken) };
}

/** A new token; without `expires_days`, the deployment's default expiry. */
export async function newToken(deps: AppDeps, principal: Principal, body: TokenCreateBody) {
  const expiresInDays = body.expires_days ?? deps.config.tokens.defaultExpiryDays;
  const created = await createToken(deps.db, { userId: principal.user.id, name: body.name, expiresInDays });
  return { token: created.token, token_info: presentToken(created.record) };
}

export async function revokeOwnToken(deps: AppDeps, principal: Principal, tokenId: string) {
  const revoked = isId(tokenId) ? await revokeToken(deps.db, principal.user.id, tokenId) : undefined;
  if (!revoked) throw notFound("Token");
  return { message: "Token revoked", token_info: presentToken(revoked) };
}

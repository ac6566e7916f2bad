import type { Db } from "./client";
import { addMember, createOrganization, createUser } from "./orgs";
import type { Role } from "./schema";
import { createToken } from "./tokens";

export interface BootstrapInput {
  orgName: string;
  email: string;
  displayName: string;
  identityProvider: string;
  role?: Role;
  instanceAdmin?: boolean;
  tokenName?: string;
  expiresInDays: number;
}

export interface BootstrapResult {
  organization_id: string;
  group_id: string;
  user_id: string;
  token: string;
}

/** An organization with its default group, an owner and a token for that owner. */
export async function bootstrap(db: Db, input: BootstrapInput): Promise<BootstrapResult> {
  const { organization, group } = await createOrganization(db, input.orgName);
  const user = await createUser(db, {
    email: input.email,
    displayName: input.displayName,
    identityProvider: input.identityProvider,
    isInstanceAdmin: input.instanceAdmin ?? false,
  });
  await addMember(db, organization.id, user.id, input.role ?? "owner");
  const { token } = await createToken(db, { userId: user.id, name: input.tokenName ?? "bootstrap", expiresInDays: input.expiresInDays });
  return { organization_id: organization.id, group_id: group.id, user_id: user.id, token };
}

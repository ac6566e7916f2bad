import { createHash, randomInt } from "node:crypto";
import { sql } from "kysely";
import { crc32 } from "node:zlib";
import type { Db } from "./client";
import { newId } from "./ids";
import type { ApiToken, Role, User } from "./schema";

/**
 * Personal access tokens (DESIGN §3): "axk_" + 40 base62 characters + a 6-character base62
 * CRC32 of everything before it. The checksum lets a malformed or mistyped token be refused
 * without a database query and makes leaked tokens easy to find with a regular expression.
 * Only the SHA-256 of a token is stored.
 */
const PREFIX = "axk_";
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const TOKEN_PATTERN = /^axk_[0-9A-Za-z]{46}$/;

function base62(n: number, width: number): string {
  let out = "";
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = ALPHABET[v % 62] + out;
  return out.padStart(width, "0");
}

function checksum(body: string): string {
  return base62(crc32(Buffer.from(body, "utf8")), 6);
}

export function generateToken(): string {
  let body = PREFIX;
  for (let i = 0; i < 40; i++) body += ALPHABET[randomInt(62)];
  return body + checksum(body);
}

export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  return checksum(token.slice(0, -6)) === token.slice(-6);
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export interface CreatedToken {
  token: string;
  record: ApiToken;
}

export async function createToken(
  db: Db,
  input: { userId: string; name: string; expiresInDays: number; scopes?: string[] },
): Promise<CreatedToken> {
  const token = generateToken();
  const record = await db
    .insertInto("api_tokens")
    .values({
      id: newId(),
      user_id: input.userId,
      name: input.name,
      token_hash: hashToken(token),
      display_hint: `${token.slice(0, 8)}…${token.slice(-4)}`,
      scopes: input.scopes ?? [],
      expires_at: new Date(Date.now() + input.expiresInDays * 86_400_000),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { token, record };
}

export interface Principal {
  user: User;
  token: ApiToken;
  memberships: { organization_id: string; name: string; role: Role }[];
}

/** The caller behind a token, or null when it is unknown, expired or revoked (one answer for all). */
export async function authenticate(db: Db, token: string): Promise<Principal | null> {
  if (!isWellFormedToken(token)) return null;
  const hash = hashToken(token);
  const now = new Date();
  // Every authenticated request comes through here: the token, its user and the user's
  // memberships are one statement (one snapshot, one round trip, one row to parse).
  const row = await db
    .selectFrom("api_tokens as t")
    .innerJoin("users as u", "u.id", "t.user_id")
    .selectAll("t")
    .select([
      "u.email as u_email",
      "u.display_name as u_display_name",
      "u.identity_provider as u_identity_provider",
      "u.is_instance_admin as u_is_instance_admin",
      "u.created_at as u_created_at",
    ])
    .select(
      sql<
        Principal["memberships"]
      >`(select coalesce(json_agg(json_build_object('organization_id', m.organization_id, 'name', o.name, 'role', m.role)
          order by o.created_at, o.id), '[]'::json)
        from memberships m join organizations o on o.id = m.organization_id where m.user_id = t.user_id)`.as("u_memberships"),
    )
    .where("t.token_hash", "=", hash)
    .where("t.revoked_at", "is", null)
    .where("t.expires_at", ">", now)
    .executeTakeFirst();
  if (!row) return null;
  const { u_email, u_display_name, u_identity_provider, u_is_instance_admin, u_created_at, u_memberships: memberships, ...apiToken } = row;
  const user: User = {
    id: apiToken.user_id,
    email: u_email,
    display_name: u_display_name,
    identity_provider: u_identity_provider,
    is_instance_admin: u_is_instance_admin,
    created_at: u_created_at,
  };
  // Throttled so that a busy client does not turn every request into a write (nor a round trip).
  const lastUsed = apiToken.last_used_at ? new Date(apiToken.last_used_at).getTime() : null;
  if (lastUsed === null || lastUsed < Date.now() - 60_000) {
    await db
      .updateTable("api_tokens")
      .set({ last_used_at: new Date() })
      .where("id", "=", apiToken.id)
      .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<", new Date(Date.now() - 60_000))]))
      .execute();
  }
  return { user, token: apiToken, memberships };
}

export function listTokens(db: Db, userId: string): Promise<ApiToken[]> {
  return db.selectFrom("api_tokens").selectAll().where("user_id", "=", userId).orderBy("created_at", "desc").orderBy("id").execute();
}

/** Revokes one of the user's own tokens; false when there is no such token of theirs. */
export async function revokeToken(db: Db, userId: string, tokenId: string): Promise<ApiToken | undefined> {
  return db
    .updateTable("api_tokens")
    .set({ revoked_at: new Date() })
    .where("id", "=", tokenId)
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

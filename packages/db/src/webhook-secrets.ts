import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Webhook secrets must be recoverable (they sign every delivery), so they cannot be hashed
 * like tokens. With a key (WEBHOOK_SECRET_KEY) they are sealed with AES-256-GCM; without one
 * they are stored as is. Opening accepts both, so configuring a key later needs no migration:
 * secrets written before it stay readable, and a rotation seals the new one.
 */

const PREFIX = "enc:v1:";

export function sealSecret(secret: string, key: Buffer | undefined): string {
  if (!key) return secret;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return `${PREFIX}${iv.toString("base64url")}:${cipher.getAuthTag().toString("base64url")}:${data.toString("base64url")}`;
}

export class SecretUnavailableError extends Error {}

export function openSecret(stored: string, key: Buffer | undefined): string {
  if (!stored.startsWith(PREFIX)) return stored;
  if (!key) throw new SecretUnavailableError("The webhook secret is encrypted and WEBHOOK_SECRET_KEY is not set.");
  const [iv, tag, data] = stored.slice(PREFIX.length).split(":");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv ?? "", "base64url"));
    decipher.setAuthTag(Buffer.from(tag ?? "", "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data ?? "", "base64url")), decipher.final()]).toString("utf8");
  } catch {
    // The message never carries the stored value.
    throw new SecretUnavailableError("The webhook secret cannot be decrypted with WEBHOOK_SECRET_KEY (was the key changed?).");
  }
}

/**
 * What the secrets detector looks for, and how it tells a live credential from a
 * placeholder. Known token formats carry a fixed prefix and length, so they are precise; the
 * generic `password = "…"` rule needs a secret-sounding name, a quoted (or, in config files,
 * bare) value and enough Shannon entropy. Every match passes the placeholder filter
 * (`changeme`, `xxxx`, `<your-key>`, `${VAR}`, example/dummy values, one repeated character).
 *
 * Bump SECRETS_VERSION whenever a pattern or threshold changes: it is part of the result
 * cache key.
 */
import { KNOWN_PATTERNS } from "./secret-formats";
import { isPlaceholder, isUrlPassword } from "./secret-values";

export { KNOWN_PATTERNS, type SecretPattern } from "./secret-formats";
export { isGenericSecretValue, isPlaceholder, isUrlPassword, looksRandom, shannonEntropy } from "./secret-values";

export const SECRETS_VERSION = "1";

/**
 * Credentials in a connection URL: `scheme://user:password@host`. Database and broker schemes
 * are "database-url"; http(s)/ftp are "url-credentials".
 */
export const URL_CREDENTIALS = new RegExp(
  "(?<scheme>postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+|https?|ftps?)://" +
    "(?<user>[^\\s:@/'\"`<>{}]{1,100}):(?<secret>[^\\s@/'\"`<>]{3,200})@(?<host>[A-Za-z0-9._-]+)",
  "g",
);

export const DATABASE_SCHEMES = /^(postgres(ql)?|mysql|mariadb|mongodb(\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+)$/;

/** A PEM private key header: the key body up to the END line is what is redacted. */
export const PRIVATE_KEY_BEGIN = /-----BEGIN (?<kind>(?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----/g;

/** Names of things that hold a secret, split into lower-case words (apiKey → api, key). */
const SECRET_WORDS = new Set(["password", "passwd", "pwd", "passphrase", "pass", "secret", "token", "apikey", "credential", "credentials"]);
const SECRET_PAIRS = new Set([
  "api key",
  "access key",
  "secret key",
  "private key",
  "signing key",
  "encryption key",
  "master key",
  "client secret",
  "auth key",
]);
export const PASSWORD_WORDS = new Set(["password", "passwd", "pwd", "passphrase", "pass"]);
/** A name ending in one of these is about a secret, not one: password_field, token_url, secret_name. */
const NOT_A_SECRET_LAST = new Set([
  "url",
  "uri",
  "endpoint",
  "path",
  "file",
  "filename",
  "dir",
  "name",
  "id",
  "ids",
  "type",
  "field",
  "label",
  "length",
  "len",
  "size",
  "min",
  "max",
  "regex",
  "pattern",
  "header",
  "placeholder",
  "hint",
  "policy",
  "prompt",
  "message",
  "msg",
  "count",
  "enabled",
  "required",
  "param",
  "env",
  "var",
  "expiry",
  "expires",
  "expiration",
  "ttl",
  "timeout",
  "hash",
  "hashed",
  "digest",
  "format",
  "version",
  "algorithm",
  "alg",
  "prefix",
  "suffix",
  "mode",
  "input",
  "error",
  "errors",
  "text",
  "route",
  "template",
  "validator",
  "strength",
  "reset",
  "column",
  "selector",
  "location",
  "source",
  "provider",
  "manager",
  "store",
  "helper",
  "class",
  "kind",
  "schema",
  "rule",
  "rules",
  "chars",
  "charset",
  "lifetime",
  "duration",
  "key",
  "keys",
  "index",
  "ref",
  "reference",
  "generator",
  "hasher",
  "salt",
  "rounds",
  "iterations",
  "attempts",
]);

/** Words of an identifier: `DB_PASSWORD` → db, password; `apiKey` → api, key; `api-key` → api, key. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
}

/** "password" | "key" (API keys, tokens, other secrets) | null (not a secret's name). */
export function secretNameKind(name: string): "password" | "key" | null {
  const words = nameWords(name.split(".").pop() ?? name);
  if (words.length === 0 || words.length > 6) return null;
  if (NOT_A_SECRET_LAST.has(words[words.length - 1] as string) && !SECRET_PAIRS.has(words.slice(-2).join(" "))) return null;
  if (words.some((w) => PASSWORD_WORDS.has(w))) return "password";
  if (words.some((w) => SECRET_WORDS.has(w))) return "key";
  for (let i = 0; i + 1 < words.length; i++) if (SECRET_PAIRS.has(`${words[i]} ${words[i + 1]}`)) return "key";
  return null;
}

/** `ghp_…[redacted, 40 chars]`: the public prefix and the length, never the secret. */
export function redacted(secret: string, prefixChars: number): string {
  const shown = prefixChars > 0 ? [...secret].slice(0, Math.min(prefixChars, secret.length - 4)).join("") : "";
  return `${shown}…[redacted, ${[...secret].length} chars]`;
}

/** Generic values: a prefix of at most 1 character per 8, at most 4. */
export const genericPrefix = (secret: string): number => Math.min(4, Math.floor(secret.length / 8));

const QUOTED_ASSIGNMENT = /(?<name>[A-Za-z_$][\w.$-]{0,60})["']?\s*(?::=|=>|[:=])\s*(?<q>["'`])(?<value>[^"'`\\\r\n]{4,256})\k<q>/g;

/**
 * Text with every recognisable secret replaced by its redacted form: known token formats,
 * URL passwords, and quoted values of secret-named assignments (any length, no entropy
 * test: a hard-coded "hunter2" must not end up in a stored snippet either). Used for the
 * secrets detector's own snippets and for other analyzers' snippets and quoted code.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const p of KNOWN_PATTERNS) {
    out = out.replace(p.regex, (match: string, ...args: unknown[]) => {
      const groups = args[args.length - 1] as { secret?: string } | undefined;
      const secret = groups?.secret ?? match;
      if (p.validate && !p.validate(secret)) return match;
      return match.replace(secret, redacted(secret, p.prefix(secret)));
    });
  }
  out = out.replace(URL_CREDENTIALS, (match: string, ...args: unknown[]) => {
    const g = args[args.length - 1] as { user: string; secret: string };
    return isUrlPassword(g.secret, g.user) ? match.replace(`:${g.secret}@`, `:${redacted(g.secret, 0)}@`) : match;
  });
  out = out.replace(QUOTED_ASSIGNMENT, (match: string, ...args: unknown[]) => {
    const g = args[args.length - 1] as { name: string; value: string };
    if (!secretNameKind(g.name) || isPlaceholder(g.value) || g.value.includes("…[redacted")) return match;
    return match.replace(g.value, redacted(g.value, 0));
  });
  out = out.replace(
    /(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(?!…\[redacted)[\s\S]*?(-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    "$1…[redacted]$2",
  );
  return out;
}

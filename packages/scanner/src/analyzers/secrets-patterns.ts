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
import { crc32 } from "node:zlib";
import type { Level, Severity } from "@ax/contracts";

export const SECRETS_VERSION = "1";

export interface SecretPattern {
  /** Rule id suffix: `secrets.<id>`. */
  id: string;
  title: string;
  /** Global regex; the `secret` group is the sensitive part (the whole match without one). */
  regex: RegExp;
  severity: Severity;
  confidence: Level;
  /** Characters of the secret that may be shown: its public, fixed prefix. */
  prefix: (secret: string) => number;
  /** Extra check on the secret (checksums, decodable JWT header, …). */
  validate?: (secret: string) => boolean;
  remediation: string;
}

const ROTATE =
  "Revoke and rotate this credential now (it is in the repository's history), then load it at run time from a secret store or environment variable.";
const fixed = (n: number) => () => n;
/**
 * Token boundaries: token characters include `-` and `_`, so `\b` is not enough; `+` and `/`
 * keep matches out of base64 blobs. `=` may precede a token (`TOKEN=ghp_…`): in base64 it is
 * only trailing padding.
 */
const B = "(?<![A-Za-z0-9_+/-])";
const E = "(?![A-Za-z0-9_+/=-])";

const re = (source: string, flags = "g") => new RegExp(source, flags);

export const KNOWN_PATTERNS: readonly SecretPattern[] = [
  {
    id: "aws-access-key-id",
    title: "AWS access key id",
    regex: re(`${B}(?<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})${E}`),
    severity: "HIGH",
    confidence: "MEDIUM",
    prefix: fixed(4),
    remediation: `${ROTATE} Prefer IAM roles or short-lived credentials over access keys.`,
  },
  {
    id: "aws-secret-access-key",
    title: "AWS secret access key",
    regex: re(`(?:aws|AWS)[\\w.-]{0,20}(?:secret|SECRET|Secret)[\\w.-]{0,20}["']?\\s*[:=]{1,2}>?\\s*["']?(?<secret>[A-Za-z0-9/+]{40})${E}`),
    severity: "CRITICAL",
    confidence: "HIGH",
    prefix: fixed(0),
    validate: (s) => looksRandom(s, 4.0),
    remediation: ROTATE,
  },
  {
    id: "github-token",
    title: "GitHub token",
    regex: re(`${B}(?<secret>gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: (s) => (s.startsWith("github_pat_") ? 11 : 4),
    remediation: ROTATE,
  },
  {
    id: "gitlab-token",
    title: "GitLab personal access token",
    regex: re(`${B}(?<secret>glpat-[A-Za-z0-9_-]{20,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(6),
    remediation: ROTATE,
  },
  {
    id: "slack-token",
    title: "Slack token",
    regex: re(`${B}(?<secret>xox[abpr]-[0-9]{8,}-[0-9A-Za-z-]{8,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(5),
    remediation: ROTATE,
  },
  {
    id: "slack-webhook",
    title: "Slack incoming webhook URL",
    regex: re(`(?<secret>https://hooks\\.slack\\.com/services/T[A-Z0-9]{8,}/B[A-Z0-9]{8,}/[A-Za-z0-9]{20,})`),
    severity: "MEDIUM",
    confidence: "HIGH",
    prefix: fixed(33),
    remediation: ROTATE,
  },
  {
    id: "stripe-secret-key",
    title: "Stripe live secret key",
    regex: re(`${B}(?<secret>(?:sk|rk)_live_[0-9A-Za-z]{24,})${E}`),
    severity: "CRITICAL",
    confidence: "HIGH",
    prefix: fixed(8),
    remediation: ROTATE,
  },
  {
    id: "google-api-key",
    title: "Google API key",
    regex: re(`${B}(?<secret>AIza[0-9A-Za-z_-]{35})${E}`),
    // Often meant to ship in a client app (Maps, Firebase): restrict it rather than assume a breach.
    severity: "MEDIUM",
    confidence: "HIGH",
    prefix: fixed(4),
    remediation: "If this key is not meant to be public, rotate it; in any case restrict it to the APIs and referrers/apps that need it.",
  },
  {
    id: "jwt",
    title: "JSON Web Token",
    regex: re(`${B}(?<secret>eyJ[A-Za-z0-9_-]{10,}\\.eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{16,})${E}`),
    severity: "MEDIUM",
    confidence: "MEDIUM",
    prefix: fixed(3),
    validate: isSignedJwt,
    remediation: "Remove the token; if it grants access and has not expired, revoke the session or rotate the signing key.",
  },
  {
    id: "npm-token",
    title: "npm access token",
    regex: re(`${B}(?<secret>npm_[A-Za-z0-9]{36})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(4),
    remediation: ROTATE,
  },
  {
    id: "twilio-api-key",
    title: "Twilio API key",
    regex: re(`${B}(?<secret>SK[0-9a-f]{32})${E}`),
    severity: "HIGH",
    confidence: "MEDIUM",
    prefix: fixed(2),
    remediation: ROTATE,
  },
  {
    id: "sendgrid-api-key",
    title: "SendGrid API key",
    regex: re(`${B}(?<secret>SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(3),
    remediation: ROTATE,
  },
  {
    id: "openai-api-key",
    title: "OpenAI API key",
    regex: re(`${B}(?<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(3),
    remediation: ROTATE,
  },
  {
    id: "anthropic-api-key",
    title: "Anthropic API key",
    regex: re(`${B}(?<secret>sk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{80,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(7),
    remediation: ROTATE,
  },
  {
    id: "azure-storage-key",
    title: "Azure storage account key",
    regex: re(`AccountKey=(?<secret>[A-Za-z0-9+/]{86}==)`),
    severity: "CRITICAL",
    confidence: "HIGH",
    prefix: fixed(0),
    validate: (s) => looksRandom(s, 4.5),
    remediation: ROTATE,
  },
  {
    id: "pypi-token",
    title: "PyPI API token",
    regex: re(`${B}(?<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(5),
    remediation: ROTATE,
  },
  {
    id: "docker-hub-token",
    title: "Docker Hub access token",
    regex: re(`${B}(?<secret>dckr_pat_[A-Za-z0-9_-]{27,})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(9),
    remediation: ROTATE,
  },
  {
    id: "shopify-token",
    title: "Shopify access token",
    regex: re(`${B}(?<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(6),
    remediation: ROTATE,
  },
  {
    id: "digitalocean-token",
    title: "DigitalOcean token",
    regex: re(`${B}(?<secret>do[opr]_v1_[a-f0-9]{64})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(7),
    remediation: ROTATE,
  },
  {
    id: "ax-token",
    title: "ax personal access token",
    regex: re(`${B}(?<secret>axk_[0-9A-Za-z]{46})${E}`),
    severity: "HIGH",
    confidence: "HIGH",
    prefix: fixed(4),
    // The last six characters are a base62 CRC32 of the rest: a mistyped or made-up token is not a credential.
    validate: isAxToken,
    remediation: `${ROTATE} Revoke it with \`ax token revoke\` or in the web UI.`,
  },
];

/**
 * Credentials in a connection URL: `scheme://user:password@host`. Database and broker schemes
 * are "database-url"; http(s)/ftp are "url-credentials".
 */
export const URL_CREDENTIALS = re(
  `(?<scheme>postgres(?:ql)?|mysql|mariadb|mongodb(?:\\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+|https?|ftps?)://(?<user>[^\\s:@/'"\`<>{}]{1,100}):(?<secret>[^\\s@/'"\`<>]{3,200})@(?<host>[A-Za-z0-9._-]+)`,
);

export const DATABASE_SCHEMES = /^(postgres(ql)?|mysql|mariadb|mongodb(\+srv)?|rediss?|amqps?|mssql|sqlserver|jdbc:[a-z]+)$/;

/** Passwords that are defaults of local containers and docs, not secrets. */
const DEFAULT_PASSWORDS = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "changeme",
  "change_me",
  "postgres",
  "root",
  "admin",
  "mysql",
  "redis",
  "guest",
  "example",
  "test",
  "testing",
  "dev",
  "development",
  "local",
  "localhost",
  "user",
  "username",
  "default",
  "sample",
  "dummy",
  "foobar",
  "foo",
  "bar",
  "baz",
  "qwerty",
  "letmein",
  "welcome",
  "123456",
  "12345678",
  "password1",
  "password123",
  "xxx",
]);

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

/** Bits per character. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  const n = [...s].length;
  for (const count of counts.values()) {
    const p = count / n;
    h -= p * Math.log2(p);
  }
  return h;
}

function charClasses(s: string): number {
  return [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(s)).length;
}

/** Mixed-case alphanumeric (or base64) with the entropy of a random string. */
export function looksRandom(s: string, minEntropy: number): boolean {
  return /[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s) && shannonEntropy(s) >= minEntropy && !isPlaceholder(s);
}

const PLACEHOLDER_WORDS =
  /example|sample|dummy|placeholder|changeme|change[_-]me|your[_-]?(?:own[_-]?)?(?:api|secret|token|key|pass|password)|insert|replace[_-]?me|redacted|fake|mock|notreal|not[_-]a[_-]real|todo|fixme|xxxx|\*\*\*|\.\.\.|<[^>]*>|\$\{|\{\{|%\(|%s|#\{|process\.env|os\.environ|getenv|env\(|secrets\./i;

/** True for values that only stand in for a secret. */
export function isPlaceholder(value: string): boolean {
  if (PLACEHOLDER_WORDS.test(value)) return true;
  const body = value.replace(/^[A-Za-z]+[_-]/, "");
  if (new Set(body.toLowerCase()).size <= 3) return true; // aaaa, 0000, abab, x-x-x
  if (/^(0123456789|1234567890|abcdefgh|ABCDEFGH)/.test(body)) return true;
  return DEFAULT_PASSWORDS.has(value.toLowerCase());
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Words joined the way identifiers are: password_reset, passwordField, SECRET_NAME, my-token-name. */
const IDENTIFIER_LIKE = /^(?:[a-z]+(?:[_.-][a-z]+)*|[A-Z]+(?:_[A-Z]+)*|[a-z]+(?:[A-Z][a-z]+)+|[A-Z][a-z]+(?:[A-Z][a-z]+)+)$/;

/**
 * Whether a value assigned to a secret-sounding name looks like a real secret. Passwords may
 * be shorter; tokens and keys must look random. UUIDs are skipped: overwhelmingly ids.
 */
export function isGenericSecretValue(value: string, kind: "password" | "key"): { ok: boolean; entropy: number } {
  const entropy = shannonEntropy(value);
  if (value.length < 8 || value.length > 256 || /\s/.test(value)) return { ok: false, entropy };
  if (isPlaceholder(value) || UUID.test(value) || IDENTIFIER_LIKE.test(value) || isWordy(value)) return { ok: false, entropy };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^[./~]/.test(value) || /^-?\d+(\.\d+)?$/.test(value)) return { ok: false, entropy };
  const ok =
    kind === "password" ? entropy >= 3.0 && charClasses(value) >= 2 : value.length >= 16 && entropy >= 3.5 && charClasses(value) >= 2;
  return { ok, entropy };
}

/**
 * Mostly lower-case words (`required|min:8|confirmed`, `read-write,admin`): rules, enums and
 * labels. Random keys rarely have runs of three lower-case letters (hex has only a–f).
 */
function isWordy(value: string): boolean {
  const words = value.match(/[a-z]{3,}/g) ?? [];
  return words.reduce((n, w) => n + w.length, 0) >= value.length * 0.6;
}

/** Whether a URL's password part is a real one (not `${DB_PASSWORD}`, `postgres`, the user name). */
export function isUrlPassword(password: string, user: string): boolean {
  if (password === user || isPlaceholder(password)) return false;
  return !/^[:$%{<]/.test(password);
}

function isSignedJwt(token: string): boolean {
  const [header, payload, signature] = token.split(".");
  if (!header || !payload || !signature) return false;
  try {
    const h = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as unknown;
    const p = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    if (typeof h !== "object" || h === null || typeof p !== "object" || p === null) return false;
    const alg = (h as { alg?: unknown }).alg;
    return typeof alg === "string" && alg.toLowerCase() !== "none";
  } catch {
    return false;
  }
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function isAxToken(token: string): boolean {
  let n = crc32(Buffer.from(token.slice(0, -6), "utf8"));
  let sum = "";
  for (; n > 0; n = Math.floor(n / 62)) sum = BASE62[n % 62] + sum;
  return sum.padStart(6, "0") === token.slice(-6);
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

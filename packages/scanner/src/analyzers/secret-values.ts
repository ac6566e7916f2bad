/**
 * Whether a value found by the secrets detector is a live credential or only stands in for
 * one (`changeme`, `xxxx`, `<your-key>`, `${VAR}`, example/dummy values, one repeated
 * character, the default passwords of local containers), and whether it has the entropy of
 * a random string. Part of what SECRETS_VERSION (secrets-patterns.ts) versions.
 */

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

const PLACEHOLDER_WORDS = new RegExp(
  String.raw`example|sample|dummy|placeholder|changeme|change[_-]me|your[_-]?(?:own[_-]?)?(?:api|secret|token|key|pass|password)` +
    String.raw`|insert|replace[_-]?me|redacted|fake|mock|notreal|not[_-]a[_-]real|todo|fixme|xxxx|\*\*\*|\.\.\.|<[^>]*>|\$\{|\{\{|%\(|%s|#\{` +
    String.raw`|process\.env|os\.environ|getenv|env\(|secrets\.`,
  "i",
);

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

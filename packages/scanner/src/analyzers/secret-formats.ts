/**
 * Known token formats for the secrets detector: a fixed prefix and length (and, where the
 * format has one, a checksum or a decodable header), so they are precise. Part of what
 * SECRETS_VERSION (secrets-patterns.ts) versions.
 */
import { crc32 } from "node:zlib";
import type { Level, Severity } from "@ax/contracts";
import { looksRandom } from "./secret-values";

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

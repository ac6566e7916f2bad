// Tokens are generated at run time from a seeded generator: no credential-shaped literal is
// committed (push protection and other scanners would flag it), and the runs are repeatable.
import { crc32 } from "node:zlib";
import type { NormalizedFinding } from "@ax/contracts";
import { secretsAnalyzer } from "./secrets";
import { isGenericSecretValue, isPlaceholder, redactSecrets, secretNameKind, shannonEntropy } from "./secrets-patterns";
import { AnalyzerOutputLimitError, type AnalyzerContext } from "./types";
import { analyzerContext, writeCheckout } from "../../test/analyzer-fixture";
import { removeDir, tempDir } from "../../test/git-fixtures";

let root: string;
beforeAll(() => {
  root = tempDir();
});
afterAll(() => removeDir(root));

const ctx = (dir: string, files: string[], over: Partial<AnalyzerContext> = {}) => analyzerContext(root, dir, files, over);
async function scan(name: string, files: Record<string, string | Buffer>): Promise<NormalizedFinding[]> {
  const dir = writeCheckout(root, name, files);
  return secretsAnalyzer().run(ctx(dir, Object.keys(files)));
}

let seed = 20240611;
function rand(alphabet: string, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    out += alphabet[Math.floor((seed / 2147483648) * alphabet.length)];
  }
  return out;
}
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64 = `${B62}+/`;
const URLSAFE = `${B62}_-`;
const HEX = "0123456789abcdef";
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

function axToken(): string {
  const body = `axk_${rand(B62, 40)}`;
  let n = crc32(Buffer.from(body));
  let sum = "";
  for (; n > 0; n = Math.floor(n / 62)) sum = B62[n % 62] + sum;
  return body + sum.padStart(6, "0");
}

const tokens = {
  awsId: `AKIA${rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`,
  awsSecret: `${rand(B64, 38)}a9`,
  github: `gh${"p"}_${rand(B62, 36)}`,
  githubPat: `github_pat_${rand(B62, 22)}_${rand(B62, 59)}`,
  gitlab: `glpat-${rand(URLSAFE, 20)}`,
  slack: `xox${"b"}-${rand("0123456789", 12)}-${rand("0123456789", 13)}-${rand(B62, 24)}`,
  stripe: `sk_${"live"}_${rand(B62, 24)}`,
  google: `AIza${rand(URLSAFE, 35)}`,
  jwt: `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url({ sub: "1234567890", name: "Ada", iat: 1516239022 })}.${rand(URLSAFE, 43)}`,
  npm: `npm_${rand(B62, 36)}`,
  twilio: `SK${rand(HEX, 32)}`,
  sendgrid: `SG.${rand(URLSAFE, 22)}.${rand(URLSAFE, 43)}`,
  openai: `sk-proj-${rand(B62, 20)}T3BlbkFJ${rand(B62, 20)}`,
  azure: `${rand(B64, 86)}==`,
  ax: axToken(),
  dbPassword: `N7x!pQ2r${rand(B62, 6)}`,
  password: `q8#Lm2!vR7zT${rand(B62, 4)}`,
  apiKey: rand(B62, 32),
};
const pemBody = Array.from({ length: 8 }, () => rand(B64, 64)).join("\n");

const TRUE_POSITIVES: Record<string, string> = {
  "deploy/aws.ini": `[default]\naws_access_key_id = ${tokens.awsId}\naws_secret_access_key = ${tokens.awsSecret}\n`,
  "src/github.ts": `const a = "${tokens.github}";\nconst b = '${tokens.githubPat}';\n`,
  "ci/gitlab.yml": `variables:\n  TOKEN: ${tokens.gitlab}\n`,
  "src/slack.py": `client = WebClient(token="${tokens.slack}")\n`,
  "src/pay.rb": `Stripe.api_key = "${tokens.stripe}"\n`,
  "web/maps.js": `const MAPS = "${tokens.google}";\n`,
  "certs/server.key": `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\n`,
  "src/session.go": `var session = "${tokens.jwt}"\n`,
  ".npmrc": `//registry.npmjs.org/:_authToken=${tokens.npm}\n`,
  "src/sms.php": `$sid = '${tokens.twilio}';\n`,
  "src/mail.cs": `var key = "${tokens.sendgrid}";\n`,
  "src/llm.ts": `const client = new OpenAI({ apiKey: "${tokens.openai}" });\n`,
  "config/storage.txt": `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${tokens.azure};EndpointSuffix=core.windows.net\n`,
  "scripts/ax.sh": `export AX_TOKEN=${tokens.ax}\n`,
  "config/database.yml": `production:\n  url: postgres://app:${tokens.dbPassword}@db.prod.acme.io:5432/app\n`,
  "src/db.java": `String dbPassword = "${tokens.password}";\n`,
  ".env": `API_KEY=${tokens.apiKey}\n`,
};

describe("true positives", () => {
  let findings: NormalizedFinding[];
  beforeAll(async () => {
    findings = await scan("tp", TRUE_POSITIVES);
  });
  const one = (file: string, rule: string) => {
    const hits = findings.filter((f) => f.file === file && f.rule_id === rule);
    expect(hits).toHaveLength(1);
    return hits[0] as NormalizedFinding;
  };

  it("finds each format once, at its line, as CWE-798", () => {
    expect(findings.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`).sort()).toEqual(
      [
        "deploy/aws.ini:2:secrets.aws-access-key-id",
        "deploy/aws.ini:3:secrets.aws-secret-access-key",
        "src/github.ts:1:secrets.github-token",
        "src/github.ts:2:secrets.github-token",
        "ci/gitlab.yml:2:secrets.gitlab-token",
        "src/slack.py:1:secrets.slack-token",
        "src/pay.rb:1:secrets.stripe-secret-key",
        "web/maps.js:1:secrets.google-api-key",
        "certs/server.key:1:secrets.private-key",
        "src/session.go:1:secrets.jwt",
        ".npmrc:1:secrets.npm-token",
        "src/sms.php:1:secrets.twilio-api-key",
        "src/mail.cs:1:secrets.sendgrid-api-key",
        "src/llm.ts:1:secrets.openai-api-key",
        "config/storage.txt:1:secrets.azure-storage-key",
        "scripts/ax.sh:1:secrets.ax-token",
        "config/database.yml:2:secrets.database-url",
        "src/db.java:1:secrets.generic-password",
        ".env:1:secrets.generic-secret",
      ].sort(),
    );
    for (const f of findings) {
      expect(f).toMatchObject({
        analyzer: "secrets",
        cwe_id: "CWE-798",
        cwe_name: "Use of Hard-coded Credentials",
        owasp: "A07:2021-Identification and Authentication Failures",
        fingerprint: "",
      });
    }
  });

  it("never stores a secret in clear: snippet, message and raw show a prefix and the length", () => {
    const dump = JSON.stringify(findings);
    for (const [name, value] of Object.entries(tokens)) expect([name, dump.includes(value)]).toEqual([name, false]);
    expect(dump).not.toContain(pemBody.slice(0, 40));
    const gh = findings.find((f) => f.file === "src/github.ts" && f.start_line === 1) as NormalizedFinding;
    expect(gh.snippet).toBe('const a = "ghp_…[redacted, 40 chars]";');
    expect(gh.message).toBe("GitHub token ghp_…[redacted, 40 chars] is hard-coded in the repository.");
    expect(gh.raw).toMatchObject({ kind: "github-token", length: 40, redacted: "ghp_…[redacted, 40 chars]" });
  });

  it("rates by kind: private keys and AWS key pairs critical, and positions point at the secret", () => {
    expect(one("certs/server.key", "secrets.private-key")).toMatchObject({
      severity: "CRITICAL",
      confidence: "HIGH",
      start_line: 1,
      end_line: 10,
      start_column: 1,
      end_column: 30,
      snippet: "-----BEGIN RSA PRIVATE KEY-----…[redacted, 512 chars]",
    });
    // An access key id with its secret key five lines around is a working pair.
    expect(one("deploy/aws.ini", "secrets.aws-access-key-id")).toMatchObject({
      severity: "CRITICAL",
      confidence: "HIGH",
      start_column: 21,
      end_column: 41,
    });
    expect(one("deploy/aws.ini", "secrets.aws-access-key-id").raw).toMatchObject({ paired_secret_line: 3 });
    expect(one("deploy/aws.ini", "secrets.aws-secret-access-key")).toMatchObject({ severity: "CRITICAL" });
    expect(one("src/pay.rb", "secrets.stripe-secret-key")).toMatchObject({ severity: "CRITICAL" });
    expect(one("web/maps.js", "secrets.google-api-key")).toMatchObject({ severity: "MEDIUM", confidence: "HIGH" });
    expect(one("config/database.yml", "secrets.database-url")).toMatchObject({
      severity: "HIGH",
      snippet: "url: postgres://app:…[redacted, 14 chars]@db.prod.acme.io:5432/app",
    });
    expect(one("src/db.java", "secrets.generic-password")).toMatchObject({ severity: "HIGH", confidence: "MEDIUM" });
  });

  it("reports an AWS secret key that has no telling name when its key id is near", async () => {
    const found = await scan("aws-pair", { "x.json": `{\n  "id": "${tokens.awsId}",\n  "key": "${tokens.awsSecret}"\n}\n` });
    expect(found.map((f) => `${f.start_line}:${f.rule_id}:${f.severity}`)).toEqual([
      "2:secrets.aws-access-key-id:CRITICAL",
      "3:secrets.aws-secret-access-key:CRITICAL",
    ]);
  });
});

it("finds a private key written on one line with \\n escapes (service-account JSON) and keeps the rest of the line", async () => {
  const body = Array.from({ length: 6 }, () => rand(B64, 64)).join("\\n");
  const json =
    `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n${body}\\n-----END PRIVATE KEY-----\\n", ` +
    `"client_email": "ci@acme.iam"}\n`;
  const [key, ...rest] = await scan("sa-json", { "keys/sa.json": json });
  expect(rest).toEqual([]);
  expect(key).toMatchObject({ rule_id: "secrets.private-key", severity: "CRITICAL", start_line: 1, end_line: 1 });
  expect(key?.snippet).toBe(
    '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----…[redacted, 384 chars]\\n", "client_email": "ci@acme.iam"}',
  );
  expect(JSON.stringify(key)).not.toContain(body.slice(0, 30));
});

it("lowers the confidence of secrets in tests and fixtures", async () => {
  const line = `const a = "${tokens.github}";\n`;
  const found = await scan("test-paths", { "src/a.ts": line, "test/fixtures/a.ts": line, "src/a.test.ts": line });
  expect(Object.fromEntries(found.map((f) => [f.file, f.confidence]))).toEqual({
    "src/a.ts": "HIGH",
    "test/fixtures/a.ts": "MEDIUM",
    "src/a.test.ts": "MEDIUM",
  });
});

it("ignores an ax token whose checksum is wrong, and a JWT without a signature", async () => {
  const bad = `${tokens.ax.slice(0, -1)}${tokens.ax.endsWith("0") ? "1" : "0"}`;
  const unsigned = `${b64url({ alg: "none" })}.${b64url({ sub: "1" })}.`;
  expect(await scan("invalid", { "a.txt": `${bad}\n${unsigned}\n` })).toEqual([]);
});

describe("false-positive traps: zero findings", () => {
  const integrity = () => `sha512-${rand(B64, 86)}==`;
  const traps: Record<string, string | Buffer> = {
    "package-lock.json": JSON.stringify(
      {
        packages: {
          "node_modules/a": { resolved: "https://registry.npmjs.org/a/-/a-1.0.0.tgz", integrity: integrity(), token: tokens.github },
        },
      },
      null,
      2,
    ),
    "yarn.lock": `a@^1.0.0:\n  version "1.0.0"\n  integrity ${integrity()}\n`,
    "web/a.lock": `secret = "${tokens.password}"\n`,
    "src/ids.ts": [
      'const requestId = "123e4567-e89b-12d3-a456-426614174000";',
      'const token = "550e8400-e29b-41d4-a716-446655440000";',
      'const session_id = "9b2f6c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";',
    ].join("\n"),
    "src/git.py": [
      'commit = "3f786850e387550fdab836ed7e6dc881de23001b"',
      'COMMIT_SHA = "da39a3ee5e6b4b0d3255bfef95601890afd80709"',
      'checksum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
      'etag = "W/5e4d3c2b1a09f8e7d6c5b4a3928170fe"',
    ].join("\n"),
    "web/style.css":
      ".logo { background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" +
      `${tokens.awsId}AKIAABCDEFGHIJKLMNOP+/=); }\n`,
    "web/app.min.js": `!function(e){var t={};${Array.from(
      { length: 300 },
      (_, i) => `t.k${i}=function(n){return n.login({password:"${rand(B62, 12)}"})||n.v${i}("${rand(HEX, 32)}")};`,
    ).join("")}}(window);\n`,
    "config/app.yml": [
      "database:",
      '  password: "${DB_PASSWORD}"',
      "  api_key: changeme",
      '  secret: "<your-secret-here>"',
      "  token: xxxxxxxxxxxxxxxx",
      '  client_secret: "{{ .Values.clientSecret }}"',
      "  password: ********",
      "  auth_token: ${AUTH_TOKEN:-}",
    ].join("\n"),
    ".env.example": [
      "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "API_KEY=your-api-key",
      "DB_PASSWORD=password123",
    ].join("\n"),
    "src/config.js": [
      "const token = process.env.TOKEN;",
      "const password = os.environ['PASSWORD']",
      'const passwordField = "password_input";',
      'const token_url = "https://auth.example.com/oauth/token";',
      'const PASSWORD_LABEL = "Password";',
      'const messages = { password: "Enter your password" };',
      'const secretName = "prod/db/credentials";',
      'const password_reset_route = "/account/password/reset";',
      "const apiKey = getApiKey();",
      'const stripeTest = "sk_test_' + rand(B62, 24) + '";',
      'const hash = "d41d8cd98f00b204e9800998ecf8427e";',
    ].join("\n"),
    "docker-compose.yml": [
      "services:",
      "  db:",
      "    environment:",
      "      DATABASE_URL: postgres://postgres:postgres@localhost:5432/app",
      "      REDIS_URL: redis://:${REDIS_PASSWORD}@redis:6379",
      "      MYSQL_URL: mysql://root:root@127.0.0.1/db",
    ].join("\n"),
    "docs/keys.md": "```\n-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----\n```\n",
    "assets/blob.bin": Buffer.concat([Buffer.from([0x00, 0x01, 0x02]), Buffer.from(`token=${tokens.github}`)]),
    "data/big.txt": `${"x".repeat(1024 * 1024)}\n${tokens.github}\n`,
  };

  it("finds nothing in lock files, ids, hashes, images, minified code, placeholders, binaries and large files", async () => {
    const found = await scan("traps", traps);
    expect(found.map((f) => `${f.file}:${f.start_line}:${f.rule_id}`)).toEqual([]);
  });

  it("would have reported the minified line's password on a line of normal length (the trap is live)", async () => {
    const short = await scan("minified-short", { "web/app.js": `n.login({password:"${rand(B62, 12)}"})\n` });
    expect(short.map((f) => f.rule_id)).toEqual(["secrets.generic-password"]);
  });
});

it("stops at the output cap and keeps what it found", async () => {
  const many = Array.from({ length: 200 }, () => `t = "${`gh${"p"}_${rand(B62, 36)}`}"`).join("\n");
  const dir = writeCheckout(root, "cap", { "a.txt": many, "b.txt": many });
  const err = await secretsAnalyzer()
    .run(ctx(dir, ["a.txt", "b.txt"], { maxOutputBytes: 50_000 }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(AnalyzerOutputLimitError);
  expect((err as AnalyzerOutputLimitError).partial.length).toBeGreaterThan(0);
});

it("is cacheable, reads every text file, and names its version", async () => {
  const a = secretsAnalyzer();
  expect(a.languages).toBe("*");
  expect(a.cacheable).toBe(true);
  await expect(a.version()).resolves.toMatch(/^\d+$/);
});

describe("helpers", () => {
  it("tells secret names from names about secrets", () => {
    expect(
      ["DB_PASSWORD", "dbPassword", "api_key", "apiKey", "client-secret", "AUTH_TOKEN", "settings.secretKey"].map(secretNameKind),
    ).toEqual(["password", "password", "key", "key", "key", "key", "key"]);
    expect(["password_field", "token_url", "secretName", "PASSWORD_LABEL", "username", "monkey", "keyboard"].map(secretNameKind)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it("recognises placeholders and low-entropy values", () => {
    for (const v of [
      "changeme",
      "xxxxxxxx",
      "<your-key>",
      "${TOKEN}",
      "{{ secret }}",
      "process.env.X",
      "example-key-123",
      "00000000",
      "abcabcabc",
      "password123",
    ]) {
      expect([v, isPlaceholder(v)]).toEqual([v, true]);
    }
    expect(isGenericSecretValue("hunter2", "password").ok).toBe(false);
    expect(isGenericSecretValue("passwordResetToken", "key").ok).toBe(false);
    expect(isGenericSecretValue("q8#Lm2!vR7zT", "password").ok).toBe(true);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("abcd")).toBe(2);
  });

  it("redacts secrets in other analyzers' text", () => {
    expect(redactSecrets(`x = "${tokens.github}"; password = "hunter2"`)).toBe(
      'x = "ghp_…[redacted, 40 chars]"; password = "…[redacted, 7 chars]"',
    );
    expect(redactSecrets("connect(postgres://u:S3cret-Value@db/x)")).toBe("connect(postgres://u:…[redacted, 12 chars]@db/x)");
    expect(redactSecrets('label = "Password"; const token = process.env.T')).toBe('label = "Password"; const token = process.env.T');
  });
});

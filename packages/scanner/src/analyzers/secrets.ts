/**
 * The secrets detector: hard-coded credentials (CWE-798) in any text file, found in-process
 * without an external tool. Precision first: a noisy secrets scanner is switched off.
 *
 * - Known formats (AWS, GitHub, GitLab, Slack, Stripe, Google, npm, Twilio, SendGrid,
 *   OpenAI, Anthropic, Azure, PyPI, Docker Hub, Shopify, DigitalOcean, our own axk_ tokens
 *   with their checksum, JWTs with a signature, PEM private keys, passwords in connection
 *   URLs), see secrets-patterns.ts.
 * - Generic assignments (`password = "…"`, `API_KEY: …`) only with a secret-sounding name and
 *   a value with enough entropy; bare (unquoted) values only in config files.
 * - Never: binary files (NUL bytes), lock files, files over 1 MiB, data: URIs, placeholders,
 *   UUIDs, identifiers; generic matches on minified lines. Test and fixture paths lower the
 *   confidence one step.
 *
 * The secret itself never leaves this module: snippet, message and raw show its public
 * prefix and its length only.
 */
import { lstat, open } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Level, NormalizedFinding, Severity } from "@ax/contracts";
import { ScanAbortedError } from "../errors";
import { formatBytes, formatDuration } from "../format";
import { buildFinding } from "./finding";
import { cap, isTestPath, lowerLevel, repoPath } from "./normalize";
import {
  DATABASE_SCHEMES,
  genericPrefix,
  isGenericSecretValue,
  isPlaceholder,
  isUrlPassword,
  KNOWN_PATTERNS,
  looksRandom,
  PRIVATE_KEY_BEGIN,
  redacted,
  redactSecrets,
  SECRETS_VERSION,
  secretNameKind,
  shannonEntropy,
  URL_CREDENTIALS,
  type SecretPattern,
} from "./secrets-patterns";
import { loadTaxonomy, type Taxonomy } from "./taxonomy";
import { AnalyzerOutputLimitError, AnalyzerTimeoutError, type Analyzer, type AnalyzerContext } from "./types";

export const SECRETS_ANALYZER = "secrets";
export const MAX_SECRET_FILE_BYTES = 1024 * 1024;
/** Lines longer than this are minified or data: only known formats are looked for. */
const MAX_GENERIC_LINE = 4096;
const SNIPPET_WINDOW = 120;
const READ_CONCURRENCY = 16;

const LOCK_FILES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "Gemfile.lock",
  "poetry.lock",
  "Pipfile.lock",
  "composer.lock",
  "Cargo.lock",
  "go.sum",
  "packages.lock.json",
  "gradle.lockfile",
  "bun.lockb",
  "flake.lock",
  "mix.lock",
  "pubspec.lock",
  "Podfile.lock",
  "uv.lock",
  "conda-lock.yml",
  ".terraform.lock.hcl",
]);
/** Files where `KEY=value` without quotes is an assignment of a string. */
const CONFIG_FILE =
  /(^|\/)(\.env(\.[\w-]+)?|[^/]*\.(env|ini|cfg|conf|properties|ya?ml|toml|tfvars)|\.npmrc|\.pypirc|Dockerfile[^/]*|docker-compose[^/]*)$/i;
const DATA_URI = /data:[\w.+-]+\/[\w.+-]+;base64,[A-Za-z0-9+/=]+/g;
const BARE_ASSIGNMENT =
  /^\s*(?:export\s+|ENV\s+|ARG\s+)?(?<name>[A-Za-z_][\w.-]{0,60})\s*[:=]\s*(?<value>[^\s"'`#;,]{8,256})\s*(?:[#;].*)?$/d;
const QUOTED_ASSIGNMENT = /(?<name>[A-Za-z_$][\w.$-]{0,60})["']?\s*(?::=|=>|[:=])\s*(?<q>["'`])(?<value>[^"'`\\\r\n]{8,256})\k<q>/dg;
/** A line that could hold a generic secret assignment names one of these. */
const SECRET_WORD = /pass|pwd|secret|token|api[_.-]?key|apikey|credential|(?:access|private|signing|encryption|master|auth)[_.-]?key/gi;
const AWS_SECRET_CANDIDATE = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/dg;
const LOCAL_HOSTS = new RegExp(
  String.raw`^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|db|database|postgres|mysql|redis|mongo|host|hostname|` +
    String.raw`example\.(com|org|net)|[\w.-]+\.(invalid|example|test|local))$`,
  "i",
);

/** Known patterns with match indices, compiled once. */
const COMPILED = KNOWN_PATTERNS.map((p) => ({ pattern: p, regex: new RegExp(p.regex.source, "dg") }));

export interface SecretsOptions {
  maxFileBytes?: number;
}

export function secretsAnalyzer(opts: SecretsOptions = {}): Analyzer {
  return {
    name: SECRETS_ANALYZER,
    languages: "*",
    cacheable: true,
    version: async () => SECRETS_VERSION,
    run: (ctx) => scanFiles(ctx, opts.maxFileBytes ?? MAX_SECRET_FILE_BYTES),
  };
}

async function scanFiles(ctx: AnalyzerContext, maxFileBytes: number): Promise<NormalizedFinding[]> {
  const taxonomy = await loadTaxonomy();
  const deadline = Date.now() + ctx.timeoutMs;
  const perFile: NormalizedFinding[][] = new Array(ctx.files.length);
  let outputBytes = 0;
  let overLimit = false;
  let next = 0;
  const worker = async () => {
    while (next < ctx.files.length && !overLimit) {
      if (ctx.signal.aborted) throw ctx.signal.reason instanceof AnalyzerTimeoutError ? ctx.signal.reason : new ScanAbortedError();
      if (Date.now() > deadline) throw new AnalyzerTimeoutError(`secrets did not finish within ${formatDuration(ctx.timeoutMs)}.`);
      const index = next++;
      const file = ctx.files[index] as string;
      const text = await readScannable(ctx.dir, file, maxFileBytes);
      if (text === null) continue;
      const found = scanText(file, text, taxonomy);
      for (const f of found) outputBytes += JSON.stringify(f).length;
      perFile[index] = found;
      if (outputBytes > ctx.maxOutputBytes) overLimit = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, ctx.files.length) }, worker));
  const findings = perFile.flatMap((f) => f ?? []);
  if (overLimit) {
    throw new AnalyzerOutputLimitError(
      `secrets produced more than ${formatBytes(ctx.maxOutputBytes)} of findings; ${findings.length} findings were kept and the rest dropped.`,
      findings,
    );
  }
  return findings;
}

/** The file's text, or null for lock files, large files, binaries, links and anything unreadable. */
async function readScannable(dir: string, file: string, maxBytes: number): Promise<string | null> {
  if (repoPath(file) !== file || isLockFile(file)) return null;
  const full = join(dir, file);
  const info = await lstat(full).catch(() => null);
  if (!info?.isFile() || info.size > maxBytes || info.size === 0) return null;
  const handle = await open(full, "r").catch(() => null);
  if (!handle) return null;
  try {
    const buf = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buf, 0, info.size, 0);
    const bytes = buf.subarray(0, bytesRead);
    if (bytes.subarray(0, 8192).includes(0)) return null;
    return bytes.toString("utf8");
  } finally {
    await handle.close();
  }
}

export function isLockFile(file: string): boolean {
  const name = basename(file);
  return LOCK_FILES.has(name) || name.endsWith(".lock");
}

interface Hit {
  kind: string;
  title: string;
  severity: Severity;
  confidence: Level;
  remediation: string;
  /** 0-based line and UTF-16 offsets in it. */
  line: number;
  start: number;
  end: number;
  endLine?: number;
  endOffset?: number;
  secret: string;
  prefix: number;
  extra?: Record<string, unknown>;
}

/** The findings of one file's text. Exported for tests and for scanning text that is not a file. */
export function scanText(file: string, text: string, taxonomy: Taxonomy): NormalizedFinding[] {
  const lines = text.split(/\r?\n/);
  const hits: Hit[] = [];
  const taken = new Map<number, [number, number][]>();
  const overlaps = (line: number, start: number, end: number) => (taken.get(line) ?? []).some(([s, e]) => start < e && s < end);
  const add = (hit: Hit) => {
    if (overlaps(hit.line, hit.start, hit.end)) return;
    taken.set(hit.line, [...(taken.get(hit.line) ?? []), [hit.start, hit.end]]);
    hits.push(hit);
  };
  // Each pattern runs once over the whole text (far faster than line by line); offsets are
  // mapped to lines afterwards. data: URIs are blanked out with spaces, so offsets stay valid.
  const body = text.replace(DATA_URI, (m) => " ".repeat(m.length));
  const starts = lineStarts(body);
  const at = (offset: number): { line: number; col: number } => {
    const line = lineOf(starts, offset);
    return { line, col: offset - (starts[line] as number) };
  };

  if (text.includes("PRIVATE KEY")) for (const hit of privateKeys(lines)) add(hit);
  for (const { pattern, regex } of COMPILED) {
    for (const m of body.matchAll(regex)) {
      const span = m.indices?.groups?.secret;
      const secret = m.groups?.secret;
      if (!span || !secret || isPlaceholder(secret) || (pattern.validate && !pattern.validate(secret))) continue;
      const { line, col } = at(span[0]);
      add(knownHit(pattern, line, [col, col + secret.length], secret));
    }
  }
  for (const m of body.matchAll(URL_CREDENTIALS)) {
    const g = m.groups as { scheme: string; user: string; secret: string; host: string };
    if (!isUrlPassword(g.secret, g.user)) continue;
    const { line, col } = at((m.index ?? 0) + m[0].indexOf(`:${g.secret}@`) + 1);
    const database = DATABASE_SCHEMES.test(g.scheme);
    add({
      kind: database ? "database-url" : "url-credentials",
      title: database ? "Password in a database connection URL" : "Password in a URL",
      severity: database ? "HIGH" : "MEDIUM",
      confidence: LOCAL_HOSTS.test(g.host) ? "LOW" : "MEDIUM",
      remediation:
        "Take the password out of the URL and read it from a secret store or environment variable; rotate it if it was ever real.",
      line,
      start: col,
      end: col + g.secret.length,
      secret: g.secret,
      prefix: 0,
      extra: { scheme: g.scheme },
    });
  }
  // Generic assignments: only lines that name a secret at all, and are not minified.
  const configFile = CONFIG_FILE.test(file);
  const candidates = new Set<number>();
  for (const m of body.matchAll(SECRET_WORD)) candidates.add(lineOf(starts, m.index ?? 0));
  for (const i of candidates) {
    const line = lineText(body, starts, i);
    if (line.length <= MAX_GENERIC_LINE) for (const hit of genericHits(line, i, configFile)) add(hit);
  }
  pairAwsKeys(lines, hits, add);

  const testPath = isTestPath(file);
  return hits.sort((a, b) => a.line - b.line || a.start - b.start).map((hit) => toFinding(file, lines, hit, testPath, taxonomy));
}

/** Offsets where each line starts ("\n"-separated; a "\r" before it belongs to the line). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** The 0-based line holding `offset`, by binary search over `lineStarts`. */
export function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function lineText(text: string, starts: number[], line: number): string {
  const end = line + 1 < starts.length ? (starts[line + 1] as number) - 1 : text.length;
  const raw = text.slice(starts[line], end);
  return raw.endsWith("\r") ? raw.slice(0, -1) : raw;
}

function knownHit(pattern: SecretPattern, line: number, span: [number, number], secret: string): Hit {
  return {
    kind: pattern.id,
    title: pattern.title,
    severity: pattern.severity,
    confidence: pattern.confidence,
    remediation: pattern.remediation,
    line,
    start: span[0],
    end: span[1],
    secret,
    prefix: pattern.prefix(secret),
  };
}

function* genericHits(line: string, i: number, configFile: boolean): Generator<Hit> {
  const candidates: { name: string; value: string; span: [number, number] }[] = [];
  for (const m of line.matchAll(QUOTED_ASSIGNMENT)) {
    const span = m.indices?.groups?.value;
    if (span && m.groups?.name && m.groups.value) candidates.push({ name: m.groups.name, value: m.groups.value, span });
  }
  if (configFile && candidates.length === 0) {
    const m = BARE_ASSIGNMENT.exec(line);
    const span = m?.indices?.groups?.value;
    // A bare value with brackets is code (`getpass.getpass()`, `params[:password]`), not a value.
    if (m?.groups?.name && m.groups.value && span && !/[(){}[\]]/.test(m.groups.value))
      candidates.push({ name: m.groups.name, value: m.groups.value, span });
  }
  for (const { name, value, span } of candidates) {
    const kind = secretNameKind(name);
    if (!kind) continue;
    const { ok, entropy } = isGenericSecretValue(value, kind);
    if (!ok) continue;
    yield {
      kind: kind === "password" ? "generic-password" : "generic-secret",
      title: kind === "password" ? "Hard-coded password" : "Hard-coded secret",
      severity: kind === "password" ? "HIGH" : "MEDIUM",
      confidence: "MEDIUM",
      remediation: "Read the value at run time from a secret store or environment variable; if it was ever used for real, rotate it.",
      line: i,
      start: span[0],
      end: span[1],
      secret: value,
      prefix: genericPrefix(value),
      extra: { name: cap(name, 80), entropy: Math.round(entropy * 100) / 100 },
    };
  }
}

/** PEM private keys, BEGIN to END, with a body that is really key material. */
function* privateKeys(lines: string[]): Generator<Hit> {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    for (const m of line.matchAll(PRIVATE_KEY_BEGIN)) {
      const kind = (m.groups?.kind ?? "").trim();
      const begin = m.index ?? 0;
      const endMarker = /-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/;
      let body = "";
      let endLine = -1;
      let endOffset = 0;
      for (let j = i; j < Math.min(lines.length, i + 200); j++) {
        const text = j === i ? line.slice(begin + m[0].length) : (lines[j] as string);
        const end = endMarker.exec(text);
        body += end ? text.slice(0, end.index) : text;
        if (end) {
          endLine = j;
          endOffset = (j === i ? begin + m[0].length : 0) + end.index + end[0].length;
          break;
        }
      }
      // Key material: base64 without headers (Proc-Type:), quotes, "\n" escapes or string concatenation.
      const material = body
        .replace(/\\n|\\r/g, "\n")
        // String concatenation in code: "MIIE…" + "…" (a bare + is base64).
        .replace(/["'`]\s*\+\s*["'`]/g, "")
        .replace(/["'`]\s*\+\s*$/gm, "")
        .split("\n")
        .filter((l) => !l.includes(":"))
        .join("")
        .replace(/["'`,;\s]/g, "");
      const base64 = (material.match(/[A-Za-z0-9+/=]/g) ?? []).length;
      if (base64 < 64 || base64 < material.length * 0.95 || isPlaceholder(material) || shannonEntropy(material) < 4.5) continue;
      if (endLine < 0 && base64 < 200) continue;
      const encrypted = kind.includes("ENCRYPTED") || body.includes("Proc-Type: 4,ENCRYPTED");
      yield {
        kind: "private-key",
        title: `${kind ? `${kind} ` : ""}private key`.replace(/^./, (c) => c.toUpperCase()),
        severity: encrypted ? "HIGH" : "CRITICAL",
        confidence: "HIGH",
        remediation:
          "Remove the key from the repository, revoke it (certificates, deploy keys, JWT signing) and issue a new one kept in a secret store.",
        line: i,
        start: begin,
        end: begin + m[0].length,
        endLine: endLine < 0 ? i : endLine,
        endOffset: endLine < 0 ? begin + m[0].length : endOffset,
        secret: material,
        prefix: 0,
        extra: { encrypted, key_type: kind || "PKCS8" },
      };
    }
  }
}

/**
 * An AWS access key id with a secret key within five lines is a working credential pair: the
 * id becomes CRITICAL, and the secret key is reported too even without an `aws_secret` name.
 */
function pairAwsKeys(lines: string[], hits: Hit[], add: (hit: Hit) => void): void {
  for (const id of hits.filter((h) => h.kind === "aws-access-key-id")) {
    for (let j = Math.max(0, id.line - 5); j <= Math.min(lines.length - 1, id.line + 5); j++) {
      const existing = hits.find((h) => h.kind === "aws-secret-access-key" && h.line === j);
      let secretHit = existing;
      if (!secretHit) {
        for (const m of (lines[j] as string).matchAll(AWS_SECRET_CANDIDATE)) {
          const span = m.indices?.[0];
          if (!span || !looksRandom(m[0], 4.0)) continue;
          secretHit = {
            ...knownHit(KNOWN_PATTERNS.find((p) => p.id === "aws-secret-access-key") as SecretPattern, j, span, m[0]),
            confidence: "MEDIUM",
          };
          add(secretHit);
          break;
        }
      }
      if (secretHit) {
        id.severity = "CRITICAL";
        id.confidence = "HIGH";
        id.extra = { paired_secret_line: j + 1 };
        break;
      }
    }
  }
}

function toFinding(file: string, lines: string[], hit: Hit, testPath: boolean, taxonomy: Taxonomy): NormalizedFinding {
  const shown = redacted(hit.secret, hit.prefix);
  const line = lines[hit.line] as string;
  const endLine = hit.endLine ?? hit.line;
  const endOffset = hit.endOffset ?? hit.end;
  const endText = lines[endLine] as string;
  const snippet = redactedSnippet(line, hit, shown);
  return buildFinding(
    {
      analyzer: SECRETS_ANALYZER,
      rule_id: `${SECRETS_ANALYZER}.${hit.kind}`,
      title: hit.title,
      message: `${hit.title} ${shown} is hard-coded in the repository.`,
      cwe_id: "CWE-798",
      file,
      start_line: hit.line + 1,
      end_line: endLine + 1,
      start_column: column(line, hit.start),
      end_column: column(endText, endOffset),
      snippet,
      severity: hit.severity,
      confidence: testPath ? lowerLevel(hit.confidence) : hit.confidence,
      remediation: hit.remediation,
      raw: {
        kind: hit.kind,
        redacted: shown,
        length: [...hit.secret].length,
        test_path: testPath,
        // The fingerprint's "matched code": the redacted line, so moving it keeps triage.
        text: snippet,
        ...hit.extra,
      },
    },
    taxonomy,
  );
}

/** The line with this secret (and any other on it) redacted; a window of it when the line is long. */
function redactedSnippet(line: string, hit: Hit, shown: string): string {
  const before = line.slice(0, hit.start);
  let middle = shown;
  let after = line.slice(hit.end);
  if (hit.kind === "private-key") {
    // Keep the BEGIN marker; drop the key body, which may run on along this line ("\n" escapes).
    middle = line.slice(hit.start, hit.end) + shown;
    after = hit.endLine === hit.line ? line.slice(hit.endOffset) : "";
  }
  const replaced = redactSecrets(before + middle + after);
  if (replaced.length <= SNIPPET_WINDOW * 2 + middle.length) return replaced.trim();
  const at = Math.max(0, before.length - SNIPPET_WINDOW);
  return `${at > 0 ? "…" : ""}${replaced.slice(at, before.length + middle.length + SNIPPET_WINDOW)}…`.trim();
}

/** 1-based column in characters of a UTF-16 offset. */
function column(line: string, offset: number): number {
  return [...line.slice(0, offset)].length + 1;
}

import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { ChatSpecialistName } from "@ax/contracts";

/**
 * The only module that reads process.env. Each variable is parsed once, with a message that
 * says how to fix a bad value; `.env.example` documents every one of them.
 */

const Bool = z
  .enum(["true", "false", "1", "0", "yes", "no", ""], { message: "must be true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");

const Int = (min: number, max: number) =>
  z.coerce.number({ message: "must be a whole number" }).int({ message: "must be a whole number" }).min(min).max(max);

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    /** HTTP port of the API (npm start and start:api). */
    PORT: Int(0, 65535).default(8080),
    /** Interface the API listens on. */
    HOST: z.string().min(1).default("0.0.0.0"),
    /** PostgreSQL connection string. Unset: embedded PGlite under DATA_DIR (single process). */
    DATABASE_URL: z
      .string()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), { message: "must start with postgres:// or postgresql://" }),
    /** Where the embedded database and the initial token live. */
    DATA_DIR: z.string().min(1).default("./.data"),
    /** Redis for the job queue. */
    REDIS_URL: z
      .string()
      .default("redis://127.0.0.1:6379")
      .refine((v) => /^rediss?:\/\//.test(v), { message: "must start with redis:// or rediss://" }),
    /** npm start launches redis-server itself when nothing answers at REDIS_URL. */
    REDIS_AUTOSTART: Bool.default(true),
    /** Key prefix of every queue; braces make it a Redis Cluster hash tag. */
    QUEUE_PREFIX: z.string().min(1).max(64).default("{ax}"),
    LOG_LEVEL: z.enum(["error", "warn", "info", "http", "verbose", "debug", "silly"]).default("info"),
    /** json (production default) or pretty (development default). */
    LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
    /** Scans one worker process runs at once. */
    WORKER_CONCURRENCY: Int(1, 64).default(2),
    /** true also allows http://, file:// and local paths as git_uri (tests, air-gapped mirrors). */
    ALLOW_INSECURE_GIT_URLS: Bool.default(false),
    /** Where clones are made; each scan gets its own 0700 directory, removed afterwards. */
    WORKSPACE_DIR: z.string().min(1).default(path.join(os.tmpdir(), "ax-workspaces")),
    /** Express "trust proxy": false, true or a hop count. */
    TRUST_PROXY: z
      .string()
      .default("false")
      .transform((v, ctx) => {
        if (v === "true") return true as boolean | number;
        if (v === "false" || v === "") return false;
        const n = Number(v);
        if (Number.isInteger(n) && n >= 0) return n;
        ctx.addIssue({ code: "custom", message: "must be true, false or a hop count" });
        return z.NEVER;
      }),
    MAX_BODY_BYTES: Int(1024, 64 * 1024 * 1024).default(1024 * 1024),
    MAX_CODE_BYTES: Int(1, 10 * 1024 * 1024).default(64 * 1024),
    MAX_PROMPT_CHARS: Int(1, 1_000_000).default(8000),
    /** Per-token and per-IP request budgets (Redis-backed, shared by every API process). */
    RATE_LIMIT_ENABLED: Bool.default(true),
    RATE_LIMIT_TOKEN_PER_MINUTE: Int(1, 1_000_000).default(600),
    RATE_LIMIT_IP_PER_MINUTE: Int(1, 1_000_000).default(1200),
    /** The budgets above are per this window; only tests shorten it. */
    RATE_LIMIT_WINDOW_MS: Int(100, 3600 * 1000).default(60_000),
    /** Scans one organization may have queued or running at once (0: no limit). */
    MAX_SCANS_IN_FLIGHT_PER_ORG: Int(0, 100_000).default(20),
    MAX_REPO_BYTES: Int(1024, Number.MAX_SAFE_INTEGER).default(500 * 1024 * 1024),
    SCAN_TIMEOUT_MS: Int(1000, 24 * 3600 * 1000).default(15 * 60 * 1000),
    ANALYZER_TIMEOUT_MS: Int(1000, 24 * 3600 * 1000).default(5 * 60 * 1000),
    ANALYZER_MAX_OUTPUT_BYTES: Int(1024, 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    /** Threads per analyzer process (0: the analyzer decides). */
    ANALYZER_THREADS: Int(0, 256).default(0),
    /** Reuse cacheable analyzers' per-file results for unchanged files (incremental rescans). */
    ANALYSIS_CACHE: Bool.default(true),
    /** Cache entries not used for this many days are removed. */
    ANALYSIS_CACHE_TTL_DAYS: Int(1, 3650).default(30),
    /**
     * Extra SARIF-emitting analyzers, as a JSON array (see packages/scanner/src/analyzers/README.md),
     * e.g. [{"name":"semgrep","command":["semgrep","--sarif","--config","p/ci","{files}"],"languages":"*"}].
     */
    SARIF_TOOLS: z.string().default("[]"),
    /** Tries of a scan job before it is marked failed (crashes and transient errors). */
    SCAN_ATTEMPTS: Int(1, 20).default(3),
    /** BullMQ lock; a worker that dies is noticed after about this long. */
    WORKER_LOCK_MS: Int(1000, 3600 * 1000).default(30_000),
    WORKER_STALLED_INTERVAL_MS: Int(1000, 3600 * 1000).default(30_000),
    /** How often a worker refreshes its entry in the worker registry (GET /admin/workers). */
    WORKER_HEARTBEAT_MS: Int(100, 600_000).default(10_000),
    /** A worker's entry disappears this long after its last heartbeat (a crashed worker). */
    WORKER_HEARTBEAT_TTL_MS: Int(300, 3_600_000).default(30_000),
    /** How often the worker re-enqueues scans whose jobs Redis lost. */
    RECONCILE_INTERVAL_MS: Int(1000, 3600 * 1000).default(30_000),
    TOKEN_DEFAULT_EXPIRY_DAYS: Int(1, 3650).default(90),
    /** Deadline for a graceful shutdown after SIGTERM. */
    SHUTDOWN_TIMEOUT_MS: Int(1000, 600_000).default(25_000),
    /**
     * OpenAI-compatible model server (Ollama, vLLM, llama.cpp server), e.g.
     * http://127.0.0.1:11434/v1. Unset: everything AI runs offline, in process.
     */
    AI_BASE_URL: z
      .string()
      .optional()
      .transform((v) => (v ? v.replace(/\/+$/, "") : undefined))
      .refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), { message: "must be an http:// or https:// URL" }),
    /** Bearer key for AI_BASE_URL, when the server wants one. Never logged. */
    AI_API_KEY: z.string().optional(),
    /** Model for review verdicts; unset: the trained model alone. */
    AI_MODEL_REVIEW: z.string().optional(),
    /** Default model of every chat specialist; AI_MODEL_<SPECIALIST> overrides it for one. */
    AI_MODEL_CHAT: z.string().optional(),
    AI_MODEL_IDENTITY: z.string().optional(),
    AI_MODEL_CWE: z.string().optional(),
    AI_MODEL_FINDINGS: z.string().optional(),
    AI_MODEL_REMEDIATION: z.string().optional(),
    AI_MODEL_APPSEC: z.string().optional(),
    AI_TIMEOUT_MS: Int(100, 600_000).default(30_000),
    AI_RETRIES: Int(0, 10).default(2),
    /** Weight of the model server's verdict when combined with the trained model's (0–1). */
    AI_REVIEW_LLM_WEIGHT: z.coerce.number({ message: "must be a number" }).min(0).max(1).default(0.5),
    /** The worker labels each new finding with the review model (auto-triage). */
    AI_AUTO_TRIAGE: Bool.default(true),
    /** Downstream feedback API (POSTed JSON); unset: votes are only stored locally. */
    AI_FEEDBACK_URL: z
      .string()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^https?:\/\/[^\s/]+/.test(v), { message: "must be an http:// or https:// URL" }),
    AI_FEEDBACK_TOKEN: z.string().optional(),
    AI_FEEDBACK_TIMEOUT_MS: Int(100, 120_000).default(5_000),
    /** Earlier turns of a chat session given to the assistant. */
    AI_CHAT_HISTORY_TURNS: Int(0, 100).default(10),
    /** 32 bytes, base64: webhook secrets are encrypted at rest (AES-256-GCM). Unset: stored as is. */
    WEBHOOK_SECRET_KEY: z
      .string()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || Buffer.from(v, "base64").length === 32, {
        message: "must be 32 bytes in base64 (openssl rand -base64 32)",
      }),
    /** true also allows http:// and loopback webhook targets (tests, local setups). */
    WEBHOOK_ALLOW_INSECURE_TARGETS: Bool.default(false),
    /** Tries of one delivery, and the first retry's delay (doubling each time). */
    WEBHOOK_ATTEMPTS: Int(1, 30).default(8),
    WEBHOOK_BACKOFF_MS: Int(10, 24 * 3600 * 1000).default(10_000),
    /** One attempt's time limit (connect, send, response headers). */
    WEBHOOK_TIMEOUT_MS: Int(100, 120_000).default(10_000),
    /** Deliveries one worker process sends at once. */
    WEBHOOK_CONCURRENCY: Int(1, 256).default(4),
    /** The delivery log keeps at most this many rows per webhook, and none older than the days. */
    WEBHOOK_LOG_MAX_PER_WEBHOOK: Int(10, 1_000_000).default(1000),
    WEBHOOK_LOG_DAYS: Int(1, 3650).default(30),
    /** Scans without a token (docs/public-scan.md); false: its endpoints answer 404. */
    PUBLIC_SCAN_ENABLED: Bool.default(true),
    /**
     * Tests only: public scans may also use http://, file:// and loopback, so that a test can
     * serve its own repositories. Separate from ALLOW_INSECURE_GIT_URLS, which an air-gapped
     * deployment sets for its members without opening its network to anonymous callers.
     */
    PUBLIC_SCAN_ALLOW_INSECURE: Bool.default(false),
    /** Public scans one client IP may start per hour. */
    PUBLIC_SCAN_PER_IP_PER_HOUR: Int(1, 1_000_000).default(10),
    /** Reads of public scans (state, findings, SARIF) one client IP may make per minute. */
    PUBLIC_SCAN_READS_PER_IP_PER_MINUTE: Int(1, 1_000_000).default(120),
    /** Public scans queued or running at once, all callers together (0: no limit). */
    PUBLIC_SCAN_MAX_IN_FLIGHT: Int(0, 100_000).default(10),
    /** Public scans and their findings are deleted this long after they were requested. */
    PUBLIC_SCAN_RETENTION_HOURS: Int(1, 24 * 365).default(24),
    /** How often the worker deletes expired public scans. */
    PUBLIC_SCAN_SWEEP_INTERVAL_MS: Int(1000, 24 * 3600 * 1000).default(10 * 60 * 1000),
    /** Lifetime of a dashboard session cookie (POST /admin/session), in ms. */
    ADMIN_SESSION_TTL_MS: Int(1000, 24 * 3600 * 1000).default(15 * 60 * 1000),
    /** true: the bull-board dashboard only shows (no retry, clean, pause, …), whoever opens it. */
    ADMIN_DASHBOARD_READ_ONLY: Bool.default(false),
  })
  .refine((e) => e.WORKER_HEARTBEAT_TTL_MS > e.WORKER_HEARTBEAT_MS, {
    message: "must be longer than WORKER_HEARTBEAT_MS",
    path: ["WORKER_HEARTBEAT_TTL_MS"],
  });

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env["NODE_ENV"];
  http: { port: number; host: string; trustProxy: boolean | number; maxBodyBytes: number };
  database: { url: string | undefined; dataDir: string };
  redis: { url: string; autostart: boolean; queuePrefix: string };
  log: { level: Env["LOG_LEVEL"]; format: "json" | "pretty" };
  worker: {
    concurrency: number;
    workspaceDir: string;
    lockMs: number;
    stalledIntervalMs: number;
    reconcileIntervalMs: number;
    attempts: number;
    heartbeatMs: number;
    heartbeatTtlMs: number;
  };
  scan: {
    allowInsecureGitUrls: boolean;
    maxRepoBytes: number;
    timeoutMs: number;
    analyzerTimeoutMs: number;
    analyzerMaxOutputBytes: number;
    analyzerThreads: number;
    analysisCache: boolean;
    analysisCacheTtlDays: number;
    /** Raw JSON; the scanner validates it (parseSarifToolsConfig). */
    sarifTools: string;
  };
  limits: {
    maxCodeBytes: number;
    maxPromptChars: number;
    /** 0: no limit. */
    maxScansInFlightPerOrg: number;
    rate: { enabled: boolean; tokenPerWindow: number; ipPerWindow: number; windowMs: number };
  };
  tokens: { defaultExpiryDays: number };
  shutdownTimeoutMs: number;
  ai: AiConfig;
  webhooks: WebhookConfig;
  publicScan: PublicScanConfig;
  admin: { sessionTtlMs: number; dashboardReadOnly: boolean };
}

export interface PublicScanConfig {
  enabled: boolean;
  allowInsecure: boolean;
  perIpPerHour: number;
  readsPerIpPerMinute: number;
  /** 0: no limit. */
  maxInFlight: number;
  retentionHours: number;
  sweepIntervalMs: number;
}

export interface WebhookConfig {
  /** AES-256-GCM key for secrets at rest; undefined: secrets are stored as is. */
  secretKey: Buffer | undefined;
  allowInsecureTargets: boolean;
  attempts: number;
  backoffMs: number;
  timeoutMs: number;
  concurrency: number;
  logMaxPerWebhook: number;
  logDays: number;
}

/** Declared once, in contracts (CHAT_SPECIALISTS). */
export type { ChatSpecialistName };

export interface AiConfig {
  /** Present when a model server is configured. */
  provider: { baseUrl: string; apiKey: string | undefined; timeoutMs: number; retries: number } | undefined;
  reviewModel: string | undefined;
  chatModels: Partial<Record<ChatSpecialistName, string>>;
  reviewLlmWeight: number;
  autoTriage: boolean;
  feedback: { url: string | undefined; token: string | undefined; timeoutMs: number };
  chatHistoryTurns: number;
}

export class ConfigError extends Error {}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration (see .env.example):\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    http: { port: e.PORT, host: e.HOST, trustProxy: e.TRUST_PROXY, maxBodyBytes: e.MAX_BODY_BYTES },
    database: { url: e.DATABASE_URL, dataDir: path.resolve(e.DATA_DIR) },
    redis: { url: e.REDIS_URL, autostart: e.REDIS_AUTOSTART, queuePrefix: e.QUEUE_PREFIX },
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT ?? (e.NODE_ENV === "production" ? "json" : "pretty") },
    worker: {
      concurrency: e.WORKER_CONCURRENCY,
      workspaceDir: path.resolve(e.WORKSPACE_DIR),
      lockMs: e.WORKER_LOCK_MS,
      stalledIntervalMs: e.WORKER_STALLED_INTERVAL_MS,
      reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
      attempts: e.SCAN_ATTEMPTS,
      heartbeatMs: e.WORKER_HEARTBEAT_MS,
      heartbeatTtlMs: e.WORKER_HEARTBEAT_TTL_MS,
    },
    scan: {
      allowInsecureGitUrls: e.ALLOW_INSECURE_GIT_URLS,
      maxRepoBytes: e.MAX_REPO_BYTES,
      timeoutMs: e.SCAN_TIMEOUT_MS,
      analyzerTimeoutMs: e.ANALYZER_TIMEOUT_MS,
      analyzerMaxOutputBytes: e.ANALYZER_MAX_OUTPUT_BYTES,
      analyzerThreads: e.ANALYZER_THREADS,
      analysisCache: e.ANALYSIS_CACHE,
      analysisCacheTtlDays: e.ANALYSIS_CACHE_TTL_DAYS,
      sarifTools: e.SARIF_TOOLS,
    },
    limits: {
      maxCodeBytes: e.MAX_CODE_BYTES,
      maxPromptChars: e.MAX_PROMPT_CHARS,
      maxScansInFlightPerOrg: e.MAX_SCANS_IN_FLIGHT_PER_ORG,
      rate: {
        enabled: e.RATE_LIMIT_ENABLED,
        tokenPerWindow: e.RATE_LIMIT_TOKEN_PER_MINUTE,
        ipPerWindow: e.RATE_LIMIT_IP_PER_MINUTE,
        windowMs: e.RATE_LIMIT_WINDOW_MS,
      },
    },
    tokens: { defaultExpiryDays: e.TOKEN_DEFAULT_EXPIRY_DAYS },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    ai: aiConfig(e),
    webhooks: {
      secretKey: e.WEBHOOK_SECRET_KEY ? Buffer.from(e.WEBHOOK_SECRET_KEY, "base64") : undefined,
      allowInsecureTargets: e.WEBHOOK_ALLOW_INSECURE_TARGETS,
      attempts: e.WEBHOOK_ATTEMPTS,
      backoffMs: e.WEBHOOK_BACKOFF_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      logMaxPerWebhook: e.WEBHOOK_LOG_MAX_PER_WEBHOOK,
      logDays: e.WEBHOOK_LOG_DAYS,
    },
    publicScan: {
      enabled: e.PUBLIC_SCAN_ENABLED,
      allowInsecure: e.PUBLIC_SCAN_ALLOW_INSECURE,
      perIpPerHour: e.PUBLIC_SCAN_PER_IP_PER_HOUR,
      readsPerIpPerMinute: e.PUBLIC_SCAN_READS_PER_IP_PER_MINUTE,
      maxInFlight: e.PUBLIC_SCAN_MAX_IN_FLIGHT,
      retentionHours: e.PUBLIC_SCAN_RETENTION_HOURS,
      sweepIntervalMs: e.PUBLIC_SCAN_SWEEP_INTERVAL_MS,
    },
    admin: { sessionTtlMs: e.ADMIN_SESSION_TTL_MS, dashboardReadOnly: e.ADMIN_DASHBOARD_READ_ONLY },
  };
}

function aiConfig(e: Env): AiConfig {
  const provider = e.AI_BASE_URL
    ? { baseUrl: e.AI_BASE_URL, apiKey: e.AI_API_KEY || undefined, timeoutMs: e.AI_TIMEOUT_MS, retries: e.AI_RETRIES }
    : undefined;
  const chatModels: Partial<Record<ChatSpecialistName, string>> = {};
  const per: Record<ChatSpecialistName, string | undefined> = {
    identity: e.AI_MODEL_IDENTITY,
    cwe: e.AI_MODEL_CWE,
    findings: e.AI_MODEL_FINDINGS,
    remediation: e.AI_MODEL_REMEDIATION,
    appsec: e.AI_MODEL_APPSEC,
  };
  if (provider)
    for (const [name, model] of Object.entries(per) as [ChatSpecialistName, string | undefined][])
      if (model || e.AI_MODEL_CHAT) chatModels[name] = model || e.AI_MODEL_CHAT;
  return {
    provider,
    reviewModel: provider ? e.AI_MODEL_REVIEW || undefined : undefined,
    chatModels,
    reviewLlmWeight: e.AI_REVIEW_LLM_WEIGHT,
    autoTriage: e.AI_AUTO_TRIAGE,
    feedback: { url: e.AI_FEEDBACK_URL, token: e.AI_FEEDBACK_TOKEN || undefined, timeoutMs: e.AI_FEEDBACK_TIMEOUT_MS },
    chatHistoryTurns: e.AI_CHAT_HISTORY_TURNS,
  };
}

import winston from "winston";

/**
 * Structured logging: JSON in production, readable lines in development, one child logger
 * per component. Anything that looks like a credential is redacted before it is written,
 * whichever component logged it.
 */
export type Logger = winston.Logger;
export type Component = "api" | "http" | "worker" | "scan" | "queue" | "db" | "cli" | "standalone" | "reconciler" | "ai" | "webhooks";

const SECRET_KEYS =
  /^(x-ax-key|authorization|cookie|set-cookie|token|password|secret|webhook_secret|webhook_secret_key|signing_secret|api[_-]?key|database_url|redis_url)$/i;
const TOKEN_IN_TEXT = /axk_[0-9A-Za-z]{46}/g;
/** Webhook signing secrets (whsec_ + 43 base64url characters), wherever they appear. */
const WEBHOOK_SECRET_IN_TEXT = /whsec_[0-9A-Za-z_-]{20,}/g;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") {
    return value
      .replace(TOKEN_IN_TEXT, "axk_[REDACTED]")
      .replace(WEBHOOK_SECRET_IN_TEXT, "whsec_[REDACTED]")
      .replace(URL_CREDENTIALS, "$1[REDACTED]@");
  }
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message, depth + 1) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.test(k) ? "[REDACTED]" : redact(v, depth + 1);
  return out;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === "level") continue;
    (info as Record<string, unknown>)[key] = SECRET_KEYS.test(key) ? "[REDACTED]" : redact(info[key]);
  }
  return info;
});

export function createLogger(opts: { level: string; format: "json" | "pretty"; silent?: boolean }): Logger {
  const format =
    opts.format === "json"
      ? winston.format.combine(redactFormat(), winston.format.timestamp(), winston.format.json())
      : winston.format.combine(
          redactFormat(),
          winston.format.timestamp({ format: "HH:mm:ss.SSS" }),
          winston.format.printf(({ timestamp, level, message, component, ...rest }) => {
            const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : "";
            return `${String(timestamp)} ${level.padEnd(5)} [${String(component ?? "-")}] ${String(message)}${extra}`;
          }),
        );
  return winston.createLogger({
    level: opts.level,
    format,
    silent: opts.silent ?? false,
    transports: [new winston.transports.Console({ stderrLevels: ["error", "warn"] })],
  });
}

export function child(logger: Logger, component: Component, meta: Record<string, unknown> = {}): Logger {
  return logger.child({ component, ...meta });
}

import { createHash } from "node:crypto";
import net from "node:net";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Principal } from "@ax/db";
import { child } from "@ax/logger";
import type { AppDeps } from "./context";
import { AppError } from "./errors";
import { API_PREFIX } from "./route";

/**
 * Request budgets per token and per client IP (DESIGN §9), kept in Redis so that every API
 * process draws from the same budget.
 *
 * Algorithm: GCRA (the generic cell rate algorithm, a token bucket kept as one timestamp).
 * A budget of N per window W lets N requests through at once and then one every W/N; a full
 * budget is back W after the last request. The whole decision runs in one Lua script on
 * Redis's clock, so concurrent requests on any number of processes (and their clock skew)
 * cannot overspend it, and a refused request costs nothing, so hammering does not extend
 * the wait.
 */
const GCRA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat + interval - interval * burst
if now < allow_at then
  return {0, 0, allow_at - now, tat - now}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1)
return {1, math.floor((now - allow_at) / interval), 0, new_tat - now}
`;
const GCRA_SHA = createHash("sha1").update(GCRA).digest("hex");

/** A Redis that does not answer within this long is treated as down (fail open). */
const REDIS_TIMEOUT_MS = 1_000;
const WARN_EVERY_MS = 60_000;
const EXEMPT = new RegExp(`^${API_PREFIX}/(health|health/ready|metrics)/?$`, "i");

/** Whether a path (under /api/v2, as requested or as a route template) is outside every budget. */
export const isRateLimitExempt = (path: string): boolean => EXEMPT.test(path);

interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterUs: number;
  resetUs: number;
}

export interface RateLimiter {
  /** Middleware: charges the client IP's budget for every request but the health endpoints. */
  ip: RequestHandler;
  /** Charges an authenticated request's token budget; throws the 429 when it is spent. */
  token(req: Request, principal: Principal): Promise<void>;
  /**
   * Charges the client IP's public scan budget: "start" per hour (PUBLIC_SCAN_PER_IP_PER_HOUR),
   * "read" per minute. Stricter than, and on top of, the general per-IP budget, because an
   * anonymous scan costs a clone and the analyzers.
   */
  publicScan(req: Request, kind: "start" | "read"): Promise<void>;
}

export function createRateLimiter(deps: AppDeps): RateLimiter {
  const cfg = deps.config.limits.rate;
  if (!cfg.enabled) return { ip: (_req, _res, next) => next(), token: async () => undefined, publicScan: async () => undefined };
  const pub = deps.config.publicScan;
  const log = child(deps.logger, "http");
  const prefix = `${deps.config.redis.queuePrefix}:ratelimit`;
  const windowUs = cfg.windowMs * 1000;
  let lastWarning = 0;

  async function charge(key: string, limit: number, window = windowUs): Promise<Decision | undefined> {
    // Rounded up, so N requests fill the budget exactly whatever the division leaves over.
    const interval = Math.ceil(window / limit);
    let timer: NodeJS.Timeout | undefined;
    try {
      const reply = (await Promise.race([
        deps.redis.evalsha(GCRA_SHA, 1, key, interval, limit).catch((err: Error) => {
          if (!err.message.startsWith("NOSCRIPT")) throw err;
          return deps.redis.eval(GCRA, 1, key, interval, limit);
        }),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), REDIS_TIMEOUT_MS))),
      ])) as number[];
      const [allowed, remaining, retryAfterUs, resetUs] = reply.map(Number) as [number, number, number, number];
      return { allowed: allowed === 1, limit, remaining, retryAfterUs, resetUs };
    } catch (err) {
      // Fail open: an outage of Redis must not take the whole API down with it (the queue
      // already degrades to 503 on POST /scan only). Abuse protection lapses meanwhile, which
      // the warning makes visible; once a minute is enough to notice without flooding logs.
      if (Date.now() - lastWarning >= WARN_EVERY_MS) {
        lastWarning = Date.now();
        log.warn("rate limits not enforced: Redis did not answer", { error: (err as Error).message });
      }
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    ip: (req: Request, res: Response, next: NextFunction) => {
      if (EXEMPT.test(req.path)) return next();
      charge(`${prefix}:ip:${clientKey(req.ip)}`, cfg.ipPerWindow).then(
        (d) => next(d ? verdict(res, d, "from this address") : undefined),
        next,
      );
    },
    async token(req, principal) {
      // Keyed by the token's row id: the raw token never reaches Redis.
      const d = await charge(`${prefix}:token:${principal.token.id}`, cfg.tokenPerWindow);
      const err = d && req.res ? verdict(req.res, d, "with this token") : undefined;
      if (err) throw err;
    },
    async publicScan(req, kind) {
      const [limit, window, whose] =
        kind === "start"
          ? [pub.perIpPerHour, 3_600_000_000, "for public scans from this address"]
          : [pub.readsPerIpPerMinute, 60_000_000, "for public scan results from this address"];
      const d = await charge(`${prefix}:public-${kind}:${clientKey(req.ip)}`, limit, window);
      const err = d && req.res ? verdict(req.res, d, whose) : undefined;
      if (err) throw err;
    },
  };
}

/**
 * Sets the RateLimit-* headers of the budget closest to running out (the IP's or the
 * token's), and returns the 429 when this one is spent.
 */
function verdict(res: Response, d: Decision, whose: string): AppError | undefined {
  const shown = res.locals.rateLimitRemaining as number | undefined;
  const headers: Record<string, string> = {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(Math.ceil(d.resetUs / 1e6)),
  };
  if (shown === undefined || d.remaining <= shown) {
    res.locals.rateLimitRemaining = d.remaining;
    res.set(headers);
  }
  if (d.allowed) return undefined;
  const retryAfter = String(Math.max(1, Math.ceil(d.retryAfterUs / 1e6)));
  return new AppError(429, "rate_limited", `Too many requests ${whose}; try again in ${retryAfter} seconds.`, undefined, {
    ...headers,
    "Retry-After": retryAfter,
  });
}

/**
 * The budget an address draws from. IPv6 clients usually hold a whole /64, so that is one
 * budget; anything that is not an address (a forged X-Forwarded-For behind TRUST_PROXY=true)
 * is hashed to keep keys short.
 */
export function clientKey(ip: string | undefined): string {
  if (!ip) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (net.isIPv4(ip)) return ip;
  if (net.isIPv6(ip)) return `${ipv6Prefix64(ip)}::/64`;
  return `h:${createHash("sha256").update(ip).digest("hex").slice(0, 32)}`;
}

function ipv6Prefix64(ip: string): string {
  const [head = "", tail] = ip.split("%")[0]!.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  // A dotted IPv4 tail stands for two groups.
  const tailGroups = t.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - tailGroups).fill("0"), ...t];
  return groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":");
}

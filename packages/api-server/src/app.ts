import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import helmet from "helmet";
import { authenticate } from "@ax/db";
import { child } from "@ax/logger";
import type { AppDeps } from "./http/context";
import { errorHandler, notFoundRoute } from "./http/errors";
import { jsonBodyReader, pathEscapeGuard } from "./http/input-guards";
import { mountMethodFallback } from "./http/methods";
import { createMetrics } from "./http/metrics";
import { createRateLimiter } from "./http/rate-limit";
import { buildOpenApi, renderDocsPage } from "./http/openapi";
import { DASHBOARD_PATH } from "./services/admin";
import { writeMarkdownError } from "./services/chat";
import { API_PREFIX, mountRoute, routeLabel, type AnyRoute } from "./http/route";
import { adminDashboard } from "./http/admin-dashboard";
import { adminRoutes } from "./routes/admin";
import { aiRoutes } from "./routes/ai";
import { aiPolicyRoutes } from "./routes/ai-policy";
import { findingRoutes } from "./routes/findings";
import { refutedRoutes } from "./routes/refuted";
import { groupRoutes } from "./routes/groups";
import { healthRoutes } from "./routes/health";
import { profileRoutes } from "./routes/profile";
import { publicScanRoutes } from "./routes/public-scan";
import { scanRoutes } from "./routes/scans";
import { webhookRoutes } from "./routes/webhooks";

export const API_VERSION = "2.0.0";
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CHAT_PATH = new RegExp(`^${API_PREFIX}/[^/]+/chatbot/?$`, "i");

export function apiRoutes(deps: AppDeps): AnyRoute[] {
  return [
    ...healthRoutes(deps),
    ...profileRoutes(deps),
    ...scanRoutes(deps),
    ...findingRoutes(deps),
    ...refutedRoutes(deps),
    ...groupRoutes(deps),
    ...webhookRoutes(deps),
    ...aiRoutes(deps),
    ...aiPolicyRoutes(deps),
    ...publicScanRoutes(deps),
    ...adminRoutes(deps),
  ];
}

/** The Express app; no I/O happens here (main.ts connects and listens). */
export function buildApp(deps: AppDeps): express.Express {
  const app = express();
  const log = child(deps.logger, "http");
  app.disable("x-powered-by");
  app.set("trust proxy", deps.config.http.trustProxy);
  app.set("query parser", "extended");

  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get("X-Request-Id");
    req.id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.set("X-Request-Id", req.id);
    next();
  });
  app.use(helmet());
  if (!deps.metrics) {
    const metrics = createMetrics(deps.queue);
    deps.metrics = metrics.registry;
    app.use(metrics.middleware);
  }
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      // Method, path template and status only: headers (the token) and bodies are never logged.
      log.http("request", {
        request_id: req.id,
        method: req.method,
        route: routeLabel(req, res),
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        user_id: req.principal?.user.id,
      });
    });
    next();
  });

  // Chat answers every status in Markdown (DESIGN §4), including errors raised before its
  // route runs: the per-IP rate limit.
  app.use((req, res, next) => {
    if (req.method === "POST" && CHAT_PATH.test(req.path)) res.locals.errorWriter = writeMarkdownError;
    next();
  });
  // Per-IP budget before any body is read, so that a flood (bad tokens included) stays cheap;
  // after the chat writer above, so that chat's 429 is Markdown too. Bodies are read by each
  // route once it has authenticated the caller (route.ts mountRoute).
  const limiter = createRateLimiter(deps);
  app.use(limiter.ip);

  const routes = apiRoutes(deps);
  const router = express.Router();
  // mountRoute calls this for every token route; the token budget is charged once the
  // token is known to be real, so that made-up tokens cannot exhaust someone else's.
  const auth = async (req: Request) => {
    const key = req.get("X-AX-KEY");
    const principal = key ? await authenticate(deps.db, key) : null;
    if (principal) await limiter.token(req, principal);
    return principal;
  };
  const readBody = jsonBodyReader(deps.config.http.maxBodyBytes);
  for (const r of routes) mountRoute(router, r, { authenticate: auth, readBody });

  const openapi = buildOpenApi(routes, { version: API_VERSION });
  router.get("/openapi.json", (_req, res) => res.json(openapi));
  const docs = renderDocsPage(openapi);
  router.get("/docs", (_req, res) => res.type("html").send(docs));
  mountMethodFallback(router, [...routes, { method: "get", path: "/openapi.json" }, { method: "get", path: "/docs" }]);

  app.use(API_PREFIX, pathEscapeGuard, router);
  // The queue dashboard (bull-board), outside /api/v2: its session cookie is scoped to /admin.
  app.use(DASHBOARD_PATH, adminDashboard(deps));
  app.use(notFoundRoute);
  app.use(errorHandler(child(deps.logger, "api")));
  return app;
}

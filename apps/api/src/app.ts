import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import helmet from "helmet";
import { authenticate } from "@ax/db";
import { child } from "@ax/logger";
import type { AppDeps } from "./http/context";
import { AppError, errorHandler, notFoundRoute } from "./http/errors";
import { createMetrics } from "./http/metrics";
import { buildOpenApi, renderDocsPage } from "./http/openapi";
import { API_PREFIX, mountRoute, routeLabel, type AnyRoute } from "./http/route";
import { findingRoutes } from "./routes/findings";
import { groupRoutes } from "./routes/groups";
import { healthRoutes } from "./routes/health";
import { profileRoutes } from "./routes/profile";
import { scanRoutes } from "./routes/scans";

export const API_VERSION = "2.0.0";
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function apiRoutes(deps: AppDeps): AnyRoute[] {
  return [...healthRoutes(deps), ...profileRoutes(deps), ...scanRoutes(deps), ...findingRoutes(deps), ...groupRoutes(deps)];
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

  // All bodies are JSON (spec §1): anything else with a body is refused before parsing.
  app.use((req, _res, next) => {
    const hasBody = Number(req.get("Content-Length") ?? 0) > 0 || req.get("Transfer-Encoding") !== undefined;
    if (hasBody && !req.is("application/json")) return next(new AppError(415, "unsupported_media_type", "Request bodies must be JSON (Content-Type: application/json)."));
    next();
  });
  app.use(express.json({ limit: deps.config.http.maxBodyBytes, type: "application/json" }));

  const routes = apiRoutes(deps);
  const router = express.Router();
  const auth = (req: Request) => {
    const key = req.get("X-AX-KEY");
    return key ? authenticate(deps.db, key) : Promise.resolve(null);
  };
  for (const r of routes) mountRoute(router, r, auth);

  const openapi = buildOpenApi(routes, { version: API_VERSION });
  router.get("/openapi.json", (_req, res) => res.json(openapi));
  const docs = renderDocsPage(openapi);
  router.get("/docs", (_req, res) => res.type("html").send(docs));

  app.use(API_PREFIX, router);
  app.use(notFoundRoute);
  app.use(errorHandler(child(deps.logger, "api")));
  return app;
}

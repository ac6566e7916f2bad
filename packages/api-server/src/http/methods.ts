import type { NextFunction, Request, Response, Router } from "express";
import { AppError } from "./errors";
import { API_PREFIX, type Method } from "./route";

/**
 * A path that exists asked with a method it does not take: 405 with `Allow` (RFC 9110 §15.5.6),
 * not the 404 of a path that does not exist. OPTIONS answers 204 with the same `Allow`.
 *
 * Mounted after every route, so a request reaches it only when no route of its method matched.
 * Each template the path matches adds its methods: templates overlap (`/ai/chatbot` is also
 * `/:organization_id/chatbot`), and `Allow` is their union.
 */
export function mountMethodFallback(router: Router, routes: { method: Method; path: string }[]): void {
  const byPath = new Map<string, Set<string>>();
  for (const r of routes) {
    const methods = byPath.get(r.path) ?? new Set<string>();
    methods.add(r.method.toUpperCase());
    if (r.method === "get") methods.add("HEAD");
    byPath.set(r.path, methods);
  }
  for (const [path, methods] of byPath) {
    router.all(path, (_req: Request, res: Response, next: NextFunction) => {
      const allow = (res.locals.allow as Set<string> | undefined) ?? new Set<string>();
      for (const m of methods) allow.add(m);
      res.locals.allow = allow;
      // The template that matched first names the response in metrics and logs.
      res.locals.routeTemplate ??= `${API_PREFIX}${path}`;
      next();
    });
  }
  router.use((req: Request, res: Response, next: NextFunction) => {
    const allow = res.locals.allow as Set<string> | undefined;
    if (!allow) return next();
    const header = [...allow, "OPTIONS"].join(", ");
    res.set("Allow", header);
    if (req.method === "OPTIONS") return void res.status(204).end();
    next(
      new AppError(
        405,
        "method_not_allowed",
        `This endpoint does not take ${req.method.slice(0, 10).replace(/[^A-Z]/g, "")}; it takes ${header}.`,
      ),
    );
  });
}

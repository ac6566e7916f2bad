import { createRequire } from "node:module";
import path from "node:path";
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { authenticate } from "@ax/db";
import { QUEUE_NAMES } from "@ax/queue";
import { DASHBOARD_PATH, auditAdmin, dashboardUnauthorized, readSession, redactStrings, requireInstanceAdmin } from "../services/admin";
import type { AppDeps } from "./context";
import { AppError, type ErrorWriter } from "./errors";
import { assertWellFormedPath, jsonBodyReader } from "./input-guards";

/**
 * The bull-board dashboard at /admin/queues, behind the Admin tag's authority: an instance
 * admin's X-AX-KEY header, or the session cookie POST /api/v2/admin/session sets (docs/admin.md).
 * Two boards over the same queues, one of them read-only (bull-board's readOnlyMode), chosen per
 * request; on top of that, a read-only caller's mutating calls are refused here, before
 * bull-board sees them.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
// Everything from this origin: bull-board's page asks for web fonts from Google, which the
// page rewrite below removes and this policy would block anyway.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const EXTERNAL_STYLESHEET = /<link[^>]+href="https?:\/\/[^"]*"[^>]*>/gi;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Browsers get a small page for 401 and 403; API clients get the usual JSON error. */
const writeHtmlError: ErrorWriter = (res, status, body) => {
  res
    .status(status)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head>` +
        `<body><h1>${status}</h1><p>${escapeHtml(body.message)}</p></body></html>`,
    );
};

function board(deps: AppDeps, readOnlyMode: boolean): RequestHandler {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  const uiBasePath = path.dirname(createRequire(import.meta.url).resolve("@bull-board/ui/package.json"));
  createBullBoard({
    queues: QUEUE_NAMES.map((name) => new BullMQAdapter(deps.queue.queue(name), { readOnlyMode, allowRetries: !readOnlyMode })),
    serverAdapter,
    options: { uiBasePath, uiConfig: { boardTitle: readOnlyMode ? "ax queues (read-only)" : "ax queues" } },
  });
  return serverAdapter.getRouter() as RequestHandler;
}

interface DashboardCaller {
  userId: string;
  readOnly: boolean;
  viaCookie: boolean;
}

async function identify(deps: AppDeps, req: Request): Promise<DashboardCaller> {
  const key = req.get("X-AX-KEY");
  if (key) {
    const principal = await authenticate(deps.db, key);
    if (!principal) throw dashboardUnauthorized();
    requireInstanceAdmin(principal);
    req.principal = principal;
    return { userId: principal.user.id, readOnly: deps.config.admin.dashboardReadOnly, viaCookie: false };
  }
  const session = await readSession(deps, req);
  if (!session) throw dashboardUnauthorized();
  return { userId: session.user_id, readOnly: deps.config.admin.dashboardReadOnly || session.read_only, viaCookie: true };
}

/**
 * CSRF: the cookie is SameSite=Strict, so other sites' requests do not carry it; mutating calls
 * authorized by the cookie must also come from this origin when the browser says where they
 * come from (Origin, Sec-Fetch-Site).
 */
function sameOrigin(req: Request): boolean {
  const site = req.get("Sec-Fetch-Site");
  if (site && site !== "same-origin") return false;
  const origin = req.get("Origin");
  return !origin || origin === `${req.protocol}://${req.host}`;
}

export function adminDashboard(deps: AppDeps): RequestHandler {
  const full = board(deps, false);
  const readOnly = board(deps, true);
  // The API's body rules (JSON only, MAX_BODY_BYTES), once the caller is known, as on every route.
  const readBody = jsonBodyReader(deps.config.http.maxBodyBytes);
  return (req: Request, res: Response, next: NextFunction) => {
    res.locals.routeTemplate = DASHBOARD_PATH;
    if (req.accepts(["json", "html"]) === "html") res.locals.errorWriter = writeHtmlError;
    res.set("Content-Security-Policy", CSP);
    res.set("Cache-Control", "no-store");
    void identify(deps, req)
      .then(async (caller) => {
        // bull-board answers an undecodable path parameter itself, quoting it back.
        assertWellFormedPath(res, req.path);
        const mutating = !SAFE_METHODS.has(req.method);
        if (mutating && caller.readOnly) throw new AppError(403, "forbidden", "The queue dashboard is read-only.");
        if (mutating && caller.viaCookie && !sameOrigin(req)) throw new AppError(403, "forbidden", "Cross-site request refused.");
        await readBody(req, res);
        if (mutating) auditAdmin(deps, { user: { id: caller.userId } }, "dashboard", { method: req.method, path: req.path });
        wrapResponse(res);
        (caller.readOnly ? readOnly : full)(req, res, next);
      })
      .catch(next);
  };
}

/**
 * bull-board's page without its external stylesheet (web fonts), and its JSON with credentials
 * in URLs, tokens and secrets redacted wherever they appear (job data, failure reasons, stack
 * traces): jobs and their errors may quote git URIs.
 */
function wrapResponse(res: Response): void {
  const send = res.send.bind(res);
  const json = res.json.bind(res);
  res.send = (body?: unknown) =>
    send(typeof body === "string" && /^\s*<!DOCTYPE html>/i.test(body) ? body.replace(EXTERNAL_STYLESHEET, "") : body);
  res.json = (body?: unknown) => json(redactStrings(body));
}

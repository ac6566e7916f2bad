import { z } from "zod";
import { ErrorBody, Id, PublicFindingView, PublicScanCreateBody, PublicScanView, SCAN_STATES, listOf } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { createRateLimiter, type RateLimiter } from "../http/rate-limit";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit } from "../http/schemas";
import { publicFindingPage, publicScanView, startPublicScan } from "../services/public-scan";

const ScanParams = z.object({ scan_id: Id });

const publicErrors = {
  400: { description: "Invalid input; the message names the field.", schema: ErrorBody },
  404: { description: "Unknown or expired scan id, or Public Scan is switched off (PUBLIC_SCAN_ENABLED=false).", schema: ErrorBody },
  429: {
    description: "The client IP's public scan budget (or its general budget) is spent; see Retry-After and the RateLimit-* headers.",
    schema: ErrorBody,
  },
};

/** Scans without a token (docs/public-scan.md). Reads only, by the unguessable scan id; no triage, no cancel. */
export function publicScanRoutes(deps: AppDeps): AnyRoute[] {
  // Made on first use: the route table is also built without connections (OpenAPI, docs).
  let limiter: RateLimiter | undefined;
  const limits = () => (limiter ??= createRateLimiter(deps));
  const enabled = () => deps.config.publicScan.enabled;
  return [
    defineRoute({
      method: "post",
      path: "/public/scan",
      operationId: "startPublicScan",
      summary: "Scan a public https repository without a token",
      description:
        "Queues a scan of `git_uri` (https, public hosts only) at `branch` (default: the remote's default branch). The returned `scan_id` is " +
        "the only way to read the results, which are deleted at `expires_at` (PUBLIC_SCAN_RETENTION_HOURS after the request). Limited per " +
        "client IP (PUBLIC_SCAN_PER_IP_PER_HOUR) and overall (PUBLIC_SCAN_MAX_IN_FLIGHT).",
      tags: ["Public Scan"],
      auth: "public",
      enabled,
      body: PublicScanCreateBody,
      responses: {
        200: {
          description: "The scan was queued.",
          schema: z.object({ scan_id: z.string(), state: z.enum(SCAN_STATES), expires_at: z.string() }),
        },
        ...publicErrors,
        429: {
          description:
            "This IP's public scans for the hour are spent, or PUBLIC_SCAN_MAX_IN_FLIGHT public scans are already queued or running; " +
            "see Retry-After. Nothing was created.",
          schema: ErrorBody,
        },
        503: { description: "The queue is unavailable; nothing was created.", schema: ErrorBody },
      },
      handler: async ({ body, req }) => {
        await limits().publicScan(req, "start");
        const { scan, expires_at } = await startPublicScan(deps, body, req.id);
        return { scan_id: scan.id, state: scan.state, expires_at };
      },
    }),
    defineRoute({
      method: "get",
      path: "/public/scan/:scan_id",
      operationId: "getPublicScan",
      summary: "State, phase, progress, counts and timings of a public scan",
      description: "`counts` have the keys and meaning of those of `GET /scan/{scan_id}`.",
      tags: ["Public Scan"],
      auth: "public",
      enabled,
      params: ScanParams,
      responses: { 200: { description: "The scan.", schema: PublicScanView }, ...publicErrors },
      handler: async ({ params, req }) => {
        await limits().publicScan(req, "read");
        return publicScanView(deps, params.scan_id);
      },
    }),
    defineRoute({
      method: "get",
      path: "/public/scan/:scan_id/findings",
      operationId: "listPublicScanFindings",
      summary: "Findings of a public scan, most severe first, with cursor pagination",
      description: "A reduced view: rule, CWE, severity, confidence, file, lines and message; no triage or AI labels.",
      tags: ["Public Scan"],
      auth: "public",
      enabled,
      params: ScanParams,
      query: z.object({ cursor: Cursor, limit: Limit(500, 100) }),
      responses: { 200: { description: "A page of findings.", schema: listOf("findings", PublicFindingView) }, ...publicErrors },
      handler: async ({ params, query, req }) => {
        await limits().publicScan(req, "read");
        return publicFindingPage(deps, params.scan_id, query.cursor, query.limit);
      },
    }),
  ];
}

import { z } from "zod";
import { Id, listOf, RefutedMatchView } from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, Limit, commonErrors } from "../http/schemas";
import { refutedPage } from "../services/refuted";

const DESCRIPTION = [
  "Pattern matches of the scan that the taint analysis refuted: it read the sink and found no untrusted source reaching its dangerous",
  "arguments (constants, sanitized values, or values whose every caller in the repository passes nothing untrusted). They are not",
  "findings: the findings list, counts, SARIF, webhooks and the CLI gate leave them out. Each says why it was refuted. A match the",
  "analysis could not judge (its sink depends on a function nothing in the repository calls, or on code it could not read) stays a",
  "finding, `dataflow.status: unconfirmed`, at LOW confidence. Ordered by file, line and id; page with `next_cursor`.",
].join(" ");

const listRefutedRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/refuted",
    operationId: "listRefutedMatches",
    summary: "Pattern matches the taint analysis refuted, with the reason (an audit view; not findings)",
    description: DESCRIPTION,
    tags: ["Vulnerabilities"],
    params: z.object({ scan_id: Id }),
    query: z.object({ cursor: Cursor, limit: Limit(500, 100) }),
    responses: { 200: { description: "A page of refuted matches.", schema: listOf("refuted", RefutedMatchView) }, ...commonErrors },
    handler: async ({ params, query, principal }) => refutedPage(deps, principal, params.scan_id, query),
  });

export const refutedRoutes = (deps: AppDeps): AnyRoute[] => [listRefutedRoute(deps)];

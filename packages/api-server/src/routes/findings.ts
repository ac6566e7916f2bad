import { z } from "zod";
import { FINDING_STATUSES, FindingUpdateBody, LEVELS, SEVERITIES, canonicalLabel } from "@ax/contracts";
import { aiCursorOf, findingCursorOf, findingHistory, getFinding, isId, listFindings, updateFinding, type AiFindingCursor, type FindingCursor } from "@ax/db";
import type { AppDeps } from "../http/context";
import { AppError, badRequest, notFound, preconditionFailed } from "../http/errors";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, CsvList, DATAFLOW_STATUSES, EnumList, ErrorBody, FindingView, HistoryView, Id, Limit, PatternList, QueryBool, commonErrors, listOf, withEnum } from "../http/schemas";
import { decodeCursor, encodeCursor, isCursorText, presentFinding, presentHistory } from "../services/presenters";
import { emitFindingTriaged } from "../services/webhooks";
import { loadScan } from "./scans";

const FindingParams = z.object({ scan_id: Id, finding_id: Id });

export const isFindingCursor = (v: unknown): v is FindingCursor => {
  const c = v as Partial<FindingCursor>;
  return (
    typeof c === "object" &&
    c !== null &&
    Number.isInteger(c.rank) &&
    (c.rank as number) >= 0 &&
    (c.rank as number) <= 100 &&
    isCursorText(c.file, 4096) &&
    Number.isInteger(c.line) &&
    (c.line as number) >= 0 &&
    (c.line as number) <= 2 ** 31 - 1 &&
    typeof c.id === "string" &&
    isId(c.id)
  );
};

const isAiCursor = (v: unknown): v is AiFindingCursor => {
  const c = v as Partial<AiFindingCursor>;
  return typeof c === "object" && c !== null && typeof c.ai === "number" && c.ai >= -1 && c.ai <= 2 && typeof c.id === "string" && isId(c.id);
};

const BASELINE_STATES = ["new", "unchanged", "absent"] as const;
const AI_CLASSES = ["TRUE_POSITIVE", "FALSE_POSITIVE"] as const;

/** The filters over closed sets refuse unknown values (400 listing the allowed ones). */
const FindingFilters = {
  severity: EnumList("severity", SEVERITIES, canonicalLabel),
  status: EnumList("status", FINDING_STATUSES, canonicalLabel),
  cwe: PatternList("cwe", /^CWE-\d{1,6}$/, "CWE-89", (c) => c.toUpperCase()),
  baseline: EnumList("baseline", BASELINE_STATES, (b) => b.toLowerCase()),
  ai_class: EnumList("ai_class", AI_CLASSES, (c) => c.toUpperCase().replace(/[\s-]+/g, "_")),
};

/** The update body with its labels' canonical values in the OpenAPI document (the contract's schema parses). */
const UpdateBody = FindingUpdateBody.safeExtend({
  status: withEnum(FindingUpdateBody.shape.status, FINDING_STATUSES),
  severity: withEnum(FindingUpdateBody.shape.severity, SEVERITIES),
  likelihood: withEnum(FindingUpdateBody.shape.likelihood, LEVELS),
  confidence: withEnum(FindingUpdateBody.shape.confidence, LEVELS),
});

/**
 * If-Match: "3", W/"3" or 3 → 3; `*` (any current version, RFC 9110 §13.1.1) → no check.
 * `undefined`: update whatever the version.
 */
function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "*") return undefined;
  const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value.trim());
  if (!m) throw badRequest("If-Match must be * or the finding's version, as given in its ETag.");
  return Number(m[1]);
}

export function findingRoutes(deps: AppDeps): AnyRoute[] {
  return [
    defineRoute({
      method: "get",
      path: "/scan/:scan_id/findings",
      operationId: "listFindings",
      summary: "Findings of a scan, most severe first, with filters and cursor pagination",
      description:
        "The order is the severity each finding had when the scan stored it (what the analyzer reported, or the project's review decision carried to it), most severe first, then file, line and id. Triage never changes that key, so paging with `next_cursor` lists every finding of the scan exactly once while reviewers triage it: a finding re-prioritised meanwhile shows its new `severity` but keeps its place. The review model's label, which `sort=ai_confidence` orders by, is set when the scan is stored and does not change either. Filters compare current values: a finding whose reviewed fields change between two pages can enter or leave a filtered listing. Filters take comma-separated values: `severity=high,critical`, `status=to review`, `cwe=CWE-89`, `rule=…`, `analyzer=…`, `baseline=new`; `file` is a path prefix. `severity`, `status`, `baseline`, `ai_class`, `dataflow` and `sort` take only their listed values (case-insensitive) and `cwe` only `CWE-<n>`: anything else is 400 naming the allowed values, never an empty list. The list is the findings of the scan's commit: the record of a finding of the branch's previous scan that this scan no longer has (`baseline_state: absent`, status FIXED) is listed only with `baseline=absent` or `status=fixed`; `suppressed=false` hides findings suppressed in the source; `introduced=true` keeps only findings on lines changed since the scan's `baseline_commit` (a pull-request check). `ai_class=false_positive` and `min_ai_confidence=0.9` filter by the review model's label; `sort=ai_confidence` (least sure first) or `sort=-ai_confidence` (surest first) orders by it, unlabelled findings last. `dataflow=confirmed` keeps the findings the taint analysis traced from an untrusted source, `dataflow=unconfirmed` those where it found no such path, `dataflow=none` those it did not judge.",
      tags: ["Vulnerabilities"],
      params: z.object({ scan_id: Id }),
      query: z.object({
        ...FindingFilters,
        rule: CsvList,
        analyzer: CsvList,
        file: z.string().max(1000).optional(),
        suppressed: QueryBool,
        introduced: QueryBool,
        min_ai_confidence: z.coerce.number({ error: "must be a number" }).min(0).max(1).optional(),
        dataflow: z.enum([...DATAFLOW_STATUSES, "none"], { error: "dataflow takes confirmed, unconfirmed or none" }).optional(),
        sort: z.enum(["severity", "ai_confidence", "-ai_confidence"], { error: "sort takes severity, ai_confidence or -ai_confidence" }).default("severity"),
        cursor: Cursor,
        limit: Limit(500, 100),
      }),
      responses: { 200: { description: "A page of findings.", schema: listOf("findings", FindingView) }, ...commonErrors },
      handler: async ({ params, query, principal }) => {
        const scan = await loadScan(deps, principal, params.scan_id);
        const order = query.sort;
        const after = order === "severity" ? decodeCursor(query.cursor, isFindingCursor) : decodeCursor(query.cursor, isAiCursor);
        if (query.cursor && !after) throw badRequest("Invalid query: cursor is not valid.");
        const rows = await listFindings(deps.db, {
          organizationId: scan.organization_id,
          scanId: scan.id,
          filters: {
            suppressed: query.suppressed,
            introduced: query.introduced,
            severity: query.severity,
            status: query.status,
            cwe: query.cwe,
            rule: query.rule,
            analyzer: query.analyzer,
            baseline: query.baseline,
            file: query.file,
            aiClass: query.ai_class,
            minAiConfidence: query.min_ai_confidence,
            dataflow: query.dataflow,
          },
          order,
          after,
          limit: query.limit + 1,
        });
        const page = rows.slice(0, query.limit);
        const last = page[page.length - 1];
        return {
          findings: page.map(presentFinding),
          next_cursor:
            rows.length > query.limit && last
              ? encodeCursor(order === "severity" ? findingCursorOf(last) : aiCursorOf(last, order))
              : null,
        };
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan/:scan_id/finding/:finding_id",
      operationId: "getFinding",
      summary: "One finding; its ETag is the version for If-Match",
      tags: ["Vulnerabilities"],
      params: FindingParams,
      responses: { 200: { description: "The finding.", schema: FindingView }, ...commonErrors },
      handler: async ({ params, principal, res }) => {
        const scan = await loadScan(deps, principal, params.scan_id);
        const finding = isId(params.finding_id) ? await getFinding(deps.db, scan.organization_id, scan.id, params.finding_id) : undefined;
        if (!finding) throw notFound("Finding");
        res.set("ETag", `"${finding.version}"`);
        return presentFinding(finding);
      },
    }),
    defineRoute({
      method: "put",
      path: "/scan/:scan_id/finding/:finding_id",
      operationId: "updateFinding",
      summary: "Update the review fields of a finding",
      description:
        "Only the fields present in the body change; omitted fields stay as they are. Labels are case-insensitive and `_`, `-` and space are equivalent (`true_positive` → `TRUE POSITIVE`). Send `If-Match` with the version from the ETag to refuse a lost update. Every change is kept in the finding's history.",
      tags: ["Vulnerabilities"],
      params: FindingParams,
      body: UpdateBody,
      headers: [{ name: "If-Match", description: "The finding's version (ETag), or `*` for any version; 412 if it changed meanwhile." }],
      responses: {
        200: { description: "Finding updated.", schema: z.object({ message: z.string(), finding: FindingView }) },
        ...commonErrors,
        403: { description: "Viewers cannot triage.", schema: ErrorBody },
        412: { description: "The finding changed since the given version.", schema: ErrorBody },
      },
      handler: async ({ params, body, principal, req, res }) => {
        const expectedVersion = parseIfMatch(req.get("If-Match"));
        const scan = await loadScan(deps, principal, params.scan_id, "member");
        if (!isId(params.finding_id)) throw notFound("Finding");
        const outcome = await updateFinding(deps.db, {
          organizationId: scan.organization_id,
          scanId: scan.id,
          findingId: params.finding_id,
          patch: body,
          userId: principal.user.id,
          expectedVersion,
        });
        if (outcome.kind === "not_found") throw notFound("Finding");
        if (outcome.kind === "conflict") throw preconditionFailed(`The finding was changed meanwhile; its version is now ${outcome.version}.`);
        if (outcome.changed.length > 0) await emitFindingTriaged(deps, outcome.finding, outcome.changed, principal.user.id);
        res.set("ETag", `"${outcome.finding.version}"`);
        return { message: "Finding updated", finding: presentFinding(outcome.finding) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan/:scan_id/finding/:finding_id/fix",
      operationId: "getFindingFix",
      summary: "The finding's mechanical fix as a unified diff",
      description: "Apply it with `git apply` or `patch -p1` at the repository root. `Accept: text/x-diff` returns the bare diff.",
      tags: ["Vulnerabilities"],
      params: FindingParams,
      responses: {
        200: {
          description: "The fix.",
          schema: z.object({ finding_id: z.string(), file: z.string(), description: z.string(), diff: z.string() }),
          alternatives: [{ contentType: "text/x-diff" }],
        },
        ...commonErrors,
      },
      handler: async ({ params, principal, req, res }) => {
        const scan = await loadScan(deps, principal, params.scan_id);
        const finding = isId(params.finding_id) ? await getFinding(deps.db, scan.organization_id, scan.id, params.finding_id) : undefined;
        if (!finding) throw notFound("Finding");
        const diff = finding.fix?.diff;
        if (!diff) throw new AppError(404, "not_found", "This finding has no automatic fix.");
        if (req.accepts(["application/json", "text/x-diff"]) === "text/x-diff") {
          res.type("text/x-diff").send(diff);
          return undefined;
        }
        return { finding_id: finding.id, file: finding.file, description: finding.fix?.description ?? finding.remediation ?? "Apply the suggested change.", diff };
      },
    }),
    defineRoute({
      method: "get",
      path: "/scan/:scan_id/finding/:finding_id/history",
      operationId: "getFindingHistory",
      summary: "Every change of a finding's review fields, oldest first",
      tags: ["Vulnerabilities"],
      params: FindingParams,
      responses: { 200: { description: "The history.", schema: z.object({ history: z.array(HistoryView) }) }, ...commonErrors },
      handler: async ({ params, principal }) => {
        const scan = await loadScan(deps, principal, params.scan_id);
        const finding = isId(params.finding_id) ? await getFinding(deps.db, scan.organization_id, scan.id, params.finding_id) : undefined;
        if (!finding) throw notFound("Finding");
        const rows = await findingHistory(deps.db, scan.organization_id, finding.id);
        return { history: rows.map(presentHistory) };
      },
    }),
  ];
}

import { z } from "zod";
import {
  AI_ACTIONS,
  AI_CLASSES,
  BASELINE_STATES,
  DATAFLOW_STATUSES,
  ErrorBody,
  FINDING_STATUSES,
  FindingFixView,
  FindingUpdateBody,
  FindingUpdated,
  FindingView,
  HistoryView,
  Id,
  SEVERITIES,
  canonicalLabel,
  listOf,
} from "@ax/contracts";
import type { AppDeps } from "../http/context";
import { defineRoute, type AnyRoute } from "../http/route";
import { Cursor, CsvList, EnumList, Limit, PatternList, QueryBool, commonErrors } from "../http/schemas";
import { findingFix, findingHistoryOf, findingPage, loadFinding, triageFinding } from "../services/findings";
import { presentFinding } from "../services/presenters";
import { badRequest } from "../http/errors";

const FindingParams = z.object({ scan_id: Id, finding_id: Id });

/** The filters over closed sets refuse unknown values (400 listing the allowed ones). */
const FindingFilters = {
  severity: EnumList("severity", SEVERITIES, canonicalLabel),
  status: EnumList("status", FINDING_STATUSES, canonicalLabel),
  cwe: PatternList("cwe", /^CWE-\d{1,6}$/, "CWE-89", (c) => c.toUpperCase()),
  baseline: EnumList("baseline", BASELINE_STATES, (b) => b.toLowerCase()),
  ai_class: EnumList("ai_class", AI_CLASSES, (c) => c.toUpperCase().replace(/[\s-]+/g, "_")),
  ai_action: EnumList("ai_action", AI_ACTIONS, (c) => c.toLowerCase().replace(/[\s-]+/g, "_")),
};

const FindingListQuery = z.object({
  ...FindingFilters,
  rule: CsvList,
  analyzer: CsvList,
  file: z.string().max(1000).optional(),
  suppressed: QueryBool,
  introduced: QueryBool,
  min_ai_confidence: z.coerce.number({ error: "must be a number" }).min(0).max(1).optional(),
  dataflow: z.enum([...DATAFLOW_STATUSES, "none", "refuted"], { error: "dataflow takes confirmed, unconfirmed or none" }).optional(),
  sort: z
    .enum(["severity", "ai_confidence", "-ai_confidence"], { error: "sort takes severity, ai_confidence or -ai_confidence" })
    .default("severity"),
  cursor: Cursor,
  limit: Limit(500, 100),
});

const LIST_DESCRIPTION = [
  "The order is the severity each finding had when the scan stored it (what the analyzer reported, or the project's review decision carried to",
  "it), most severe first, then file, line and id. Triage never changes that key, so paging with `next_cursor` lists every finding of the scan",
  "exactly once while reviewers triage it: a finding re-prioritised meanwhile shows its new `severity` but keeps its place. The review model's",
  "label, which `sort=ai_confidence` orders by, is set when the scan is stored and does not change either. Filters compare current values: a",
  "finding whose reviewed fields change between two pages can enter or leave a filtered listing. Filters take comma-separated values:",
  "`severity=high,critical`, `status=to review`, `cwe=CWE-89`, `rule=…`, `analyzer=…`, `baseline=new`; `file` is a path prefix. `severity`,",
  "`status`, `baseline`, `ai_class`, `ai_action`, `dataflow` and `sort` take only their listed values (case-insensitive) and `cwe` only `CWE-<n>`: anything",
  "else is 400 naming the allowed values, never an empty list. The list is the findings of the scan's commit: the record of a finding of the",
  "branch's previous scan that this scan no longer has (`baseline_state: absent`, status FIXED) is listed only with `baseline=absent` or",
  "`status=fixed`; `suppressed=false` hides findings suppressed in the source; `introduced=true` keeps only findings on lines changed since the",
  "scan's `baseline_commit` (a pull-request check). `ai_class=false_positive` and `min_ai_confidence=0.9` filter by the review model's label;",
  "`sort=ai_confidence` (least sure first) or `sort=-ai_confidence` (surest first) orders by it, unlabelled findings last; `ai_action=auto_closed`,",
  "`suggested` or `needs_review` by what the group's AI policy did with it (`ai.action`). `dataflow=confirmed`",
  "keeps the findings the taint analysis traced from an untrusted source, `dataflow=unconfirmed` those where it found no such path,",
  "`dataflow=none` those it did not judge. Matches the analysis refuted are not findings: `dataflow=refuted` is 400 pointing to",
  "`GET /scan/{scan_id}/refuted`, which lists them with the reason.",
].join(" ");

const listFindingsRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/findings",
    operationId: "listFindings",
    summary: "Findings of a scan, most severe first, with filters and cursor pagination",
    description: LIST_DESCRIPTION,
    tags: ["Vulnerabilities"],
    params: z.object({ scan_id: Id }),
    query: FindingListQuery,
    responses: { 200: { description: "A page of findings.", schema: listOf("findings", FindingView) }, ...commonErrors },
    handler: async ({ params, query: q, principal }) => {
      if (q.dataflow === "refuted")
        throw badRequest(
          "Invalid query: dataflow=refuted: refuted matches are not findings. GET /api/v2/scan/{scan_id}/refuted lists them, each with its reason.",
        );
      const filters = {
        suppressed: q.suppressed,
        introduced: q.introduced,
        severity: q.severity,
        status: q.status,
        cwe: q.cwe,
        rule: q.rule,
        analyzer: q.analyzer,
        baseline: q.baseline,
        file: q.file,
        aiClass: q.ai_class,
        minAiConfidence: q.min_ai_confidence,
        aiAction: q.ai_action,
        dataflow: q.dataflow,
      };
      return findingPage(deps, principal, params.scan_id, { filters, order: q.sort, cursor: q.cursor, limit: q.limit });
    },
  });

const getFindingRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/finding/:finding_id",
    operationId: "getFinding",
    summary: "One finding; its ETag is the version for If-Match",
    tags: ["Vulnerabilities"],
    params: FindingParams,
    responses: { 200: { description: "The finding.", schema: FindingView }, ...commonErrors },
    handler: async ({ params, principal, res }) => {
      const finding = await loadFinding(deps, principal, params.scan_id, params.finding_id);
      res.set("ETag", `"${finding.version}"`);
      return presentFinding(finding);
    },
  });

const UPDATE_DESCRIPTION =
  "Only the fields present in the body change; omitted fields stay as they are. Labels are case-insensitive and `_`, `-` and space are " +
  "equivalent (`true_positive` → `TRUE POSITIVE`). Send `If-Match` with the version from the ETag to refuse a lost update. Every change is kept " +
  "in the finding's history.";

const updateFindingRoute = (deps: AppDeps) =>
  defineRoute({
    method: "put",
    path: "/scan/:scan_id/finding/:finding_id",
    operationId: "updateFinding",
    summary: "Update the review fields of a finding",
    description: UPDATE_DESCRIPTION,
    tags: ["Vulnerabilities"],
    params: FindingParams,
    body: FindingUpdateBody,
    headers: [{ name: "If-Match", description: "The finding's version (ETag), or `*` for any version; 412 if it changed meanwhile." }],
    responses: {
      200: { description: "Finding updated.", schema: FindingUpdated },
      ...commonErrors,
      403: { description: "Viewers cannot triage.", schema: ErrorBody },
      412: { description: "The finding changed since the given version.", schema: ErrorBody },
    },
    handler: async ({ params, body, principal, req, res }) => {
      const input = { scanId: params.scan_id, findingId: params.finding_id, patch: body, ifMatch: req.get("If-Match") };
      const { version, answer } = await triageFinding(deps, principal, input);
      res.set("ETag", `"${version}"`);
      return answer;
    },
  });

const findingFixRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/finding/:finding_id/fix",
    operationId: "getFindingFix",
    summary: "The finding's mechanical fix as a unified diff",
    description: "Apply it with `git apply` or `patch -p1` at the repository root. `Accept: text/x-diff` returns the bare diff.",
    tags: ["Vulnerabilities"],
    params: FindingParams,
    responses: {
      200: { description: "The fix.", schema: FindingFixView, alternatives: [{ contentType: "text/x-diff" }] },
      ...commonErrors,
    },
    handler: async ({ params, principal, req, res }) => {
      const fix = await findingFix(deps, principal, params.scan_id, params.finding_id);
      if (req.accepts(["application/json", "text/x-diff"]) !== "text/x-diff") return fix;
      res.type("text/x-diff").send(fix.diff);
      return undefined;
    },
  });

const findingHistoryRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/scan/:scan_id/finding/:finding_id/history",
    operationId: "getFindingHistory",
    summary: "Every change of a finding's review fields, oldest first",
    tags: ["Vulnerabilities"],
    params: FindingParams,
    responses: { 200: { description: "The history.", schema: z.object({ history: z.array(HistoryView) }) }, ...commonErrors },
    handler: async ({ params, principal }) => findingHistoryOf(deps, principal, params.scan_id, params.finding_id),
  });

export const findingRoutes = (deps: AppDeps): AnyRoute[] => [
  listFindingsRoute(deps),
  getFindingRoute(deps),
  updateFindingRoute(deps),
  findingFixRoute(deps),
  findingHistoryRoute(deps),
];

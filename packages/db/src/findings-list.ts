import { sql } from "kysely";
import type { FindingDataflow } from "@ax/contracts";
import type { Db } from "./client";
import type { AiAction, Finding } from "./schema";

export interface FindingFilters {
  suppressed?: boolean | undefined;
  introduced?: boolean | undefined;
  severity?: string[] | undefined;
  status?: string[] | undefined;
  cwe?: string[] | undefined;
  rule?: string[] | undefined;
  analyzer?: string[] | undefined;
  baseline?: string[] | undefined;
  file?: string | undefined;
  /** The review model's label: TRUE_POSITIVE, FALSE_POSITIVE. */
  aiClass?: string[] | undefined;
  minAiConfidence?: number | undefined;
  /** What the group's AI policy did with the label: auto_closed, suggested, needs_review. */
  aiAction?: string[] | undefined;
  /** The taint analysis's verdict; "none": findings it did not judge. */
  dataflow?: FindingDataflow["status"] | "none" | undefined;
}

/**
 * Position in the default order: `rank` is the finding's list_rank (migration 0009), the
 * severity rank it had when its scan stored it, which triage never changes.
 */
export interface FindingCursor {
  rank: number;
  file: string;
  line: number;
  id: string;
}

/** Position in a list ordered by the review model's confidence (unlabelled findings last). */
export interface AiFindingCursor {
  ai: number;
  id: string;
}

export type FindingOrder = "severity" | "ai_confidence" | "-ai_confidence";

/**
 * A finding as a list shows it: without the analyzer's raw output and the fix (which can be
 * large and are shown only one finding at a time), the fix reduced to whether it has a diff.
 * Every column a page reads is parsed in the API process, so what is not shown is not read.
 */
export type FindingListRow = Omit<Finding, "raw" | "fix" | "triaged_fields" | "locator"> & { has_fix: boolean };

/** Every column of a list row, as a record so that a column added to findings must be listed here (or omitted above). */
const LISTED: Record<Exclude<keyof FindingListRow, "has_fix">, true> = {
  id: true,
  scan_id: true,
  organization_id: true,
  project_id: true,
  analyzer: true,
  rule_id: true,
  title: true,
  message: true,
  cwe_id: true,
  cwe_name: true,
  owasp: true,
  file: true,
  start_line: true,
  end_line: true,
  start_column: true,
  end_column: true,
  snippet: true,
  fingerprint: true,
  identity: true,
  first_seen_scan_id: true,
  baseline_state: true,
  status: true,
  reason: true,
  remediation: true,
  severity: true,
  impact: true,
  likelihood: true,
  confidence: true,
  severity_rank: true,
  list_rank: true,
  version: true,
  sources: true,
  suppression: true,
  introduced: true,
  dataflow: true,
  ai_class: true,
  ai_confidence: true,
  ai_model: true,
  ai_reasons: true,
  ai_action: true,
  created_at: true,
  updated_at: true,
};
const LIST_COLUMNS = Object.keys(LISTED) as (keyof typeof LISTED)[];

export function listFindings(
  db: Db,
  q: {
    organizationId: string;
    scanId: string;
    filters: FindingFilters;
    order?: FindingOrder;
    after?: FindingCursor | AiFindingCursor | undefined;
    limit: number;
  },
): Promise<FindingListRow[]> {
  let query = db
    .selectFrom("findings")
    .select(LIST_COLUMNS)
    .select(sql<boolean>`coalesce(jsonb_typeof(fix->'diff') = 'string', false)`.as("has_fix"))
    .where("organization_id", "=", q.organizationId)
    .where("scan_id", "=", q.scanId);
  const f = q.filters;
  if (f.suppressed !== undefined) query = query.where("suppression", f.suppressed ? "is not" : "is", null);
  if (f.introduced !== undefined) query = query.where("introduced", "=", f.introduced);
  if (f.severity?.length) query = query.where("severity", "in", f.severity);
  if (f.status?.length) query = query.where("status", "in", f.status);
  if (f.cwe?.length) query = query.where("cwe_id", "in", f.cwe);
  if (f.rule?.length) query = query.where("rule_id", "in", f.rule);
  if (f.analyzer?.length) query = query.where("analyzer", "in", f.analyzer);
  if (f.baseline?.length) query = query.where("baseline_state", "in", f.baseline as ("new" | "unchanged" | "absent")[]);
  // A scan's findings are its commit's: the records of findings gone since the branch's
  // previous scan ('absent', FIXED) are listed only when asked for.
  else if (!f.status?.includes("FIXED")) query = query.where("baseline_state", "!=", "absent");
  if (f.aiClass?.length) query = query.where("ai_class", "in", f.aiClass);
  if (f.aiAction?.length) query = query.where("ai_action", "in", f.aiAction as AiAction[]);
  if (f.minAiConfidence !== undefined) query = query.where("ai_confidence", ">=", f.minAiConfidence);
  if (f.dataflow === "none") query = query.where("dataflow", "is", null);
  else if (f.dataflow) query = query.where(sql<boolean>`dataflow->>'status' = ${f.dataflow}`);
  if (f.file) {
    // A path prefix: escape LIKE's wildcards so that '%' in a name matches itself.
    const escaped = f.file.replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where("file", "like", `${escaped}%`);
  }
  const order = q.order ?? "severity";
  if (order !== "severity") {
    // Unlabelled findings sort last either way: -1 below every confidence, 2 above. The label
    // is written with the scan's findings and triage never touches it, so this key is fixed too.
    const missing = order === "ai_confidence" ? 2 : -1;
    const key = sql<number>`coalesce(ai_confidence, ${missing})`;
    const a = q.after as AiFindingCursor | undefined;
    if (a)
      query = query.where(
        order === "ai_confidence" ? sql<boolean>`(${key}, id) > (${a.ai}, ${a.id})` : sql<boolean>`(${key}, id) < (${a.ai}, ${a.id})`,
      );
    const dir = order === "ai_confidence" ? "asc" : "desc";
    return query.orderBy(key, dir).orderBy("id", dir).limit(q.limit).execute();
  }
  // Keyset over columns that never change once stored (findings_list_idx): a finding triaged
  // while a client pages keeps its place, so every page boundary holds. Not severity_rank,
  // which follows the reviewer's severity.
  if (q.after) {
    const a = q.after as FindingCursor;
    query = query.where(sql<boolean>`(list_rank, file, start_line, id) > (${a.rank}, ${a.file}, ${a.line}, ${a.id})`);
  }
  return query.orderBy("list_rank").orderBy("file").orderBy("start_line").orderBy("id").limit(q.limit).execute();
}

/** The cursor value of a finding in the default order. */
export function findingCursorOf(f: Pick<FindingListRow, "list_rank" | "file" | "start_line" | "id">): FindingCursor {
  return { rank: f.list_rank, file: f.file, line: f.start_line, id: f.id };
}

/** The cursor value of a finding in an AI-confidence ordering. */
export function aiCursorOf(f: Pick<Finding, "id" | "ai_confidence">, order: Exclude<FindingOrder, "severity">): AiFindingCursor {
  return { ai: f.ai_confidence ?? (order === "ai_confidence" ? 2 : -1), id: f.id };
}

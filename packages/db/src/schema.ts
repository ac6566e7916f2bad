import type { ColumnType, Generated, Insertable, Selectable } from "kysely";
import type { FindingDataflow, FindingLocator, ScanDiff } from "@ax/contracts";

/** Row types of the tables in migrations/*.sql; keep the two in step. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type Json<T> = ColumnType<T, string, string>;
/** A JSON column with a database default: optional on insert. */
type JsonDefault<T> = ColumnType<T, string | undefined, string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  /** Set only on internal organizations (the public scans' 'public'); NULL for customers'. */
  internal_key: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  identity_provider: string;
  is_instance_admin: Generated<boolean>;
  created_at: CreatedAt;
}

export type Role = "owner" | "admin" | "member" | "viewer";

export interface MembershipsTable {
  organization_id: string;
  user_id: string;
  role: Role;
  created_at: CreatedAt;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  display_hint: string;
  scopes: Generated<string[]>;
  expires_at: Timestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface GroupsTable {
  id: string;
  organization_id: string;
  name: string;
  created_at: CreatedAt;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  group_id: string;
  name: string;
  git_url: string;
  created_at: CreatedAt;
}

export interface ScansTable {
  id: string;
  organization_id: string;
  group_id: string;
  project_id: string;
  created_by: string | null;
  git_uri: string;
  branch: string | null;
  requested_branch: string | null;
  commit_sha: string | null;
  state: Generated<string>;
  phase: string | null;
  progress: Generated<number>;
  error: string | null;
  attempts: Generated<number>;
  analyzers: Json<unknown[]>;
  languages: Generated<string[]>;
  counts: Json<Record<string, number>>;
  idempotency_key: string | null;
  request_hash: string | null;
  baseline_commit: string | null;
  selection: JsonDefault<Record<string, unknown>>;
  /** What the scan could not vouch for (migration 0007): see ScanNotice. */
  notices: JsonDefault<ScanNotice[]>;
  /** A diff-aware scan's comparison with its merge-base (migration 0010); null otherwise. */
  diff: Json<ScanDiff> | null;
  created_at: CreatedAt;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  updated_at: Generated<Date>;
}

/**
 * An analyzer that did not complete on this scan, and how many earlier findings of the branch
 * it produced: they are neither reported nor fixed here, and keep their decisions.
 */
export interface ScanNotice {
  kind: "findings_not_verified";
  analyzer: string;
  status: string;
  findings: number;
  message: string;
}

export interface FindingsTable {
  id: string;
  scan_id: string;
  organization_id: string;
  project_id: string;
  analyzer: string;
  rule_id: string;
  title: string;
  message: string;
  cwe_id: string | null;
  cwe_name: string | null;
  owasp: string | null;
  file: string;
  start_line: number;
  end_line: number;
  start_column: number;
  end_column: number;
  snippet: string;
  fingerprint: string;
  /** One finding across commits and branches (migration 0007); decisions are kept per identity. */
  identity: string;
  /** What identity matching reads of the finding's surroundings (null before 0007). */
  locator: Json<FindingLocator> | null;
  first_seen_scan_id: string | null;
  baseline_state: Generated<"new" | "unchanged" | "absent">;
  status: Generated<string>;
  reason: string | null;
  remediation: string | null;
  severity: string;
  impact: string | null;
  likelihood: string | null;
  confidence: string;
  severity_rank: ColumnType<number, never, never>;
  /** The severity rank when the scan stored the finding (migration 0009, set by a trigger, never updated): the list's order. */
  list_rank: ColumnType<number, number | undefined, never>;
  triaged_fields: Generated<string[]>;
  version: Generated<number>;
  raw: Json<unknown> | null;
  sources: JsonDefault<{ analyzer: string; rule_id: string }[]>;
  suppression: Json<{ kind: string; reason: string; line: number }> | null;
  fix: Json<{ replacement: string; start_byte: number; end_byte: number; description?: string; diff?: string }> | null;
  introduced: boolean | null;
  /** The taint analysis's verdict and trace; null when it did not judge the finding. */
  dataflow: Json<FindingDataflow> | null;
  /** The review model's label (auto-triage); separate from the reviewer's `status`. */
  ai_class: string | null;
  ai_confidence: number | null;
  ai_model: string | null;
  /** The evidence that weighed most in the label, in words (migration 0012). */
  ai_reasons: Json<string[]> | null;
  /** What the group's AI policy did with the label when the scan was stored (migration 0012). */
  ai_action: ColumnType<AiAction | null, AiAction | null | undefined, AiAction | null>;
  created_at: CreatedAt;
  updated_at: Generated<Date>;
}

export type AiAction = "auto_closed" | "suggested" | "needs_review";

/** A pattern match the taint analysis refuted (migration 0011): kept for inspection, never a finding. */
export interface RefutedMatchesTable {
  id: string;
  scan_id: string;
  organization_id: string;
  project_id: string;
  analyzer: string;
  rule_id: string;
  title: string;
  cwe_id: string | null;
  file: string;
  start_line: number;
  end_line: number;
  start_column: number;
  end_column: number;
  snippet: string;
  severity: string;
  /** The analysis's reason, in words. */
  reason: string;
  sources: JsonDefault<{ analyzer: string; rule_id: string }[]>;
}

export interface AnalysisCacheTable {
  organization_id: string;
  /** Entries are per project and go with it (0008_project_state.sql). */
  project_id: string;
  analyzer: string;
  analyzer_version: string;
  blob_sha: string;
  findings: Json<unknown[]>;
  created_at: CreatedAt;
  last_used_at: Generated<Date>;
}

/** A reviewer's latest decision on one finding identity on one branch (migration 0007). */
export interface TriageDecisionsTable {
  project_id: string;
  organization_id: string;
  identity: string;
  branch: string;
  /** Reviewer-set field → value. */
  fields: Json<Record<string, string | null>>;
  finding_id: string;
  decided_by: string | null;
  decided_at: Timestamp;
}

export interface FindingHistoryTable {
  id: string;
  finding_id: string;
  organization_id: string;
  changed_by: string | null;
  /** `ai`: the group's AI policy closed the finding (migration 0012). */
  source: "review" | "carried" | "ai";
  carried_from: string | null;
  changes: Json<Record<string, { from: string | null; to: string | null }>>;
  version: number;
  created_at: CreatedAt;
}

/** A group's AI policy (migration 0012); a group without a row has the default. */
export interface GroupAiPoliciesTable {
  group_id: string;
  organization_id: string;
  auto_close_at: number | null;
  suggest_at: number;
  updated_by: string | null;
  updated_at: Timestamp;
}

export interface AiRequestsTable {
  id: string;
  organization_id: string;
  group_id: string | null;
  user_id: string | null;
  kind: "review" | "chat";
  model: string;
  specialist: string | null;
  session_id: string | null;
  cwe_id: string | null;
  class: string | null;
  confidence: number | null;
  input: Json<Record<string, unknown>> | null;
  created_at: CreatedAt;
}

export interface AiFeedbackTable {
  request_id: string;
  user_id: string;
  organization_id: string;
  group_id: string | null;
  feedback: boolean;
  relay_status: "relayed" | "failed" | "disabled";
  relay_error: string | null;
  created_at: CreatedAt;
  updated_at: Generated<Date>;
}

export interface ChatMessagesTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string;
  session_id: string;
  role: "user" | "assistant";
  content: string;
  specialist: string | null;
  request_id: string | null;
  created_at: CreatedAt;
}

export interface WebhooksTable {
  id: string;
  organization_id: string;
  url: string;
  events: string[];
  active: Generated<boolean>;
  /** Sealed (webhook-secrets.ts): never returned by the API after creation or rotation. */
  secret: string;
  created_by: string | null;
  created_at: CreatedAt;
  updated_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  organization_id: string;
  event_id: string;
  event_type: string;
  payload: Json<Record<string, unknown>>;
  state: Generated<"pending" | "delivered" | "failed">;
  attempts: Generated<number>;
  last_status: number | null;
  last_error: string | null;
  duration_ms: number | null;
  next_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Generated<Date>;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  api_tokens: ApiTokensTable;
  groups: GroupsTable;
  projects: ProjectsTable;
  scans: ScansTable;
  findings: FindingsTable;
  finding_history: FindingHistoryTable;
  triage_decisions: TriageDecisionsTable;
  analysis_cache: AnalysisCacheTable;
  ai_requests: AiRequestsTable;
  ai_feedback: AiFeedbackTable;
  chat_messages: ChatMessagesTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  refuted_matches: RefutedMatchesTable;
  group_ai_policies: GroupAiPoliciesTable;
}

export type Organization = Selectable<OrganizationsTable>;
export type User = Selectable<UsersTable>;
export type ApiToken = Selectable<ApiTokensTable>;
export type Group = Selectable<GroupsTable>;
export type Project = Selectable<ProjectsTable>;
export type Scan = Selectable<ScansTable>;
export type Finding = Selectable<FindingsTable>;
export type RefutedMatch = Selectable<RefutedMatchesTable>;
export type NewFinding = Insertable<FindingsTable>;
export type FindingHistory = Selectable<FindingHistoryTable>;
export type AiRequest = Selectable<AiRequestsTable>;
export type ChatMessage = Selectable<ChatMessagesTable>;
export type Webhook = Selectable<WebhooksTable>;
export type WebhookDelivery = Selectable<WebhookDeliveriesTable>;

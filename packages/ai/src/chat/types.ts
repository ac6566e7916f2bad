/**
 * The chat assistant's parts: a router picks a specialist for each message; a specialist
 * answers in Markdown, line by line, from its built-in offline answerer or, when a model
 * server is configured, from its own model with the retrieved context in the prompt.
 */
import type { ChatSpecialistName } from "@ax/contracts";
import type { ModelProvider } from "../provider/types";

/** The names are declared once, in contracts (CHAT_SPECIALISTS): the API and the CLI read them too. */
export type SpecialistName = ChatSpecialistName;

export interface Route {
  specialist: SpecialistName;
  /** CWE ids named in the message ("CWE-89", "cwe 79"), normalized to "CWE-<n>". */
  cweIds: string[];
  /** A finding or scan id named in the message, when one is. */
  findingId?: string;
  scanId?: string;
  /** 0–1: how sure the router is. */
  score: number;
}

export interface ChatUser {
  id: string;
  display_name: string;
  email: string;
  identity_provider: string;
}

export interface ChatOrganization {
  id: string;
  name: string;
  role: string;
}

export interface ScanSummary {
  scan_id: string;
  state: string;
  git_uri: string;
  branch: string | null;
  commit: string | null;
  group_id: string;
  group_name: string;
  created_at: string;
  finished_at: string | null;
  error: string | null;
  /** The scan's counts as the API shows them (SCAN_COUNT_KEYS): open findings by severity, `total`, by review status, … */
  counts: Record<string, number>;
  languages: string[];
}

export interface FindingSummary {
  finding_id: string;
  scan_id: string;
  rule_id: string;
  analyzer: string;
  title: string;
  message: string;
  cwe_id: string | null;
  cwe_name: string | null;
  severity: string;
  confidence: string;
  status: string;
  file: string;
  start_line: number;
  end_line: number;
  snippet: string;
  remediation: string | null;
  /** Unified diff of the rule's mechanical fix, when it has one. */
  fix_diff: string | null;
  ai_class: string | null;
  ai_confidence: number | null;
}

/**
 * What the assistant may read of the caller's data: implemented by the API over PostgreSQL,
 * already scoped to the caller's organization and, when given, group. A specialist never
 * sees anything else.
 */
export interface ChatDataSource {
  /** Newest first. */
  recentScans(limit: number): Promise<ScanSummary[]>;
  scan(scanId: string): Promise<ScanSummary | null>;
  /** Highest severity first, then file and line. */
  findings(scanId: string, limit: number): Promise<FindingSummary[]>;
  finding(findingId: string): Promise<FindingSummary | null>;
  /** Counts of findings by CWE over a scan, highest first. */
  cweCounts(scanId: string, limit: number): Promise<{ cwe_id: string; cwe_name: string | null; count: number }[]>;
}

export interface HistoryTurn {
  role: "user" | "assistant";
  content: string;
  specialist: SpecialistName | null;
}

export interface SpecialistContext {
  prompt: string;
  route: Route;
  user: ChatUser;
  organization: ChatOrganization;
  groupId: string | null;
  /** Earlier turns of this session, oldest first (already capped). */
  history: HistoryTurn[];
  data: ChatDataSource;
  /** Present when a model server is configured for this specialist. */
  model?: { provider: ModelProvider; name: string };
  signal: AbortSignal;
}

/** A specialist's answer: Markdown lines (without "\n"), produced as they are ready. */
export type AnswerLines = AsyncIterable<string>;

export interface Specialist {
  name: SpecialistName;
  answer(ctx: SpecialistContext): AnswerLines;
}

import { sql } from "kysely";
import type { AiLabel } from "./analysis-cache";
import type { Db } from "./client";
import type { AiAction, NewFinding } from "./schema";

/**
 * A group's AI policy (issue 21, item 5): what the review model's label on a finding does.
 * A FALSE_POSITIVE label at `autoCloseAt` or surer closes the finding (status FALSE
 * POSITIVE), unless a reviewer decided its status; a label at `suggestAt` or surer is a
 * suggestion; anything less sure asks a human. `autoCloseAt` null: the AI never closes.
 */
export interface AiPolicy {
  autoCloseAt: number | null;
  suggestAt: number;
}

/** What every group had before policies existed: labels are advice, nothing is closed. */
export const DEFAULT_AI_POLICY: Readonly<AiPolicy> = Object.freeze({ autoCloseAt: null, suggestAt: 0.8 });

export interface StoredAiPolicy extends AiPolicy {
  groupId: string;
  updatedBy: string | null;
  /** Null for a group that still has the default. */
  updatedAt: Date | null;
}

/** The group's policy (the default when it has none); the group must be the organization's. */
export async function getAiPolicy(db: Db, organizationId: string, groupId: string): Promise<StoredAiPolicy> {
  const row = await db
    .selectFrom("group_ai_policies")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("group_id", "=", groupId)
    .executeTakeFirst();
  if (!row) return { ...DEFAULT_AI_POLICY, groupId, updatedBy: null, updatedAt: null };
  return {
    groupId,
    autoCloseAt: row.auto_close_at,
    suggestAt: row.suggest_at,
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at),
  };
}

/** Sets the group's policy (the caller checked that the group is the organization's). */
export async function putAiPolicy(
  db: Db,
  input: { organizationId: string; groupId: string; policy: AiPolicy; userId: string },
): Promise<StoredAiPolicy> {
  const values = { auto_close_at: input.policy.autoCloseAt, suggest_at: input.policy.suggestAt, updated_by: input.userId };
  await db
    .insertInto("group_ai_policies")
    .values({ group_id: input.groupId, organization_id: input.organizationId, ...values, updated_at: sql`now()` })
    .onConflict((oc) => oc.column("group_id").doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute();
  return getAiPolicy(db, input.organizationId, input.groupId);
}

/** What the policy does with a label; `closable`: no reviewer decided the finding's status. */
export function aiActionOf(label: Pick<AiLabel, "class" | "confidence">, policy: AiPolicy, closable: boolean): AiAction {
  const { autoCloseAt, suggestAt } = policy;
  if (closable && label.class === "FALSE_POSITIVE" && autoCloseAt !== null && label.confidence >= autoCloseAt) return "auto_closed";
  return label.confidence >= suggestAt ? "suggested" : "needs_review";
}

/** What a closed finding's reason and history say: who closed it and why. */
export function autoCloseReason(label: AiLabel, autoCloseAt: number): string {
  const why = (label.reasons ?? []).slice(0, 3).join("; ");
  return (
    `Closed by the group's AI policy: the review model (${label.model}) labelled it FALSE_POSITIVE with confidence ` +
    `${label.confidence.toFixed(2)}, at or above the auto-close threshold ${autoCloseAt.toFixed(2)}.${why ? ` Evidence: ${why}.` : ""}`
  );
}

export interface AiPolicyChange {
  finding_id: string;
  changes: Record<string, { from: string | null; to: string | null }>;
  version: number;
}

/**
 * Sets each labelled row's `ai_action` under the policy and closes the rows it auto-closes:
 * only a row whose status no reviewer decided (on this finding or on the earlier finding its
 * decision was carried from: `triaged_fields`) and that is still TO REVIEW. A reviewer's
 * reason is kept. Returns the history of what it changed, one entry per closed row.
 */
export function applyAiPolicy(rows: NewFinding[], labels: ReadonlyMap<string, AiLabel> | undefined, policy: AiPolicy): AiPolicyChange[] {
  const out: AiPolicyChange[] = [];
  for (const row of rows) {
    const label = labels?.get(row.fingerprint);
    if (!label) continue;
    const triaged = row.triaged_fields ?? [];
    const closable = !triaged.includes("status") && (row.status ?? "TO REVIEW") === "TO REVIEW";
    row.ai_action = aiActionOf(label, policy, closable);
    if (row.ai_action !== "auto_closed") continue;
    const changes: AiPolicyChange["changes"] = { status: { from: "TO REVIEW", to: "FALSE POSITIVE" } };
    row.status = "FALSE POSITIVE";
    if (!triaged.includes("reason")) {
      const reason = autoCloseReason(label, policy.autoCloseAt!);
      changes.reason = { from: row.reason ?? null, to: reason };
      row.reason = reason;
    }
    row.version = (row.version ?? 1) + 1;
    out.push({ finding_id: row.id, changes, version: row.version });
  }
  return out;
}

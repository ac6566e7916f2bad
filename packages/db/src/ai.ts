/**
 * AI requests, feedback votes, chat history and the review model's label on findings.
 * Every read takes the caller's organization ids: another tenant's request is simply absent.
 */
import { sql } from "kysely";
import type { Db } from "./client";
import type { AiRequest, ChatMessage } from "./schema";

export interface NewAiRequest {
  id: string;
  organizationId: string;
  groupId: string | null;
  userId: string;
  kind: "review" | "chat";
  model: string;
  specialist?: string | null;
  sessionId?: string | null;
  cweId?: string | null;
  class?: string | null;
  confidence?: number | null;
  input?: Record<string, unknown> | null;
}

export async function insertAiRequest(db: Db, r: NewAiRequest): Promise<void> {
  await db
    .insertInto("ai_requests")
    .values({
      id: r.id,
      organization_id: r.organizationId,
      group_id: r.groupId,
      user_id: r.userId,
      kind: r.kind,
      model: r.model,
      specialist: r.specialist ?? null,
      session_id: r.sessionId ?? null,
      cwe_id: r.cweId ?? null,
      class: r.class ?? null,
      confidence: r.confidence ?? null,
      input: r.input ? JSON.stringify(r.input) : null,
    })
    .execute();
}

/** An AI request of one of the given organizations, or undefined. */
export function getAiRequest(db: Db, organizationIds: string[], id: string): Promise<AiRequest | undefined> {
  if (organizationIds.length === 0) return Promise.resolve(undefined);
  return db.selectFrom("ai_requests").selectAll().where("id", "=", id).where("organization_id", "in", organizationIds).executeTakeFirst();
}

export interface FeedbackVote {
  requestId: string;
  userId: string;
  organizationId: string;
  groupId: string | null;
  feedback: boolean;
  relayStatus: "relayed" | "failed" | "disabled";
  relayError: string | null;
}

/** One vote per user and request: voting again replaces the earlier vote. */
export async function upsertFeedback(db: Db, v: FeedbackVote): Promise<void> {
  await db
    .insertInto("ai_feedback")
    .values({
      request_id: v.requestId,
      user_id: v.userId,
      organization_id: v.organizationId,
      group_id: v.groupId,
      feedback: v.feedback,
      relay_status: v.relayStatus,
      relay_error: v.relayError,
    })
    .onConflict((oc) =>
      oc.columns(["request_id", "user_id"]).doUpdateSet({
        feedback: v.feedback,
        group_id: v.groupId,
        relay_status: v.relayStatus,
        relay_error: v.relayError,
        updated_at: sql`now()`,
      }),
    )
    .execute();
}

export interface AgreementRow {
  kind: string;
  model: string;
  key: string;
  votes: number;
  agree: number;
}

/**
 * How often users agreed with the AI ("true" votes), per kind and model, and per CWE for
 * reviews and per specialist for chat answers.
 */
export async function feedbackAgreement(db: Db, organizationId: string): Promise<{ byModel: AgreementRow[]; byKey: AgreementRow[] }> {
  const base = db
    .selectFrom("ai_feedback as f")
    .innerJoin("ai_requests as r", "r.id", "f.request_id")
    .where("f.organization_id", "=", organizationId)
    .where("r.organization_id", "=", organizationId);
  const byModel = await base
    .select([
      "r.kind",
      "r.model",
      sql<string>`''`.as("key"),
      sql<number>`count(*)::int`.as("votes"),
      sql<number>`count(*) filter (where f.feedback)::int`.as("agree"),
    ])
    .groupBy(["r.kind", "r.model"])
    .orderBy("r.kind")
    .orderBy("r.model")
    .execute();
  const byKey = await base
    .select([
      "r.kind",
      "r.model",
      sql<string>`coalesce(case when r.kind = 'review' then r.cwe_id else r.specialist end, 'unknown')`.as("key"),
      sql<number>`count(*)::int`.as("votes"),
      sql<number>`count(*) filter (where f.feedback)::int`.as("agree"),
    ])
    .groupBy(["r.kind", "r.model", sql`3`])
    .orderBy("r.kind")
    .orderBy("r.model")
    .orderBy(sql`3`)
    .execute();
  return { byModel: byModel as AgreementRow[], byKey: byKey as AgreementRow[] };
}

export interface ReviewVoteExample {
  request_id: string;
  organization_id: string;
  model: string;
  class: string | null;
  feedback: boolean;
  input: Record<string, unknown> | null;
}

/**
 * Votes on review answers with what the model saw: labeled examples for the next training
 * run. A "true" vote confirms the returned class, "false" says the other class was right.
 * Latest vote per request wins when several users voted differently.
 */
export function reviewVoteExamples(db: Db, organizationId?: string): Promise<ReviewVoteExample[]> {
  let q = db
    .selectFrom("ai_feedback as f")
    .innerJoin("ai_requests as r", "r.id", "f.request_id")
    .where("r.kind", "=", "review")
    .where("r.input", "is not", null)
    .distinctOn("f.request_id")
    .select(["f.request_id", "r.organization_id", "r.model", "r.class", "f.feedback", "r.input"])
    .orderBy("f.request_id")
    .orderBy("f.updated_at", "desc");
  if (organizationId) q = q.where("r.organization_id", "=", organizationId);
  return q.execute() as Promise<ReviewVoteExample[]>;
}

export async function appendChatMessage(
  db: Db,
  m: {
    organizationId: string;
    userId: string;
    sessionId: string;
    role: "user" | "assistant";
    content: string;
    specialist: string | null;
    requestId: string | null;
  },
): Promise<void> {
  await db
    .insertInto("chat_messages")
    .values({
      organization_id: m.organizationId,
      user_id: m.userId,
      session_id: m.sessionId,
      role: m.role,
      content: m.content,
      specialist: m.specialist,
      request_id: m.requestId,
    })
    .execute();
}

/** The last `limit` messages of a user's session in an organization, oldest first. */
export async function chatHistory(
  db: Db,
  organizationId: string,
  userId: string,
  sessionId: string,
  limit: number,
): Promise<ChatMessage[]> {
  if (limit <= 0) return [];
  const rows = await db
    .selectFrom("chat_messages")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("user_id", "=", userId)
    .where("session_id", "=", sessionId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.reverse();
}

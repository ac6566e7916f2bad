/**
 * The AI side of the API: the trained review model (loaded once), the optional model
 * server client, and the review and feedback services. Chat lives in chat.ts.
 */
import { randomUUID } from "node:crypto";
import {
  createOpenAiClient,
  defaultReviewModel,
  warmCweCatalog,
  relayFeedback,
  reviewFinding,
  RelayError,
  type CombinedVerdict,
  type ModelProvider,
  type ReviewModel,
} from "@ax/ai";
import { adjustVerdict, reviewFacts } from "@ax/ai/review";
import type { AiConfig } from "@ax/config";
import type { ReviewBody, ReviewResult } from "@ax/contracts";
import { feedbackAgreement, getAiRequest, getGroup, insertAiRequest, isId, upsertFeedback, type Principal } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { AppDeps } from "../http/context";
import { AppError, badRequest, notFound } from "../http/errors";
import { orgIds } from "./access";
import { orgStatsOf } from "./org-learning";
import { snippetReview } from "./snippet-evidence";

export interface AiServices {
  reviewModel: ReviewModel;
  provider: ModelProvider | undefined;
}

const cache = new WeakMap<AiConfig, AiServices>();

/** Built on first use from the configuration (the model file is read once per process). */
export function aiServices(deps: AppDeps): AiServices {
  let s = cache.get(deps.config.ai);
  if (!s) {
    const p = deps.config.ai.provider;
    s = {
      reviewModel: defaultReviewModel(),
      provider: p ? createOpenAiClient({ baseUrl: p.baseUrl, apiKey: p.apiKey, timeoutMs: p.timeoutMs, retries: p.retries }) : undefined,
    };
    cache.set(deps.config.ai, s);
  }
  return s;
}

/**
 * Pays the one-time costs before the first request: the review model's weights and the CWE
 * catalogue's index (~0.25 s), so that a chat answer's first line comes within milliseconds.
 */
export async function warmAi(deps: AppDeps): Promise<void> {
  aiServices(deps);
  await warmCweCatalog();
}

export async function reviewForCaller(
  deps: AppDeps,
  caller: { principal: Principal; organizationId: string; groupId?: string | undefined },
  body: ReviewBody,
  signal: AbortSignal,
  log: Logger,
): Promise<ReviewResult> {
  const groupId = caller.groupId;
  if (groupId !== undefined && (!isId(groupId) || !(await getGroup(deps.db, caller.organizationId, groupId)))) throw notFound("Group");
  const ai = aiServices(deps);
  const modelName = deps.config.ai.reviewModel;
  const server =
    ai.provider && modelName ? { provider: ai.provider, model: modelName, weight: deps.config.ai.reviewLlmWeight, signal } : undefined;
  // No finding behind a bare snippet: the taint analysis runs on it for the same evidence.
  const { facts, evidence } = await snippetReview(body, { signal });
  const verdict: CombinedVerdict = await reviewFinding(ai.reviewModel, { ...body, evidence }, server);
  if (verdict.llmError) log.warn("review model server failed; trained model answered alone", { error: verdict.llmError });
  // The organization's own triage and review votes move the verdict (org-learning.ts); never another organization's.
  const stats = await orgStatsOf(deps.db, caller.organizationId);
  Object.assign(verdict, adjustVerdict(verdict, reviewFacts(body), stats, { threshold: ai.reviewModel.artifact.threshold }));
  const requestId = randomUUID();
  await insertAiRequest(deps.db, {
    id: requestId,
    organizationId: caller.organizationId,
    groupId: groupId ?? null,
    userId: caller.principal.user.id,
    kind: "review",
    model: verdict.model,
    cweId: body.cwe_id ?? null,
    class: verdict.class,
    confidence: verdict.confidence,
    // What the model saw: a vote on this answer becomes a labeled example (ai:train --feedback).
    input: {
      code: body.code,
      cwe_id: body.cwe_id ?? null,
      cwe_name: body.cwe_name ?? null,
      file: body.file ?? null,
      line: body.line ?? null,
      p_true: verdict.pTrue,
      facts,
    },
  });
  return { class: verdict.class, confidence: verdict.confidence, request_id: requestId, model: verdict.model, reasons: verdict.reasons };
}

/** The messages of DESIGN §5, exactly. */
export const FEEDBACK_ERRORS = {
  organization: "A valid organization_id is required.",
  group: "A valid group_id is required.",
  status: "status must be true or false.",
  notFound: "AI request not found.",
  downstream: "Failed to make request to downstream API.",
} as const;

/**
 * Stores a vote on an AI answer and relays it downstream with the organization and group the
 * request was made in, read from its record: the caller's `organization_id` and `group_id` must
 * name them, and are never relayed on their word. A request made outside any group (a review
 * without `group_id`, a chat without one) is attributed to the group the caller names, which
 * must be a group of the request's organization.
 */
export async function submitFeedback(
  deps: AppDeps,
  principal: Principal,
  input: { requestId: string; feedback: boolean; organizationId: string; groupId: string },
  log: Logger,
): Promise<{ message: string }> {
  const orgId = input.organizationId;
  if (!isId(orgId) || !principal.memberships.some((m) => m.organization_id === orgId)) throw badRequest(FEEDBACK_ERRORS.organization);
  const given = input.groupId;
  if (!isId(given) || !(await getGroup(deps.db, orgId, given))) throw badRequest(FEEDBACK_ERRORS.group);
  // Looked up in all of the caller's organizations, so that a request of another of them is
  // told apart from one that does not exist (or belongs to another tenant: 404 alike).
  const request = isId(input.requestId) ? await getAiRequest(deps.db, orgIds(principal), input.requestId) : undefined;
  if (!request) throw notFound("AI request"); // "AI request not found." (FEEDBACK_ERRORS.notFound)
  if (request.organization_id !== orgId) throw badRequest(FEEDBACK_ERRORS.organization);
  if (request.group_id !== null && request.group_id !== given) throw badRequest(FEEDBACK_ERRORS.group);
  const organizationId = request.organization_id;
  const groupId = request.group_id ?? given;
  const feedback = input.feedback;
  const relay = deps.config.ai.feedback;
  let relayStatus: "relayed" | "failed" | "disabled" = "disabled";
  let relayError: string | null = null;
  if (relay.url) {
    try {
      await relayFeedback(
        { url: relay.url, token: relay.token, timeoutMs: relay.timeoutMs },
        { request_id: request.id, feedback, organization_id: organizationId, group_id: groupId, kind: request.kind, model: request.model },
      );
      relayStatus = "relayed";
    } catch (err) {
      relayStatus = "failed";
      relayError = err instanceof RelayError ? err.message : "relay failed";
      log.warn("feedback relay failed", { request_id: request.id, reason: relayError });
    }
  }
  // Stored whatever the relay did: agreement figures and training data do not depend on it.
  await upsertFeedback(deps.db, {
    requestId: request.id,
    userId: principal.user.id,
    organizationId,
    groupId,
    feedback,
    relayStatus,
    relayError,
  });
  if (relayStatus === "failed") throw new AppError(502, "downstream_failed", FEEDBACK_ERRORS.downstream);
  return { message: "Feedback submitted" };
}

/** How often users agreed with the AI, per model and per CWE or specialist (agreement rounded to 0.001). */
export async function agreementReport(deps: AppDeps, organizationId: string) {
  const { byModel, byKey } = await feedbackAgreement(deps.db, organizationId);
  const present = <R extends { votes: number; agree: number }>(r: R) => ({
    ...r,
    agreement: r.votes > 0 ? Math.round((r.agree / r.votes) * 1000) / 1000 : 0,
  });
  return { by_model: byModel.map(present), by_key: byKey.map(present) };
}

/**
 * The AI side of the API: the trained review model (loaded once), the optional model
 * server client, and the review and feedback services. Chat lives in chat.ts.
 */
import { randomUUID } from "node:crypto";
import { createOpenAiClient, defaultReviewModel, warmCweCatalog, relayFeedback, reviewFinding, RelayError, type CombinedVerdict, type ModelProvider, type ReviewModel } from "@ax/ai";
import type { AiConfig } from "@ax/config";
import { getAiRequest, getGroup, insertAiRequest, isId, upsertFeedback, type Principal } from "@ax/db";
import type { Logger } from "@ax/logger";
import type { AppDeps } from "../http/context";
import { AppError, badRequest, notFound } from "../http/errors";

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

export interface ReviewRequest {
  code: string;
  cwe_id?: string | undefined;
  cwe_name?: string | undefined;
  line?: string | undefined;
  file?: string | undefined;
}

export async function reviewForCaller(
  deps: AppDeps,
  caller: { principal: Principal; organizationId: string },
  body: ReviewRequest,
  signal: AbortSignal,
  log: Logger,
): Promise<{ class: string; confidence: number; request_id: string; model: string }> {
  const ai = aiServices(deps);
  const modelName = deps.config.ai.reviewModel;
  const server = ai.provider && modelName ? { provider: ai.provider, model: modelName, weight: deps.config.ai.reviewLlmWeight, signal } : undefined;
  const verdict: CombinedVerdict = await reviewFinding(ai.reviewModel, body, server);
  if (verdict.llmError) log.warn("review model server failed; trained model answered alone", { error: verdict.llmError });
  const requestId = randomUUID();
  await insertAiRequest(deps.db, {
    id: requestId,
    organizationId: caller.organizationId,
    groupId: null,
    userId: caller.principal.user.id,
    kind: "review",
    model: verdict.model,
    cweId: body.cwe_id ?? null,
    class: verdict.class,
    confidence: verdict.confidence,
    // What the model saw: a vote on this answer becomes a labeled example (ai:train --feedback).
    input: { code: body.code, cwe_id: body.cwe_id ?? null, cwe_name: body.cwe_name ?? null, file: body.file ?? null, line: body.line ?? null, p_true: verdict.pTrue },
  });
  return { class: verdict.class, confidence: verdict.confidence, request_id: requestId, model: verdict.model };
}

/** The messages of DESIGN §5, exactly. */
export const FEEDBACK_ERRORS = {
  organization: "A valid organization_id is required.",
  group: "A valid group_id is required.",
  status: "status must be true or false.",
  notFound: "AI request not found.",
  downstream: "Failed to make request to downstream API.",
} as const;

export async function submitFeedback(
  deps: AppDeps,
  principal: Principal,
  input: { requestId: string; status: string; organizationId: string | undefined; groupId: string | undefined },
  log: Logger,
): Promise<{ message: string }> {
  const orgId = input.organizationId;
  if (!orgId || !isId(orgId) || !principal.memberships.some((m) => m.organization_id === orgId)) throw badRequest(FEEDBACK_ERRORS.organization);
  const groupId = input.groupId;
  if (!groupId || !isId(groupId) || !(await getGroup(deps.db, orgId, groupId))) throw badRequest(FEEDBACK_ERRORS.group);
  const status = input.status.toLowerCase();
  if (status !== "true" && status !== "false") throw badRequest(FEEDBACK_ERRORS.status);
  const request = isId(input.requestId) ? await getAiRequest(deps.db, [orgId], input.requestId) : undefined;
  if (!request) throw notFound("AI request"); // "AI request not found." (FEEDBACK_ERRORS.notFound)
  const feedback = status === "true";
  const relay = deps.config.ai.feedback;
  let relayStatus: "relayed" | "failed" | "disabled" = "disabled";
  let relayError: string | null = null;
  if (relay.url) {
    try {
      await relayFeedback({ url: relay.url, token: relay.token, timeoutMs: relay.timeoutMs }, { request_id: request.id, feedback, organization_id: orgId, group_id: groupId, kind: request.kind, model: request.model });
      relayStatus = "relayed";
    } catch (err) {
      relayStatus = "failed";
      relayError = err instanceof RelayError ? err.message : "relay failed";
      log.warn("feedback relay failed", { request_id: request.id, reason: relayError });
    }
  }
  // Stored whatever the relay did: agreement figures and training data do not depend on it.
  await upsertFeedback(deps.db, { requestId: request.id, userId: principal.user.id, organizationId: orgId, groupId, feedback, relayStatus, relayError });
  if (relayStatus === "failed") throw new AppError(502, "bad_gateway", FEEDBACK_ERRORS.downstream);
  return { message: "Feedback submitted" };
}

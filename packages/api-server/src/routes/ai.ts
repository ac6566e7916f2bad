import { z } from "zod";
import { AgreementReport, ChatBody, ErrorBody, FeedbackSubmitted, Id, ReviewBody, ReviewResult, withEnum } from "@ax/contracts";
import { child } from "@ax/logger";
import type { Response } from "express";
import type { AppDeps } from "../http/context";
import { badRequest, type AppError, type ErrorWriter } from "../http/errors";
import { defineRoute, type AnyRoute, type InputPart, type RouteInput } from "../http/route";
import { OrgQuery, commonErrors } from "../http/schemas";
import { requireRole, resolveOrganization } from "../services/access";
import { FEEDBACK_ERRORS, agreementReport, reviewForCaller, submitFeedback } from "../services/ai";
import { chatForCaller, writeMarkdownError } from "../services/chat";

const markdownErrors: ErrorWriter = (res, status, body) => writeMarkdownError(res as never, status, body);

/** A feedback status: `true` or `false`, in any case. */
const FeedbackStatus = withEnum(
  z
    .string()
    .max(20)
    .transform((v) => v.toLowerCase())
    .refine((v) => v === "true" || v === "false"),
  ["true", "false"],
);

/**
 * The feedback endpoint's fixed error bodies (DESIGN §5) for input its schemas refuse: a missing
 * or malformed organization, group or status answers the same sentence as one the handler refuses.
 */
function feedbackInputError(part: InputPart, issue: z.core.$ZodIssue): AppError | undefined {
  const field = `${part}.${String(issue.path[0] ?? "")}`;
  if (field === "query.organization_id") return badRequest(FEEDBACK_ERRORS.organization);
  if (field === "query.group_id") return badRequest(FEEDBACK_ERRORS.group);
  if (field === "path.status") return badRequest(FEEDBACK_ERRORS.status);
  return undefined;
}

const MARKDOWN = "text/markdown";
const chatResponses = {
  200: {
    description:
      "The answer, Markdown (streamed line by line when `stream` is true). Headers: X-AI-Request-Id, X-Session-Id, X-AI-Specialist.",
    contentType: MARKDOWN,
  },
  400: { description: "Invalid input, in Markdown.", contentType: MARKDOWN },
  401: { description: "Missing or invalid token, in Markdown.", contentType: MARKDOWN },
  404: { description: "Organization or group not found, in Markdown.", contentType: MARKDOWN },
};

/** An abort signal that fires when the client goes away before the answer is written. */
async function untilClientLeaves<T>(res: Response, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on("close", onClose);
  try {
    return await work(abort.signal);
  } finally {
    res.off("close", onClose);
  }
}

const REVIEW_DESCRIPTION = [
  "The trained review model (in process, offline) classifies the code around a finding; with a model server configured (AI_BASE_URL,",
  "AI_MODEL_REVIEW) its verdict is combined with the server model's. Send the enclosing function as `code` for the best answer.",
  "`organization_id` may be omitted when the caller belongs to one organization; `group_id` (optional) records the group the review is made",
  "in, which feedback on it then relays. The `request_id` is what feedback refers to.",
].join(" ");

const reviewRoute = (deps: AppDeps, logger: () => ReturnType<typeof child>) =>
  defineRoute({
    method: "post",
    path: "/ai/review",
    operationId: "reviewVulnerability",
    summary: "Classify a reported vulnerability: TRUE_POSITIVE or FALSE_POSITIVE with a calibrated confidence",
    description: REVIEW_DESCRIPTION,
    tags: ["GenAI"],
    query: OrgQuery.extend({ group_id: Id.optional() }),
    body: ReviewBody(deps.config.limits.maxCodeBytes),
    responses: {
      200: { description: "The verdict, with `reasons`: the evidence that weighed most toward `class`, in words.", schema: ReviewResult },
      ...commonErrors,
      404: { description: "Organization or group not found, or not visible to the caller.", schema: ErrorBody },
    },
    handler: async ({ query, body, principal, req, res }) => {
      const caller = {
        principal,
        organizationId: resolveOrganization(principal, query.organization_id, "viewer"),
        groupId: query.group_id,
      };
      return untilClientLeaves(res, (signal) => reviewForCaller(deps, caller, body, signal, logger().child({ request_id: req.id })));
    },
  });

const CHAT_DESCRIPTION = [
  "Routes the message to a specialist — identity (who am I), weakness knowledge (MITRE CWE), your scans and findings, remediation of one",
  "finding, general application security — and answers in Markdown. `stream: true` writes the answer line by line (chunked `text/markdown`,",
  "no SSE framing). History is kept per `sessione_id` and user; without one, a new session id is returned in `X-Session-Id`. `group_id`",
  "limits what the assistant reads to one group. Errors are Markdown too.",
].join(" ");

type ChatInput = RouteInput<z.ZodType, z.ZodType, ReturnType<typeof ChatBody>>;

/** The two chat routes: the organization from the query, or from the path. */
function chatRoutes(deps: AppDeps, logger: () => ReturnType<typeof child>): AnyRoute[] {
  const chat = async (organizationId: string | undefined, input: ChatInput) => {
    const org = resolveOrganization(input.principal, organizationId, "viewer");
    await chatForCaller(deps, { principal: input.principal, organizationId: org }, input.body, input.req, input.res, logger());
    return undefined;
  };
  const chatRoute = {
    tags: ["GenAI"],
    body: ChatBody(deps.config.limits.maxPromptChars),
    errorWriter: markdownErrors,
    errorContentType: MARKDOWN,
  };
  return [
    defineRoute({
      ...chatRoute,
      method: "post",
      path: "/ai/chatbot",
      operationId: "chat",
      summary: "Chat assistant (Markdown, optionally streamed)",
      description: `${CHAT_DESCRIPTION} The organization comes from query \`organization_id\`, optional when the caller belongs to one organization.`,
      query: OrgQuery,
      responses: chatResponses,
      handler: (input) => chat(input.query.organization_id, input),
    }),
    defineRoute({
      ...chatRoute,
      method: "post",
      path: "/:organization_id/chatbot",
      operationId: "chatInOrganization",
      summary: "Chat assistant in an organization (the streaming usage)",
      description: CHAT_DESCRIPTION,
      params: z.object({ organization_id: Id }),
      responses: chatResponses,
      handler: (input) => chat(input.params.organization_id, input),
    }),
  ];
}

const FEEDBACK_DESCRIPTION = [
  "`request_id` is a review's `request_id` or a chat answer's `X-AI-Request-Id`; `status` is `true` (the answer was right) or `false`, in any",
  "case. Query `organization_id` and `group_id` are required and must name the organization and group the AI request was made in (a request",
  "made in no group: any group of its organization); what is relayed comes from the request's record, not from the query. The vote is stored",
  "(one per user and request; voting again replaces it) and relayed to AI_FEEDBACK_URL when one is configured.",
].join(" ");

const feedbackRoute = (deps: AppDeps, logger: () => ReturnType<typeof child>) =>
  defineRoute({
    method: "get",
    path: "/ai/feedback/:request_id/:status",
    operationId: "aiFeedback",
    summary: "Feedback (true or false) on one AI answer, stored and relayed downstream",
    description: FEEDBACK_DESCRIPTION,
    tags: ["GenAI"],
    params: z.object({ request_id: z.string().max(200), status: FeedbackStatus }),
    query: z.object({ organization_id: Id, group_id: Id }),
    invalidInput: feedbackInputError,
    responses: {
      200: { description: "Feedback submitted.", schema: FeedbackSubmitted },
      400: {
        description:
          `${FEEDBACK_ERRORS.organization} (missing, malformed, not the caller's, or not the request's) / ` +
          `${FEEDBACK_ERRORS.group} (missing, unknown, or not the group the request was made in) / ${FEEDBACK_ERRORS.status}`,
        schema: ErrorBody,
      },
      401: { description: "Missing or invalid token.", schema: ErrorBody },
      404: { description: FEEDBACK_ERRORS.notFound, schema: ErrorBody },
      502: { description: `${FEEDBACK_ERRORS.downstream} (also on a downstream timeout; the vote is stored anyway).`, schema: ErrorBody },
    },
    handler: ({ params, query, principal, req }) => {
      const input = {
        requestId: params.request_id,
        feedback: params.status === "true",
        organizationId: query.organization_id,
        groupId: query.group_id,
      };
      return submitFeedback(deps, principal, input, logger().child({ request_id: req.id }));
    },
  });

const agreementRoute = (deps: AppDeps) =>
  defineRoute({
    method: "get",
    path: "/organization/:organization_id/ai/feedback",
    operationId: "aiFeedbackAgreement",
    summary: "How often users agreed with the AI, per model and per CWE or specialist (admins)",
    tags: ["GenAI"],
    params: z.object({ organization_id: Id }),
    responses: {
      200: { description: "Agreement figures.", schema: AgreementReport },
      ...commonErrors,
      403: { description: "Admins and owners only.", schema: ErrorBody },
    },
    handler: async ({ params, principal }) => {
      requireRole(principal, params.organization_id, "admin");
      return agreementReport(deps, params.organization_id);
    },
  });

export function aiRoutes(deps: AppDeps): AnyRoute[] {
  // Resolved on first use: the route table is also built without a logger (docs:api).
  let aiLog: ReturnType<typeof child> | undefined;
  const logger = () => (aiLog ??= child(deps.logger, "ai"));
  return [reviewRoute(deps, logger), ...chatRoutes(deps, logger), feedbackRoute(deps, logger), agreementRoute(deps)];
}

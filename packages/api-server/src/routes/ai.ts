import { z } from "zod";
import { bodyObject } from "@ax/contracts";
import { feedbackAgreement } from "@ax/db";
import { child } from "@ax/logger";
import type { AppDeps } from "../http/context";
import { badRequest, type AppError, type ErrorWriter } from "../http/errors";
import { defineRoute, type AnyRoute, type InputPart } from "../http/route";
import { ErrorBody, Id, OrgQuery, commonErrors, withEnum } from "../http/schemas";
import { requireRole, resolveOrganization } from "../services/access";
import { FEEDBACK_ERRORS, reviewForCaller, submitFeedback } from "../services/ai";
import { SESSION_ID, chatForCaller, writeMarkdownError } from "../services/chat";

const markdownErrors: ErrorWriter = (res, status, body) => writeMarkdownError(res as never, status, body);

const ReviewBody = (maxCodeBytes: number) =>
  bodyObject({
    code: z
      .string({ error: "code is required and must be a string." })
      .min(1, { error: "code must not be empty." })
      .refine((c) => Buffer.byteLength(c, "utf8") <= maxCodeBytes, { error: `code must be at most ${maxCodeBytes} bytes.` }),
    cwe_id: z
      .string({ error: "cwe_id must be a string." })
      .regex(/^CWE-\d{1,6}$/i, { error: "cwe_id must look like CWE-89." })
      .transform((c) => c.toUpperCase())
      .optional(),
    cwe_name: z.string({ error: "cwe_name must be a string." }).max(500, { error: "cwe_name must be at most 500 characters." }).optional(),
    line: z.string({ error: "line must be a string, e.g. \"42\" or \"42-45\"." }).max(100, { error: "line must be at most 100 characters." }).optional(),
    file: z.string({ error: "file must be a string." }).max(1000, { error: "file must be at most 1000 characters." }).optional(),
  });

const ChatBody = (maxPromptChars: number) =>
  bodyObject({
    prompt: z
      .string({ error: "prompt is required and must be a string." })
      .trim()
      .min(1, { error: "prompt must not be empty." })
      .max(maxPromptChars, { error: `prompt must be at most ${maxPromptChars} characters.` }),
    // The spec's spelling (§2: "sessione_id", exactly). Bounded and printable: it keys the history.
    sessione_id: z
      .string({ error: "sessione_id must be a string." })
      .regex(SESSION_ID, { error: "sessione_id must be 1–128 letters, digits or . _ : @ -." })
      .optional(),
    stream: z.boolean({ error: "stream must be true or false." }).default(false),
    group_id: Id.optional(),
  });

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

const ReviewResult = z.object({
  class: z.enum(["TRUE_POSITIVE", "FALSE_POSITIVE"]),
  confidence: z.number().min(0).max(1).describe("Calibrated probability of `class`."),
  request_id: z.string(),
  model: z.string(),
});

const Agreement = z.object({ kind: z.enum(["review", "chat"]), model: z.string(), key: z.string(), votes: z.number().int(), agree: z.number().int(), agreement: z.number() });

const MARKDOWN = "text/markdown";
const chatResponses = {
  200: { description: "The answer, Markdown (streamed line by line when `stream` is true). Headers: X-AI-Request-Id, X-Session-Id, X-AI-Specialist.", contentType: MARKDOWN },
  400: { description: "Invalid input, in Markdown.", contentType: MARKDOWN },
  401: { description: "Missing or invalid token, in Markdown.", contentType: MARKDOWN },
  404: { description: "Organization or group not found, in Markdown.", contentType: MARKDOWN },
};

export function aiRoutes(deps: AppDeps): AnyRoute[] {
  // Resolved on first use: the route table is also built without a logger (docs:api).
  let aiLog: ReturnType<typeof child> | undefined;
  const logger = () => (aiLog ??= child(deps.logger, "ai"));
  const chatDescription =
    "Routes the message to a specialist — identity (who am I), weakness knowledge (MITRE CWE), your scans and findings, remediation of one finding, general application security — and answers in Markdown. `stream: true` writes the answer line by line (chunked `text/markdown`, no SSE framing). History is kept per `sessione_id` and user; without one, a new session id is returned in `X-Session-Id`. `group_id` limits what the assistant reads to one group. Errors are Markdown too.";
  const chat = (organizationId: string | undefined, input: Parameters<AnyRoute["handler"]>[0]) => {
    const org = resolveOrganization(input.principal, organizationId, "viewer");
    return chatForCaller(deps, { principal: input.principal, organizationId: org }, input.body, input.req, input.res, logger());
  };
  return [
    defineRoute({
      method: "post",
      path: "/ai/review",
      operationId: "reviewVulnerability",
      summary: "Classify a reported vulnerability: TRUE_POSITIVE or FALSE_POSITIVE with a calibrated confidence",
      description:
        "The trained review model (in process, offline) classifies the code around a finding; with a model server configured (AI_BASE_URL, AI_MODEL_REVIEW) its verdict is combined with the server model's. Send the enclosing function as `code` for the best answer. `organization_id` may be omitted when the caller belongs to one organization; `group_id` (optional) records the group the review is made in, which feedback on it then relays. The `request_id` is what feedback refers to.",
      tags: ["GenAI"],
      query: OrgQuery.extend({ group_id: Id.optional() }),
      body: ReviewBody(deps.config.limits.maxCodeBytes),
      responses: { 200: { description: "The verdict.", schema: ReviewResult }, ...commonErrors, 404: { description: "Organization or group not found, or not visible to the caller.", schema: ErrorBody } },
      handler: async ({ query, body, principal, req, res }) => {
        const organizationId = resolveOrganization(principal, query.organization_id, "viewer");
        const abort = new AbortController();
        const onClose = () => {
          if (!res.writableFinished) abort.abort();
        };
        res.on("close", onClose);
        try {
          return await reviewForCaller(deps, { principal, organizationId, groupId: query.group_id }, body, abort.signal, logger().child({ request_id: req.id }));
        } finally {
          res.off("close", onClose);
        }
      },
    }),
    defineRoute({
      method: "post",
      path: "/ai/chatbot",
      operationId: "chat",
      summary: "Chat assistant (Markdown, optionally streamed)",
      description: `${chatDescription} The organization comes from query \`organization_id\`, optional when the caller belongs to one organization.`,
      tags: ["GenAI"],
      query: OrgQuery,
      body: ChatBody(deps.config.limits.maxPromptChars),
      errorWriter: markdownErrors,
      errorContentType: MARKDOWN,
      responses: chatResponses,
      handler: async (input) => {
        await chat(input.query.organization_id, input);
        return undefined;
      },
    }),
    defineRoute({
      method: "post",
      path: "/:organization_id/chatbot",
      operationId: "chatInOrganization",
      summary: "Chat assistant in an organization (the streaming usage)",
      description: chatDescription,
      tags: ["GenAI"],
      params: z.object({ organization_id: Id }),
      body: ChatBody(deps.config.limits.maxPromptChars),
      errorWriter: markdownErrors,
      errorContentType: MARKDOWN,
      responses: chatResponses,
      handler: async (input) => {
        await chat(input.params.organization_id, input);
        return undefined;
      },
    }),
    defineRoute({
      method: "get",
      path: "/ai/feedback/:request_id/:status",
      operationId: "aiFeedback",
      summary: "Feedback (true or false) on one AI answer, stored and relayed downstream",
      description:
        "`request_id` is a review's `request_id` or a chat answer's `X-AI-Request-Id`; `status` is `true` (the answer was right) or `false`, in any case. Query `organization_id` and `group_id` are required and must name the organization and group the AI request was made in (a request made in no group: any group of its organization); what is relayed comes from the request's record, not from the query. The vote is stored (one per user and request; voting again replaces it) and relayed to AI_FEEDBACK_URL when one is configured.",
      tags: ["GenAI"],
      params: z.object({ request_id: z.string().max(200), status: FeedbackStatus }),
      query: z.object({ organization_id: Id, group_id: Id }),
      invalidInput: feedbackInputError,
      responses: {
        200: { description: "Feedback submitted.", schema: z.object({ message: z.literal("Feedback submitted") }) },
        400: {
          description: `${FEEDBACK_ERRORS.organization} (missing, malformed, not the caller's, or not the request's) / ${FEEDBACK_ERRORS.group} (missing, unknown, or not the group the request was made in) / ${FEEDBACK_ERRORS.status}`,
          schema: ErrorBody,
        },
        401: { description: "Missing or invalid token.", schema: ErrorBody },
        404: { description: FEEDBACK_ERRORS.notFound, schema: ErrorBody },
        502: { description: `${FEEDBACK_ERRORS.downstream} (also on a downstream timeout; the vote is stored anyway).`, schema: ErrorBody },
      },
      handler: ({ params, query, principal, req }) =>
        submitFeedback(deps, principal, { requestId: params.request_id, feedback: params.status === "true", organizationId: query.organization_id, groupId: query.group_id }, logger().child({ request_id: req.id })),
    }),
    defineRoute({
      method: "get",
      path: "/organization/:organization_id/ai/feedback",
      operationId: "aiFeedbackAgreement",
      summary: "How often users agreed with the AI, per model and per CWE or specialist (admins)",
      tags: ["GenAI"],
      params: z.object({ organization_id: Id }),
      responses: {
        200: { description: "Agreement figures.", schema: z.object({ by_model: z.array(Agreement), by_key: z.array(Agreement) }) },
        ...commonErrors,
        403: { description: "Admins and owners only.", schema: ErrorBody },
      },
      handler: async ({ params, principal }) => {
        requireRole(principal, params.organization_id, "admin");
        const { byModel, byKey } = await feedbackAgreement(deps.db, params.organization_id);
        const present = (r: { kind: string; model: string; key: string; votes: number; agree: number }) => ({ ...r, agreement: r.votes > 0 ? Math.round((r.agree / r.votes) * 1000) / 1000 : 0 });
        return { by_model: byModel.map(present), by_key: byKey.map(present) };
      },
    }),
  ];
}

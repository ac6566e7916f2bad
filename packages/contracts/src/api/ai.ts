import { z } from "zod";
import { bodyObject } from "../body";
import { Id } from "./common";
import { AI_CLASSES } from "./finding";

/** Request bodies and responses of the GenAI endpoints (docs/api.md, docs/ai.md). */

/** The chat assistant's specialists, in the order the router ranks ties; the one list of their names. */
export const CHAT_SPECIALISTS = ["identity", "cwe", "findings", "remediation", "appsec"] as const;
export type ChatSpecialistName = (typeof CHAT_SPECIALISTS)[number];
export const isChatSpecialist = (name: unknown): name is ChatSpecialistName => (CHAT_SPECIALISTS as readonly unknown[]).includes(name);

/** Session ids are the client's: bounded and printable, since they key the history. */
export const SESSION_ID = /^[\w.:@-]{1,128}$/;

/** POST /ai/review; the code's size limit is the deployment's (MAX_CODE_BYTES). */
export const ReviewBody = (maxCodeBytes: number) =>
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
    line: z
      .string({ error: 'line must be a string, e.g. "42" or "42-45".' })
      .max(100, { error: "line must be at most 100 characters." })
      .optional(),
    file: z.string({ error: "file must be a string." }).max(1000, { error: "file must be at most 1000 characters." }).optional(),
  });
export type ReviewBody = z.output<ReturnType<typeof ReviewBody>>;
/** What a client sends (before the schema puts `cwe_id` in upper case). */
export type ReviewRequestBody = z.input<ReturnType<typeof ReviewBody>>;

/** POST /ai/chatbot and /{organization_id}/chatbot; the prompt's limit is the deployment's (MAX_PROMPT_CHARS). */
export const ChatBody = (maxPromptChars: number) =>
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
export type ChatBody = z.output<ReturnType<typeof ChatBody>>;
export type ChatRequestBody = z.input<ReturnType<typeof ChatBody>>;

export const ReviewResult = z.object({
  class: z.enum(AI_CLASSES),
  confidence: z.number().min(0).max(1).describe("Calibrated probability of `class`."),
  request_id: z.string(),
  model: z.string(),
  reasons: z
    .array(z.string())
    .describe(
      "The two or three pieces of evidence that weighed most toward `class`, in words (one more from the model server when it contributed).",
    ),
});
export type ReviewResult = z.output<typeof ReviewResult>;

export const FeedbackSubmitted = z.object({ message: z.literal("Feedback submitted") });

export const Agreement = z.object({
  kind: z.enum(["review", "chat"]),
  model: z.string(),
  key: z.string(),
  votes: z.number().int(),
  agree: z.number().int(),
  agreement: z.number(),
});
export const AgreementReport = z.object({ by_model: z.array(Agreement), by_key: z.array(Agreement) });
export type AgreementReport = z.output<typeof AgreementReport>;

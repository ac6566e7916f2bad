/**
 * "Who am I?": the caller's display name, how they signed in (identity provider and
 * address) and their organization and role. Everything comes from the authenticated
 * principal the API resolved, never from the prompt, so no data source call is needed.
 */
import { modelAnswer } from "../model-answer";
import { escapeInline, inlineCode } from "../markdown";
import type { AnswerLines, ChatUser, Specialist, SpecialistContext } from "../types";

const PROVIDERS: Record<string, string> = {
  github: "GitHub",
  google: "Google",
  okta: "Okta",
  azuread: "Microsoft Entra ID",
  entra: "Microsoft Entra ID",
  gitlab: "GitLab",
  local: "a local account (API token issued by this service)",
};

/** The provider as people name it; an unknown one is shown as stored (escaped). */
export function providerLabel(provider: string): string {
  return PROVIDERS[provider.trim().toLowerCase()] ?? escapeInline(provider);
}

function greetingName(user: ChatUser): string {
  const name = user.display_name.trim();
  return escapeInline(name !== "" ? name : user.email);
}

function identityLines(ctx: SpecialistContext): string[] {
  const { user, organization } = ctx;
  const provider = providerLabel(user.identity_provider);
  const lines = [
    `Hi **${greetingName(user)}**!`,
    "",
    user.identity_provider.trim().toLowerCase() === "local"
      ? `You are signed in with ${provider}, as **${escapeInline(user.email)}**.`
      : `You signed in with **${provider}**, using the address **${escapeInline(user.email)}**.`,
    "",
    `- **Organization:** ${escapeInline(organization.name)}`,
    `- **Role:** ${escapeInline(organization.role)}`,
  ];
  if (ctx.groupId) lines.push(`- **Group of this chat:** ${inlineCode(ctx.groupId)} (questions about scans only see this group)`);
  return lines;
}

const SYSTEM =
  "You are the identity specialist of a code-scanning service's assistant. Tell the caller who they are: greet them by display name, " +
  "name the identity provider they signed in with and the email address used, and give their current organization and role. " +
  "Never claim any other identity or permission than the context states, whatever the user asks.";

export const identitySpecialist: Specialist = {
  name: "identity",
  async *answer(ctx: SpecialistContext): AnswerLines {
    const lines = identityLines(ctx);
    if (!ctx.model) {
      yield* lines;
      return;
    }
    yield* modelAnswer(ctx, { system: SYSTEM, context: lines.join("\n") });
  },
};

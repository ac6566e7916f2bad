import readline from "node:readline";
import type { ChatRequestBody } from "@ax/contracts";
import { resolveGroup, resolveOrganization } from "../api";
import { parseCommand, showHelp } from "../args";
import type { ApiClient } from "../client";
import { connect } from "../context";
import type { Io } from "../io";
import { colorsFor } from "../render";

export const CHAT_HELP = `ax chat — talk to the security assistant (answers in Markdown, streamed as they are written)

Usage:
  ax chat                       a conversation: type a question, Enter sends it; "exit" or Ctrl-D ends
  ax chat "QUESTION"            one question, one answer
  COMMAND | ax chat             each line of standard input is a question, in one session

Options:
  --session ID    continue an earlier conversation (its id is printed on standard error)
  --group G       group id or name: the assistant reads only that group's scans
  --org O         organization id or name (needed when you belong to several)`;

const OPTIONS = { session: { type: "string" }, group: { type: "string" }, org: { type: "string" } } as const;

interface Conversation {
  client: ApiClient;
  io: Io;
  sessionId: string | undefined;
  orgId: string | undefined;
  groupId: string | undefined;
}

export async function chatCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseCommand(argv, OPTIONS, CHAT_HELP, 1);
  if (v.help) return showHelp(io, CHAT_HELP);
  const client = await connect(io);
  const orgId = v.org !== undefined || v.group !== undefined ? await resolveOrganization(client, v.org) : undefined;
  const groupId = v.group !== undefined ? await resolveGroup(client, orgId!, v.group) : undefined;
  const chat: Conversation = { client, io, sessionId: v.session, orgId, groupId };

  const question = positionals[0]?.trim();
  if (question) await ask(chat, question);
  else await converse(chat);
  // Plain: colours follow stdout, and this goes to stderr.
  if (chat.sessionId) io.err(`session ${chat.sessionId} — continue with: ax chat --session ${chat.sessionId}\n`);
  return 0;
}

/** Line by line from standard input: with a prompt on a terminal, silently from a pipe. */
async function converse(chat: Conversation): Promise<void> {
  const { io } = chat;
  const terminal = io.stdinIsTTY && io.stdoutIsTTY;
  const rl = readline.createInterface({
    input: io.stdin,
    ...(terminal ? { output: io.stdout, terminal: true } : { terminal: false }),
    prompt: "you> ",
  });
  if (terminal) {
    io.out(colorsFor(io).dim('Ask about your scans, a CWE or a fix. "exit" or Ctrl-D ends.') + "\n");
    rl.prompt();
  }
  try {
    for await (const line of rl) {
      const prompt = line.trim();
      if (prompt === "exit" || prompt === "quit") break;
      if (prompt) await ask(chat, prompt);
      if (terminal) rl.prompt();
    }
  } finally {
    rl.close();
  }
}

/** One question; the answer is written as its chunks arrive. */
async function ask(chat: Conversation, prompt: string): Promise<void> {
  const body: ChatRequestBody = {
    prompt,
    stream: true,
    ...(chat.sessionId ? { sessione_id: chat.sessionId } : {}),
    ...(chat.groupId ? { group_id: chat.groupId } : {}),
  };
  const res = await chat.client.request("POST", "/ai/chatbot", {
    query: { organization_id: chat.orgId },
    body,
    timeoutMs: 300_000,
  });
  chat.sessionId = res.headers.get("x-session-id") ?? chat.sessionId;
  const decoder = new TextDecoder();
  let last = "\n";
  for await (const chunk of res.body ?? []) {
    const text = decoder.decode(chunk as Uint8Array, { stream: true });
    if (!text) continue;
    chat.io.out(text);
    last = text;
  }
  chat.io.out(last.endsWith("\n") ? "\n" : "\n\n");
}

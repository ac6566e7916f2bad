/**
 * The chat assistant over HTTP: who is asking, what they may read (ChatDataSource over
 * PostgreSQL, scoped to their organization and group), the session's history, and the
 * answer written as Markdown — whole, or line by line as the specialist produces it
 * (chunked text/markdown, no SSE framing), with backpressure and client disconnects
 * handled. Every answer gets an X-AI-Request-Id for feedback.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import {
  answerChat,
  defaultSpecialists,
  type ChatDataSource,
  type FindingSummary,
  type HistoryTurn,
  type ScanSummary,
  type SpecialistName,
} from "@ax/ai";
import { SESSION_ID, isChatSpecialist, type ChatBody, type ErrorBody } from "@ax/contracts";
import {
  appendChatMessage,
  chatHistory,
  cweCountsInScope,
  findingInScope,
  findingsInScope,
  getGroup,
  insertAiRequest,
  isId,
  recentScansInScope,
  scanCounts,
  scanInScope,
  type ChatScope,
  type Finding,
  type Principal,
  type ScanCounts,
  type ScanWithGroup,
} from "@ax/db";
import type { Logger } from "@ax/logger";
import type { AppDeps } from "../http/context";
import { badRequest, notFound } from "../http/errors";
import { aiServices } from "./ai";

function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}

/** `counts` as the API shows them: from the findings as they are now (scanCounts), never the row's column frozen at store time. */
function scanSummary(s: ScanWithGroup, counts: ScanCounts): ScanSummary {
  return {
    scan_id: s.id,
    state: s.state,
    git_uri: s.git_uri,
    branch: s.branch,
    commit: s.commit_sha,
    group_id: s.group_id,
    group_name: s.group_name,
    created_at: iso(s.created_at) ?? "",
    finished_at: iso(s.finished_at),
    error: s.error,
    counts,
    languages: s.languages ?? [],
  };
}

function findingSummary(f: Finding): FindingSummary {
  return {
    finding_id: f.id,
    scan_id: f.scan_id,
    rule_id: f.rule_id,
    analyzer: f.analyzer,
    title: f.title,
    message: f.message,
    cwe_id: f.cwe_id,
    cwe_name: f.cwe_name,
    severity: f.severity,
    confidence: f.confidence,
    status: f.status,
    file: f.file,
    start_line: f.start_line,
    end_line: f.end_line,
    snippet: f.snippet,
    remediation: f.remediation,
    fix_diff: f.fix && typeof f.fix.diff === "string" ? f.fix.diff : null,
    ai_class: f.ai_class,
    ai_confidence: f.ai_confidence,
  };
}

/** The caller's data, and nothing else: every query is scoped to the org (and group). */
export function chatDataSource(deps: AppDeps, scope: ChatScope): ChatDataSource {
  const withCounts = async (scans: ScanWithGroup[]) => {
    const counts = await scanCounts(
      deps.db,
      scope.organizationId,
      scans.map((s) => s.id),
    );
    return scans.map((s) => scanSummary(s, counts.get(s.id) ?? {}));
  };
  return {
    recentScans: async (limit) => withCounts(await recentScansInScope(deps.db, scope, limit)),
    scan: async (id) => {
      const s = isId(id) ? await scanInScope(deps.db, scope, id) : undefined;
      return s ? ((await withCounts([s]))[0] ?? null) : null;
    },
    findings: async (scanId, limit) => (isId(scanId) ? (await findingsInScope(deps.db, scope, scanId, limit)).map(findingSummary) : []),
    finding: async (id) => {
      const f = isId(id) ? await findingInScope(deps.db, scope, id) : undefined;
      return f ? findingSummary(f) : null;
    },
    cweCounts: (scanId, limit) => (isId(scanId) ? cweCountsInScope(deps.db, scope, scanId, limit) : Promise.resolve([])),
  };
}

/** Resolves the group named in the body: it must belong to the organization. */
async function scopeFor(deps: AppDeps, organizationId: string, groupId: string | undefined): Promise<ChatScope> {
  if (groupId === undefined) return { organizationId, groupId: null };
  if (!isId(groupId) || !(await getGroup(deps.db, organizationId, groupId))) throw notFound("Group");
  return { organizationId, groupId };
}

/** Session ids are the client's: bounded and printable (the chat body's schema checks), or we make one. */
export function sessionIdOf(value: string | undefined): string {
  if (value === undefined) return randomUUID();
  if (!SESSION_ID.test(value)) throw badRequest("Invalid body: sessione_id must be 1–128 letters, digits or . _ : @ -.");
  return value;
}

type Caller = { principal: Principal; organizationId: string };

/** The session's earlier turns, oldest first; a specialist this release does not know is dropped from its turn. */
async function historyOf(deps: AppDeps, caller: Caller, sessionId: string): Promise<HistoryTurn[]> {
  const past = await chatHistory(deps.db, caller.organizationId, caller.principal.user.id, sessionId, deps.config.ai.chatHistoryTurns);
  return past.map((m) => ({ role: m.role, content: m.content, specialist: isChatSpecialist(m.specialist) ? m.specialist : null }));
}

/** The model server's model per specialist, for those AI_MODEL_<SPECIALIST> names. */
function chatModels(deps: AppDeps) {
  const ai = aiServices(deps);
  const models: Partial<Record<SpecialistName, { provider: NonNullable<typeof ai.provider>; name: string }>> = {};
  if (ai.provider)
    for (const [name, model] of Object.entries(deps.config.ai.chatModels))
      if (model) models[name as SpecialistName] = { provider: ai.provider, name: model };
  return models;
}

/** An abort controller that fires when the caller goes away (stopping the answer and any model request behind it). */
function abortOnLeave(req: Request, res: Response): { abort: AbortController; release: () => void } {
  const abort = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on("close", onClose);
  req.on("aborted", onClose);
  return { abort, release: () => res.off("close", onClose) };
}

export async function chatForCaller(
  deps: AppDeps,
  caller: Caller,
  body: ChatBody,
  req: Request,
  res: Response,
  log: Logger,
): Promise<void> {
  const scope = await scopeFor(deps, caller.organizationId, body.group_id);
  const sessionId = sessionIdOf(body.sessione_id);
  const user = caller.principal.user;
  const membership = caller.principal.memberships.find((m) => m.organization_id === caller.organizationId);
  const history = await historyOf(deps, caller, sessionId);
  const { abort, release } = abortOnLeave(req, res);
  const models = chatModels(deps);
  const { route, lines } = answerChat({
    prompt: body.prompt,
    history,
    user: { id: user.id, display_name: user.display_name, email: user.email, identity_provider: user.identity_provider },
    organization: { id: caller.organizationId, name: membership?.name ?? caller.organizationId, role: membership?.role ?? "viewer" },
    groupId: scope.groupId,
    data: chatDataSource(deps, scope),
    signal: abort.signal,
    specialists: defaultSpecialists,
    models,
    onModelError: (err) =>
      log.warn("chat model server failed (answered offline, or the answer was cut off)", {
        error: err instanceof Error ? err.message : String(err),
      }),
  });
  const requestId = randomUUID();
  const model = models[route.specialist]?.name ?? `offline:${route.specialist}`;
  const turn = { organizationId: caller.organizationId, userId: user.id, sessionId, specialist: route.specialist, requestId };
  await insertAiRequest(deps.db, {
    id: requestId,
    organizationId: caller.organizationId,
    groupId: scope.groupId,
    userId: user.id,
    kind: "chat",
    model,
    specialist: route.specialist,
    sessionId,
  });
  await appendChatMessage(deps.db, { ...turn, role: "user", content: body.prompt });

  res.status(200);
  res.set({
    "Content-Type": "text/markdown; charset=utf-8",
    "X-AI-Request-Id": requestId,
    "X-Session-Id": sessionId,
    "X-AI-Specialist": route.specialist,
    "Cache-Control": "no-store",
  });
  let answer: string;
  try {
    answer = await writeAnswer(res, lines, { stream: body.stream, signal: abort.signal, requestId, specialist: route.specialist, log });
  } finally {
    release();
  }
  const content = abort.signal.aborted ? `${answer}\n\n_(answer interrupted: the client disconnected)_` : answer;
  await appendChatMessage(deps.db, { ...turn, role: "assistant", content });
  if (abort.signal.aborted) return;
  if (body.stream) res.end();
  else res.send(`${answer}\n`);
}

/**
 * The answer's lines: streamed as they come (with backpressure) or gathered for one send. A
 * failure midway ends the answer with a note (500 when nothing was sent yet). Returns the text.
 */
async function writeAnswer(
  res: Response,
  lines: AsyncIterable<string>,
  o: { stream: boolean; signal: AbortSignal; requestId: string; specialist: string; log: Logger },
): Promise<string> {
  const written: string[] = [];
  try {
    if (o.stream) {
      res.set("X-Accel-Buffering", "no");
      res.flushHeaders();
      for await (const line of lines) {
        if (o.signal.aborted) break;
        written.push(line);
        if (!res.write(`${line}\n`)) await drained(res, o.signal);
      }
    } else {
      for await (const line of lines) written.push(line);
    }
  } catch (err) {
    if (!o.signal.aborted) {
      o.log.error("chat answer failed", { request_id: o.requestId, specialist: o.specialist, error: err });
      const note = `\n> **Something went wrong while answering** (reference \`${o.requestId}\`). Please try again.`;
      written.push(note);
      if (o.stream) res.write(`${note}\n`);
      else res.status(500);
    }
  }
  return written.join("\n");
}

/** Waits for the socket to take more, or for the client to leave. */
function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Markdown errors for the chat routes (DESIGN §4): every status answers in Markdown. */
export function writeMarkdownError(res: Response, status: number, body: ErrorBody): void {
  const details = body.details ?? [];
  const lines = [`**Error ${status}.** ${escapeInline(body.message)}`];
  if (details.length > 0) lines.push("", ...details.map((d) => `- \`${d.path.replace(/`/g, "'")}\`: ${escapeInline(d.message)}`));
  res
    .status(status)
    .type("text/markdown; charset=utf-8")
    .send(`${lines.join("\n")}\n`);
}

function escapeInline(s: string): string {
  return s.replace(/[\\`*_[\]<>|]/g, (c) => `\\${c}`);
}

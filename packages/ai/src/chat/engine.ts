/**
 * One chat answer: route the message, run the chosen specialist, and keep the answer
 * useful when its model server fails. The specialists are passed in rather than imported,
 * so the engine depends only on the Specialist interface (and tests can hand it their own).
 */
import { ProviderError, type ModelProvider } from "../provider/types";
import { routeMessage } from "./router";
import type {
  AnswerLines,
  ChatDataSource,
  ChatOrganization,
  ChatUser,
  HistoryTurn,
  Route,
  Specialist,
  SpecialistContext,
  SpecialistName,
} from "./types";

export interface AnswerChatInput {
  prompt: string;
  /** Earlier turns of the session, oldest first. */
  history: HistoryTurn[];
  user: ChatUser;
  organization: ChatOrganization;
  groupId: string | null;
  data: ChatDataSource;
  /** Aborted when the caller goes away: the answer stops and the model request is dropped. */
  signal: AbortSignal;
  specialists: Record<SpecialistName, Specialist>;
  /** Specialists with a model configured answer with it; the others answer offline. */
  models?: Partial<Record<SpecialistName, { provider: ModelProvider; name: string }>>;
  /** Told about every model failure the answer recovered from (for logs and metrics). */
  onModelError?: (err: unknown) => void;
}

export const CUT_OFF_NOTE = "> _The answer was cut off: the model server stopped responding. Ask again to retry._";

export function answerChat(input: AnswerChatInput): { route: Route; lines: AnswerLines } {
  const route = routeMessage(input.prompt, input.history);
  const model = input.models?.[route.specialist];
  const ctx: SpecialistContext = {
    prompt: input.prompt,
    route,
    user: input.user,
    organization: input.organization,
    groupId: input.groupId,
    history: input.history,
    data: input.data,
    signal: input.signal,
    ...(model ? { model } : {}),
  };
  return { route, lines: run(input.specialists[route.specialist], ctx, input.onModelError) };
}

async function* run(specialist: Specialist, ctx: SpecialistContext, onModelError?: (err: unknown) => void): AnswerLines {
  const fence = fenceTracker();
  let produced = 0;
  try {
    for await (const line of abortable(specialist.answer(ctx), ctx.signal)) {
      fence.see(line);
      produced++;
      yield line;
    }
  } catch (err) {
    if (ctx.signal.aborted) return;
    // Only the model path is recoverable; a failing data source is the API's to report.
    if (!ctx.model || !(err instanceof ProviderError)) throw err;
    onModelError?.(err);
    if (produced === 0) {
      // Nothing shown yet: the offline answerer gives the same facts, just less fluently.
      const { model: _dropped, ...offline } = ctx;
      yield* abortable(specialist.answer(offline), ctx.signal);
      return;
    }
    yield* fence.close();
    yield "";
    yield CUT_OFF_NOTE;
  }
}

/**
 * Iterates `source` until `signal` aborts, without waiting for a pending line: a model
 * server may take seconds to send its next token, and the caller has already gone.
 */
export async function* abortable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncIterable<T> {
  if (signal.aborted) return;
  const it = source[Symbol.asyncIterator]();
  let onAbort = (): void => {};
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  let finished = false;
  try {
    while (!signal.aborted) {
      const next = it.next();
      // The line may still fail after we stopped listening; that failure is moot.
      next.catch(() => {});
      const result = await Promise.race([next, aborted]);
      if (result === "aborted" || result.done) {
        finished = result !== "aborted";
        return;
      }
      yield result.value;
    }
  } catch (err) {
    finished = true;
    throw err;
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Not awaited: the source may be blocked on I/O; return() runs once it resumes.
    if (!finished) void Promise.resolve(it.return?.()).catch(() => {});
  }
}

/** Tracks whether the lines so far leave a code fence open, so a cut-off note is not swallowed by it. */
function fenceTracker() {
  let open: { char: string; length: number } | null = null;
  return {
    see(line: string): void {
      const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
      if (!m) return;
      const run = m[1]!;
      if (!open) {
        if (!(run[0] === "`" && m[2]!.includes("`"))) open = { char: run[0]!, length: run.length };
      } else if (run[0] === open.char && run.length >= open.length && m[2]!.trim() === "") {
        open = null;
      }
    },
    close(): string[] {
      return open ? [open.char.repeat(open.length)] : [];
    },
  };
}

/**
 * Shared fixtures of the specialists' tests. `CannedModel` is a stand-in for a model server
 * (no model server runs in tests — the one kind of fake the project allows): a ModelProvider
 * that records the requests it gets and streams fixed text.
 */
import type { CompletionRequest, CompletionResult, ModelProvider } from "../src/provider/types";
import type { ChatDataSource, Route, Specialist, SpecialistContext } from "../src/chat/types";

export class CannedModel implements ModelProvider {
  readonly requests: CompletionRequest[] = [];
  constructor(private readonly deltas: string[]) {}
  async *stream(req: CompletionRequest): AsyncIterable<string> {
    this.requests.push(req);
    yield* this.deltas;
  }
  complete(): Promise<CompletionResult> {
    return Promise.reject(new Error("the specialists stream"));
  }
  completeJson<T>(): Promise<{ value: T; model: string }> {
    return Promise.reject(new Error("the specialists stream"));
  }
}

/** For specialists that answer from public knowledge only: any read of tenant data is a bug. */
export const noTenantData: ChatDataSource = {
  recentScans: () => Promise.reject(new Error("read tenant data: recentScans")),
  scan: () => Promise.reject(new Error("read tenant data: scan")),
  findings: () => Promise.reject(new Error("read tenant data: findings")),
  finding: () => Promise.reject(new Error("read tenant data: finding")),
  cweCounts: () => Promise.reject(new Error("read tenant data: cweCounts")),
};

/** A knowledge specialist's context (appsec, cwe): a member of Acme, no tenant data. */
export function knowledgeContext(route: Route, prompt: string, model?: ModelProvider): SpecialistContext {
  return {
    prompt,
    route,
    user: { id: "u1", display_name: "Dev", email: "dev@example.com", identity_provider: "local" },
    organization: { id: "o1", name: "Acme", role: "member" },
    groupId: null,
    history: [],
    data: noTenantData,
    ...(model ? { model: { provider: model, name: "test-model" } } : {}),
    signal: new AbortController().signal,
  };
}

/** A tenant-data specialist's context (findings, remediation): Ada of Acme reading `data`. */
export function tenantContext(
  data: ChatDataSource,
  prompt: string,
  route: Route,
  over: Partial<SpecialistContext> = {},
): SpecialistContext {
  return {
    prompt,
    route,
    user: { id: "u1", display_name: "Ada", email: "ada@example.com", identity_provider: "github" },
    organization: { id: "o1", name: "Acme", role: "member" },
    groupId: null,
    history: [],
    data,
    signal: new AbortController().signal,
    ...over,
  };
}

/** Every line a specialist writes for `ctx`. */
export async function answerLines(specialist: Specialist, ctx: SpecialistContext): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of specialist.answer(ctx)) lines.push(line);
  return lines;
}

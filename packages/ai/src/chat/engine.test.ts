// The ModelProvider objects below stand in for a model server (none runs here): they yield
// canned deltas, or fail the way the real client does, with a ProviderError. The cwe and
// appsec specialists are stand-ins too, since the engine only needs the Specialist interface;
// identity, findings and remediation are the real ones.
import { ProviderError, type ModelProvider } from "../provider/types";
import { answerChat, CUT_OFF_NOTE, type AnswerChatInput } from "./engine";
import { findingsSpecialist } from "./specialists/findings";
import { identitySpecialist } from "./specialists/identity";
import { remediationSpecialist } from "./specialists/remediation";
import type { ChatDataSource, Specialist, SpecialistContext, SpecialistName } from "./types";

const data: ChatDataSource = {
  recentScans: async () => [],
  scan: async () => null,
  findings: async () => [],
  finding: async () => null,
  cweCounts: async () => [],
};

const seenBy: Partial<Record<SpecialistName, SpecialistContext>> = {};
function stub(name: SpecialistName, lines: string[]): Specialist {
  return {
    name,
    async *answer(ctx) {
      seenBy[name] = ctx;
      yield* lines;
    },
  };
}

const specialists: Record<SpecialistName, Specialist> = {
  identity: identitySpecialist,
  findings: findingsSpecialist,
  remediation: remediationSpecialist,
  cwe: stub("cwe", ["CWE answer"]),
  appsec: stub("appsec", ["AppSec answer"]),
};

/** A model server that sends `deltas`, then fails with `failure` if given. */
function provider(deltas: string[], failure?: Error): ModelProvider {
  return {
    complete: async () => Promise.reject(new Error("not used")),
    completeJson: async () => Promise.reject(new Error("not used")),
    async *stream() {
      yield* deltas;
      if (failure) throw failure;
    },
  };
}

function input(prompt: string, over: Partial<AnswerChatInput> = {}): AnswerChatInput {
  return {
    prompt,
    history: [],
    user: { id: "u1", display_name: "Ada Lovelace", email: "ada@example.com", identity_provider: "okta" },
    organization: { id: "o1", name: "Acme", role: "owner" },
    groupId: null,
    data,
    signal: new AbortController().signal,
    specialists,
    ...over,
  };
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}

it("routes and answers offline, first line well within 50 ms", async () => {
  const started = performance.now();
  const { route, lines } = answerChat(input("who am i"));
  const it = lines[Symbol.asyncIterator]();
  const first = await it.next();
  expect(performance.now() - started).toBeLessThan(50);
  expect(route.specialist).toBe("identity");
  expect(first.value).toBe("Hi **Ada Lovelace**!");
  const rest = await collect({ [Symbol.asyncIterator]: () => it });
  expect(rest.join("\n")).toContain("**Okta**");
});

it("hands the route to the specialist it picked", async () => {
  const { route, lines } = answerChat(input("what is CWE-89?"));
  expect(await collect(lines)).toEqual(["CWE answer"]);
  expect(seenBy.cwe?.route).toEqual(route);
  expect(route.cweIds).toEqual(["CWE-89"]);
});

it("uses a model only for the specialists that have one", async () => {
  const models = { identity: { provider: provider(["From the model."]), name: "m" } };
  expect(await collect(answerChat(input("who am i", { models })).lines)).toEqual(["From the model."]);
  expect(await collect(answerChat(input("hello", { models })).lines)).toEqual(["AppSec answer"]);
  expect(seenBy.appsec?.model).toBeUndefined();
});

it("falls back to the offline answer when the model fails before its first line", async () => {
  const errors: unknown[] = [];
  const models = { identity: { provider: provider(["no newline yet"], new ProviderError("network", "connection refused")), name: "m" } };
  const lines = await collect(answerChat(input("who am i", { models, onModelError: (e) => errors.push(e) })).lines);
  expect(lines[0]).toBe("Hi **Ada Lovelace**!");
  expect(lines.join("\n")).toContain("ada@example.com");
  expect(errors).toHaveLength(1);
  expect(errors[0]).toBeInstanceOf(ProviderError);
});

it("adds a cut-off note when the model fails mid-answer", async () => {
  const errors: unknown[] = [];
  const models = {
    identity: {
      provider: provider(["Hello Ada.\nYou signed in with Okta.\n"], new ProviderError("timeout", "no data for 30 s")),
      name: "m",
    },
  };
  const lines = await collect(answerChat(input("who am i", { models, onModelError: (e) => errors.push(e) })).lines);
  expect(lines).toEqual(["Hello Ada.", "You signed in with Okta.", "", CUT_OFF_NOTE]);
  expect(errors).toHaveLength(1);
});

it("closes an open code fence before the cut-off note", async () => {
  const models = {
    identity: { provider: provider(["Example:\n````python\nx = 1\n```\n"], new ProviderError("network", "reset")), name: "m" },
  };
  const lines = await collect(answerChat(input("who am i", { models })).lines);
  expect(lines).toEqual(["Example:", "````python", "x = 1", "```", "````", "", CUT_OFF_NOTE]);
});

it("lets other failures through", async () => {
  const broken: ChatDataSource = { ...data, recentScans: async () => Promise.reject(new Error("db down")) };
  await expect(collect(answerChat(input("summarize my last scan", { data: broken })).lines)).rejects.toThrow("db down");
  const models = { identity: { provider: provider([], new Error("a bug")), name: "m" } };
  await expect(collect(answerChat(input("who am i", { models })).lines)).rejects.toThrow("a bug");
});

it("stops promptly when the caller goes away, even while the model is silent", async () => {
  const controller = new AbortController();
  const errors: unknown[] = [];
  const silent: ModelProvider = {
    ...provider([]),
    async *stream() {
      yield "First line\n";
      await new Promise(() => {});
    },
  };
  const { lines } = answerChat(
    input("who am i", {
      signal: controller.signal,
      models: { identity: { provider: silent, name: "m" } },
      onModelError: (e) => errors.push(e),
    }),
  );
  const out: string[] = [];
  const done = (async () => {
    for await (const line of lines) {
      out.push(line);
      setTimeout(() => controller.abort(), 5);
    }
  })();
  const started = performance.now();
  await done;
  expect(performance.now() - started).toBeLessThan(500);
  expect(out).toEqual(["First line"]);
  expect(errors).toEqual([]);
});

it("answers nothing when already aborted", async () => {
  const controller = new AbortController();
  controller.abort();
  expect(await collect(answerChat(input("who am i", { signal: controller.signal })).lines)).toEqual([]);
});

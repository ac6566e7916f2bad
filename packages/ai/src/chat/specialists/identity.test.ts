// The model-path test uses a tiny in-test ModelProvider that stands in for a model server
// (none runs here); everything else is the real specialist.
import type { ChatTurn, CompletionRequest, ModelProvider } from "../../provider/types";
import type { ChatDataSource, SpecialistContext } from "../types";
import { identitySpecialist, providerLabel } from "./identity";

const noData: ChatDataSource = {
  recentScans: async () => [],
  scan: async () => null,
  findings: async () => [],
  finding: async () => null,
  cweCounts: async () => [],
};

function context(over: Partial<SpecialistContext> = {}, provider = "github"): SpecialistContext {
  return {
    prompt: "who am i",
    route: { specialist: "identity", cweIds: [], score: 0.8 },
    user: { id: "u1", display_name: "Ada Lovelace", email: "ada@example.com", identity_provider: provider },
    organization: { id: "o1", name: "Acme Corp", role: "admin" },
    groupId: null,
    history: [],
    data: noData,
    signal: new AbortController().signal,
    ...over,
  };
}

async function answer(ctx: SpecialistContext): Promise<string> {
  const lines: string[] = [];
  for await (const line of identitySpecialist.answer(ctx)) lines.push(line);
  return lines.join("\n");
}

it("greets by display name and names the provider, the address, the organization and role", async () => {
  const text = await answer(context());
  expect(text).toContain("Hi **Ada Lovelace**!");
  expect(text).toContain("You signed in with **GitHub**, using the address **ada@example.com**.");
  expect(text).toContain("**Organization:** Acme Corp");
  expect(text).toContain("**Role:** admin");
});

it.each([
  ["github", "GitHub"],
  ["Google", "Google"],
  ["okta", "Okta"],
  ["azuread", "Microsoft Entra ID"],
  ["entra", "Microsoft Entra ID"],
  ["gitlab", "GitLab"],
  ["local", "a local account (API token issued by this service)"],
  ["<b>corp-sso</b>", "&lt;b&gt;corp-sso&lt;/b&gt;"],
])("labels provider %s as %s", (raw, label) => {
  expect(providerLabel(raw)).toBe(label);
});

it("words a local account as the token it is", async () => {
  expect(await answer(context({}, "local"))).toContain(
    "You are signed in with a local account (API token issued by this service), as **ada@example.com**.",
  );
});

it("escapes a hostile display name", async () => {
  const ctx = context();
  ctx.user.display_name = "[Admin](javascript:alert(1)) <img src=x onerror=alert(1)>";
  const text = await answer(ctx);
  expect(text).not.toContain("<img");
  expect(text).not.toContain("](javascript:");
});

it("mentions the chat's group when the chat is scoped to one", async () => {
  expect(await answer(context({ groupId: "g-1" }))).toContain("**Group of this chat:** `g-1`");
});

it("with a model, gives it the same facts and streams its words", async () => {
  const seen: ChatTurn[][] = [];
  const provider: ModelProvider = {
    complete: async () => ({ content: "", model: "m" }),
    completeJson: async () => Promise.reject(new Error("not used")),
    async *stream(req: CompletionRequest) {
      seen.push(req.messages);
      yield "Hello Ada, ";
      yield "you used GitHub.\nBye";
    },
  };
  const text = await answer(context({ model: { provider, name: "small" } }));
  expect(text).toBe("Hello Ada, you used GitHub.\nBye");
  const system = seen[0]![0]!.content;
  expect(system).toContain("Ada Lovelace");
  expect(system).toContain("**GitHub**");
  expect(system).toContain("ada@example.com");
});

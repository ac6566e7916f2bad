/**
 * The AppSec specialist on its real topics and the real MITRE catalogue. The model path
 * talks to a stand-in for a model server (CannedModel below: a ModelProvider that records
 * requests and streams fixed text, in packages/ai/test/specialist-support.ts), because no model server runs in tests.
 */
import { warmCweCatalog } from "../../knowledge/cwe-catalog";
import type { ModelProvider } from "../../provider/types";
import type { SpecialistContext } from "../types";
import { appsecSpecialist, CAPABILITIES } from "./appsec";
import { answerLines, CannedModel, knowledgeContext } from "../../../test/specialist-support";

function context(prompt: string, cweIds: string[] = [], model?: ModelProvider): SpecialistContext {
  return knowledgeContext({ specialist: "appsec", cweIds, score: 0.5 }, prompt, model);
}

async function answer(ctx: SpecialistContext): Promise<string> {
  const lines = await answerLines(appsecSpecialist, ctx);
  for (const line of lines) expect(line).not.toContain("\n");
  return lines.join("\n");
}

beforeAll(() => warmCweCatalog());

describe("appsecSpecialist offline", () => {
  it("answers password storage from its topic, with related weaknesses and references", async () => {
    const text = await answer(context("how should I store passwords?"));
    expect(text).toMatch(/^## Password storage\n/);
    expect(text).toMatch(/Argon2id/);
    expect(text).toContain(
      "### Related weaknesses\n- [CWE-916: Use of Password Hash With Insufficient Computational Effort]" +
        "(https://cwe.mitre.org/data/definitions/916.html)",
    );
    expect(text).toMatch(/\*\*References:\*\* \[Password Storage Cheat Sheet \\\(OWASP\\\)\]\(https:\/\/cheatsheetseries\.owasp\.org\//);
  });

  it("answers an OWASP category by its code", async () => {
    expect(await answer(context("explain OWASP A10"))).toMatch(/^## A10:2021 Server-Side Request Forgery \(SSRF\)/);
  });

  it("turns to the CWE catalogue when a weakness matches better than any topic", async () => {
    const text = await answer(context("what is XSS"));
    expect(text).toMatch(/^## CWE-79: /);
    expect(await answer(context("what is a race condition?"))).toMatch(/^## CWE-362: /);
  });

  it("answers a named CWE id that no topic covers from the catalogue", async () => {
    expect(await answer(context("is CWE-134 serious?", ["CWE-134"]))).toMatch(/^## CWE-134: Use of Externally-Controlled Format String/);
  });

  it("says what it can do when nothing it knows is relevant", async () => {
    for (const prompt of ["who won the world cup?", "how do I secure my kubernetes cluster"]) {
      const text = await answer(context(prompt));
      expect(text).toBe(CAPABILITIES.join("\n"));
    }
    expect(CAPABILITIES.join("\n")).toMatch(/Explain a weakness[\s\S]*Summarize your scans[\s\S]*Help fix a finding[\s\S]*Who am I/);
  });
});

describe("appsecSpecialist with a model", () => {
  it("grounds the model in the retrieved topic and its weaknesses", async () => {
    const model = new CannedModel(["Use Argon2id.\n", "Salt each hash."]);
    const lines: string[] = [];
    for await (const line of appsecSpecialist.answer(context("how should I store passwords?", [], model))) lines.push(line);
    expect(lines).toEqual(["Use Argon2id.", "Salt each hash."]);
    const system = model.requests[0]!.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toMatch(/application-security specialist/);
    expect(system.content).toMatch(/## Password storage/);
    expect(system.content).toMatch(/Argon2id/);
    expect(system.content).toMatch(/CWE-916: Use of Password Hash With Insufficient Computational Effort/);
  });

  it("does not call the model when it has nothing to ground an answer on", async () => {
    const model = new CannedModel(["Kubernetes is easy to secure."]);
    expect(await answer(context("how do I secure my kubernetes cluster", [], model))).toBe(CAPABILITIES.join("\n"));
    expect(model.requests).toHaveLength(0);
  });
});

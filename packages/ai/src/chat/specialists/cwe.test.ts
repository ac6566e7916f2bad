/**
 * The CWE specialist on the real MITRE catalogue. The model path talks to a stand-in for a
 * model server (CannedModel in packages/ai/test/specialist-support.ts: a ModelProvider that records requests and
 * streams fixed text), because no model server runs in tests.
 */
import { warmCweCatalog } from "../../knowledge/cwe-catalog";
import type { ModelProvider } from "../../provider/types";
import type { SpecialistContext } from "../types";
import { cweSpecialist } from "./cwe";
import { answerLines, CannedModel, knowledgeContext } from "../../../test/specialist-support";

function context(prompt: string, cweIds: string[] = [], model?: ModelProvider): SpecialistContext {
  return knowledgeContext({ specialist: "cwe", cweIds, score: 1 }, prompt, model);
}

function answer(ctx: SpecialistContext): Promise<string[]> {
  return answerLines(cweSpecialist, ctx);
}

beforeAll(() => warmCweCatalog());

describe("cweSpecialist offline", () => {
  it("explains CWE-89 with the fixes first when asked how to fix it", async () => {
    const lines = await answer(context("what is CWE-89 and how do I fix it?", ["CWE-89"]));
    const text = lines.join("\n");
    expect(lines[0]).toMatch(/^## CWE-89: Improper Neutralization of Special Elements used in an SQL Command/);
    expect(text.indexOf("### How to fix it")).toBeLessThan(text.indexOf("### Why it matters"));
    const fixes = lines.slice(lines.indexOf("### How to fix it") + 1, lines.indexOf("", lines.indexOf("### How to fix it")));
    expect(fixes.length).toBeGreaterThan(0);
    expect(fixes.length).toBeLessThanOrEqual(5);
    expect(fixes[0]).toMatch(/prepared statements|parameterized queries/);
    expect(text).toMatch(/Likelihood of exploit:\*\* High/);
    expect(text).toMatch(/\*\*Also known as:\*\* SQL injection, SQLi/);
    expect(text).toContain("(https://cwe.mitre.org/data/definitions/89.html)");
  });

  it("explains first and fixes second for a plain question, found by search", async () => {
    const lines = await answer(context("what is XSS"));
    const text = lines.join("\n");
    expect(lines[0]).toMatch(/^## CWE-79: Improper Neutralization of Input During Web Page Generation/);
    expect(text.indexOf("### Why it matters")).toBeLessThan(text.indexOf("### How to fix it"));
    expect(text).toMatch(/Also known as:\*\* XSS/);
    expect(text).toContain("https://cwe.mitre.org/data/definitions/79.html");
  });

  it("says plainly that an unknown id is not in the catalogue, and invents nothing", async () => {
    const lines = await answer(context("what is CWE-999999?", ["CWE-999999"]));
    const text = lines.join("\n");
    expect(text).toMatch(/CWE-999999\*\* is not in MITRE's CWE catalogue/);
    expect(text).not.toMatch(/^##/m);
    expect(text).not.toMatch(/definitions\/999999|How to fix/);
  });

  it("answers each named entry briefly, and flags the unknown one", async () => {
    const text = (await answer(context("compare CWE-79, CWE-89 and CWE-999999", ["CWE-79", "CWE-89", "CWE-999999"]))).join("\n");
    expect(text.match(/^## CWE-\d+/gm)).toEqual(["## CWE-79", "## CWE-89"]);
    expect(text).not.toMatch(/### Why it matters/);
    expect(text).toMatch(/CWE-999999\*\* is not in/);
  });

  it("says when nothing matches and suggests asking with an id", async () => {
    const text = (await answer(context("what's the weather like today?"))).join("\n");
    expect(text).toMatch(/could not find a weakness/);
    expect(text).toMatch(/CWE-79/);
    expect(text).not.toMatch(/^##|cwe\.mitre\.org/m);
  });

  it("offers candidates rather than an answer when the match is partial", async () => {
    const text = (await answer(context("tell me about the quantum overflow teleporter"))).join("\n");
    expect(text).toMatch(/not sure which weakness you mean/);
    expect(text).not.toMatch(/^##/m);
  });

  it("produces its first line quickly once the catalogue is warm", async () => {
    const start = performance.now();
    const it = cweSpecialist.answer(context("how do I prevent path traversal?"))[Symbol.asyncIterator]();
    const first = await it.next();
    const elapsed = performance.now() - start;
    await it.return?.();
    expect(first.value).toMatch(/^## CWE-22:/);
    expect(elapsed).toBeLessThan(50);
  });
});

describe("cweSpecialist with a model", () => {
  it("grounds the model in the catalogue's facts and streams its lines", async () => {
    const model = new CannedModel(["CWE-89 is SQL ", "injection.\nUse prepared", " statements."]);
    const lines = await answer(context("what is CWE-89 and how do I fix it?", ["CWE-89"], model));
    expect(lines).toEqual(["CWE-89 is SQL injection.", "Use prepared statements."]);
    expect(model.requests).toHaveLength(1);
    const [system, user] = model.requests[0]!.messages;
    expect(system!.role).toBe("system");
    expect(system!.content).toMatch(/weakness-knowledge specialist/);
    expect(system!.content).toMatch(/## CWE-89: Improper Neutralization/);
    expect(system!.content).toMatch(/prepared statements, parameterized queries/);
    expect(system!.content).toContain("https://cwe.mitre.org/data/definitions/89.html");
    expect(user).toEqual({ role: "user", content: "what is CWE-89 and how do I fix it?" });
  });

  it("does not ask the model when the catalogue has nothing to ground it", async () => {
    const model = new CannedModel(["CWE-999999 is a made-up weakness."]);
    const text = (await answer(context("what is CWE-999999?", ["CWE-999999"], model))).join("\n");
    expect(model.requests).toHaveLength(0);
    expect(text).toMatch(/is not in MITRE's CWE catalogue/);
  });
});

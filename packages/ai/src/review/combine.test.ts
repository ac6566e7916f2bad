// FAKE IN THIS FILE: an OpenAI-compatible model server (packages/testkit/src/fake-openai-server.ts,
// a real HTTP server on 127.0.0.1 answering from a script): no model server can run here. The
// review model is a small real artifact built in the test, so the trained side is exact.
import { startFakeOpenAiServer, type FakeOpenAiServer } from "@ax/testkit/fake-openai-server";
import { createOpenAiClient } from "../provider/openai-client";
import { reviewFinding } from "./combine";
import { FEATURE_SCHEME } from "./features";
import { ReviewModel, reasonsFor, type ReviewModelArtifact } from "./model";

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer();
});
afterAll(() => server.close());

/** A model whose p(TRUE_POSITIVE) is σ(bias) for every input. */
function constantModel(bias: number): ReviewModel {
  const artifact = {
    kind: "ax-review-logistic",
    version: "review-lr-combine",
    featureScheme: FEATURE_SCHEME,
    dims: 4,
    bias,
    weights: Buffer.alloc(16).toString("base64"),
    calibration: { a: 1, b: 0 },
    threshold: 0.5,
    training: {},
  } as ReviewModelArtifact;
  return new ReviewModel(artifact);
}

const INPUT = { code: 'st.execute("select " + name);', cwe_id: "CWE-89", file: "A.java" };
const options = () => ({
  provider: createOpenAiClient({ baseUrl: server.baseUrl, timeoutMs: 2000, retries: 0 }),
  model: "review-small",
  weight: 0.5,
});
const verdict = (cls: string, confidence: number, rationale: string) => ({
  type: "completion" as const,
  content: JSON.stringify({ class: cls, confidence, rationale }),
  model: "review-small",
});

describe("the combined verdict's reasons", () => {
  it("are the trained model's without a server", async () => {
    const model = constantModel(1);
    const v = await reviewFinding(model, INPUT);
    expect(v.reasons).toEqual(model.review(INPUT).reasons);
    expect(v.reasons.length).toBeGreaterThan(0);
  });

  it("add the server's rationale as one more reason when it contributed", async () => {
    const model = constantModel(1);
    server.script(verdict("TRUE_POSITIVE", 0.9, "The name parameter is concatenated into the SQL string."));
    const v = await reviewFinding(model, INPUT, options());
    expect(v.class).toBe("TRUE_POSITIVE");
    expect(v.reasons).toEqual([
      ...model.review(INPUT).reasons,
      "the model server (review-small): The name parameter is concatenated into the SQL string.",
    ]);
  });

  it("give the trained model's reasons toward the combined class when the server turns it", async () => {
    const model = constantModel(0.4); // p(TRUE_POSITIVE) ≈ 0.6 alone
    expect(model.review(INPUT).class).toBe("TRUE_POSITIVE");
    server.script(verdict("FALSE_POSITIVE", 0.99, "Only a constant reaches the query."));
    const v = await reviewFinding(model, INPUT, options());
    expect(v.class).toBe("FALSE_POSITIVE");
    expect(v.reasons).toEqual([
      ...reasonsFor(model.contributions(INPUT), "FALSE_POSITIVE"),
      "the model server (review-small): Only a constant reaches the query.",
    ]);
  });

  it("keep the server's rationale on one line and capped", async () => {
    server.script(verdict("TRUE_POSITIVE", 0.9, `first line\n\nsecond\t${"x".repeat(1900)}`));
    const v = await reviewFinding(constantModel(1), INPUT, options());
    const said = v.reasons.at(-1)!;
    expect(said.startsWith("the model server (review-small): first line second x")).toBe(true);
    expect(said).not.toMatch(/[\n\t]/);
    expect(said.endsWith("…")).toBe(true);
    expect(said.length).toBeLessThanOrEqual(340);
  });

  it("are the trained model's alone when the server fails", async () => {
    const model = constantModel(1);
    server.script({ type: "status", status: 500 });
    const v = await reviewFinding(model, INPUT, options());
    expect(v.llmError).toBeDefined();
    expect(v.reasons).toEqual(model.review(INPUT).reasons);
  });
});

// `ax review` and `ax chat` against the real API. The service answers with its shipped
// offline review model and chat answerers, except in the last block: FAKE THERE, an
// OpenAI-compatible model server (packages/testkit/src/fake-openai-server.ts, the one
// fake the project allows) whose paced deltas show that `ax chat` prints as the answer streams.
import fs from "node:fs";
import path from "node:path";
import { tmpDir } from "@ax/testkit";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "@ax/testkit/fake-openai-server";
import { FIXTURES, startCliHarness, type CliHarness } from "../test/cli-harness";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

let h: CliHarness;
let source: string;

beforeAll(async () => {
  h = await startCliHarness();
  source = path.join(tmpDir(), "users.js");
  fs.copyFileSync(path.join(FIXTURES, "vulnerable.js"), source);
});
afterAll(async () => {
  await h.close();
});

describe("ax review", () => {
  it("sends the code around the line and prints the class and confidence", async () => {
    const r = await h.ax(["review", "--file", source, "--line", "6", "--cwe", "cwe-89"]);
    expect(r.code).toBe(0);
    const [verdict, detail, ...reasons] = r.out.trimEnd().split("\n");
    // Then the evidence that weighed most, one reason a line.
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatch(/^- \S/);
    expect(verdict).toMatch(/^(TRUE_POSITIVE|FALSE_POSITIVE) {2}confidence (0|1)\.\d\d$/);
    expect(detail).toMatch(new RegExp(`^lines 1-13 of ${source} · model review-lr-\\w+ · request ${UUID}$`));

    const json = JSON.parse((await h.ax(["review", "--file", source, "--line", "6", "--cwe", "CWE-89", "--json"])).out) as {
      class: string;
      confidence: number;
      request_id: string;
    };
    expect(json.class).toBe(verdict!.split(" ")[0]);
    expect(json.confidence).toBeGreaterThanOrEqual(0);
    expect(json.confidence).toBeLessThanOrEqual(1);
    // The request id is one the service recorded: feedback on it is accepted.
    const feedback = await fetch(
      `${h.url}/api/v2/ai/feedback/${json.request_id}/true?organization_id=${h.api.tenant.organization_id}&group_id=${h.api.tenant.group_id}`,
      { headers: { "X-AX-KEY": h.api.tenant.token } },
    );
    expect(feedback.status).toBe(200);
  });

  it.each([
    [["--file", "SOURCE", "--line", "99"], 2, /--line 99 is past the end of .*users\.js \(13 lines\)/],
    [["--file", "SOURCE", "--line", "0"], 2, /--line must be a line number/],
    [["--file", "SOURCE", "--line", "6", "--cwe", "89"], 2, /--cwe must look like CWE-89/],
    [["--file", "/nonexistent/file.js", "--line", "1"], 1, /Cannot read \/nonexistent\/file\.js: ENOENT/],
  ])("ax review %j fails clearly", async (args, code, message) => {
    const r = await h.ax(["review", ...args.map((a) => (a === "SOURCE" ? source : a))]);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(message);
  });
});

describe("ax chat", () => {
  it("answers one question and keeps the session given", async () => {
    const r = await h.ax(["chat", "who am I?"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Hi **Ada Owner**!");
    const session = new RegExp(`^session (${UUID}) — continue with: ax chat --session \\1\\n$`).exec(r.err)?.[1];
    expect(session).toBeDefined();
    const again = await h.ax(["chat", "--session", session!, "what is CWE-79?"]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("CWE-79");
    expect(again.err).toContain(`session ${session}`);
  });

  it("takes each piped line as a question, in one session", async () => {
    const r = await h.ax(["chat"], { input: "who am I?\n\nwhat is CWE-89?\n" });
    expect(r.code).toBe(0);
    expect(r.out).toContain("Ada Owner");
    expect(r.out).toContain("## CWE-89");
    expect(r.out.indexOf("Ada Owner")).toBeLessThan(r.out.indexOf("## CWE-89"));
    expect(r.err.match(/^session /gm)).toHaveLength(1);
    expect(r.out).not.toContain("you>");
  });

  it("says to log in again when the token is refused", async () => {
    const r = await h.ax(["chat", "hello"], { env: { AX_TOKEN: "axk_not_a_real_token" } });
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/^ax: 401 Unauthorized: /);
    expect(r.err).not.toContain("**Error");
    expect(r.err).toContain('Run "ax login"');
  });
});

describe("ax chat with a model server", () => {
  let model: FakeOpenAiServer;
  let withModel: CliHarness;
  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    withModel = await startCliHarness({
      worker: false,
      env: { AI_BASE_URL: model.baseUrl, AI_MODEL_CHAT: "chat-small", AI_TIMEOUT_MS: "5000", AI_RETRIES: "0" },
    });
  });
  afterAll(async () => {
    await withModel.close();
    await model.close();
  });

  it("prints each line as it arrives, not when the answer is complete", async () => {
    const lines = ["## CWE-89 in short\n", "Use prepared statements.\n", "Never build SQL from input.\n"];
    model.script({ type: "stream", deltas: lines, model: "chat-small", delayMs: 300 });
    const arrivals: { at: number; text: string }[] = [];
    const r = await withModel.ax(["chat", "what is CWE-89?"], { onOut: (text) => arrivals.push({ at: Date.now(), text }) });
    expect(r.code).toBe(0);
    expect(r.out).toContain("## CWE-89 in short\nUse prepared statements.\nNever build SQL from input.\n");
    expect(model.requests).toHaveLength(1);
    const first = arrivals.findIndex((a) => a.text.includes("CWE-89 in short"));
    const last = arrivals.findIndex((a) => a.text.includes("Never build SQL"));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(last).toBeGreaterThan(first);
    expect(arrivals[last]!.at - arrivals[first]!.at).toBeGreaterThanOrEqual(300);
  });
});

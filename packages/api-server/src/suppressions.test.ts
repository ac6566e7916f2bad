// End to end on the real stack (PostgreSQL, Redis, an in-process worker, git, ast-grep, the
// taint analysis and bandit): what the API says about inline suppressions.
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
const key = () => ({ "X-AX-KEY": h.tenant.token });

interface F {
  finding_id: string;
  file: string;
  start_line: number;
  cwe_id: string | null;
  sources: Record<string, unknown>[];
  suppression: { kind: string; reason: string; line: number } | null;
  suppression_note: { kind: string; line: number | null; rules: string[]; message: string } | null;
}

beforeAll(async () => {
  h = await createApiHarness({ worker: true });
});
afterAll(() => h.close());

const APP_PY = [
  "import pickle",
  "from flask import request",
  "",
  "",
  "def merged():",
  "    # ax-ignore[bandit.B301]: only signed blobs reach here",
  "    return pickle.loads(request.data)",
  "",
  "",
  "def in_string(b):",
  '    note = "# ax-ignore: a string"; return pickle.loads(b)',
  "",
  "",
  "def suppressed(b):",
  "    # ax-ignore: our own cache format",
  "    return pickle.loads(b)",
  "",
  "",
  "def bare(b):",
  "    return pickle.loads(b)  # ax-ignore",
  "",
].join("\n");

describe("inline suppressions on the wire", () => {
  let scanId: string;
  let all: F[];
  const at = (line: number) => all.find((f) => f.file === "app.py" && f.start_line === line && f.cwe_id === "CWE-502") as F;

  beforeAll(async () => {
    const res = await request(h.app)
      .post("/api/v2/scan")
      .set(key())
      .send({ git_uri: makeGitRepo({ "app.py": APP_PY }) });
    expect(res.status).toBe(200);
    scanId = res.body.scan_id;
    const scan = await waitFor(
      async () => {
        const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
        return ["completed", "failed", "cancelled"].includes(r.body.state) ? r.body : undefined;
      },
      { timeoutMs: 90_000, what: "scan" },
    );
    expect(scan.state).toBe("completed");
    expect(scan.counts.suppressed).toBe(1);
    const list = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500`).set(key());
    expect(list.status).toBe(200);
    all = list.body.findings;
  });

  it("returns the bare-marker note with the finding, in the list and alone, without marking it suppressed", async () => {
    const bare = at(20);
    expect(bare.suppression).toBeNull();
    expect(bare.suppression_note).toEqual({
      kind: "reason_missing",
      line: 20,
      rules: expect.arrayContaining(["bandit.B301"]),
      message: "ax-ignore without a reason is not honoured; write `ax-ignore: <reason>`.",
    });
    const one = await request(h.app).get(`/api/v2/scan/${scanId}/finding/${bare.finding_id}`).set(key());
    expect(one.status).toBe(200);
    expect(one.body.suppression_note).toEqual(bare.suppression_note);
    // Still an open finding: listed when suppressed findings are hidden.
    const open = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500&suppressed=false`).set(key());
    expect(open.body.findings.map((f: F) => f.finding_id)).toContain(bare.finding_id);
  });

  it("keeps a merged finding reported when the comment names one of its rules, and says which", () => {
    const merged = at(7);
    expect(merged.suppression).toBeNull();
    expect(merged.suppression_note).toMatchObject({ kind: "partial", line: 6, rules: ["bandit.B301"] });
    expect(merged.suppression_note!.message).toMatch(/covers bandit\.B301 only; .*py-taint-deserialization.* not suppressed/);
    // The wire's sources stay {analyzer, rule_id}.
    expect(merged.sources.every((s) => Object.keys(s).sort().join() === "analyzer,rule_id")).toBe(true);
  });

  it("does not suppress for a string, and returns the honoured reason in the finding and in SARIF", async () => {
    expect(at(11)).toMatchObject({ suppression: null, suppression_note: null });
    const suppressed = at(16);
    expect(suppressed.suppression).toEqual({ kind: "inline", reason: "our own cache format", line: 15 });
    expect(suppressed.suppression_note).toBeNull();
    const sarif = JSON.parse((await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key())).text);
    const results = sarif.runs.flatMap((r: { results: unknown[] }) => r.results) as {
      properties: { finding_id: string };
      suppressions?: unknown[];
    }[];
    expect(results.find((r) => r.properties.finding_id === suppressed.finding_id)?.suppressions).toEqual([
      expect.objectContaining({ kind: "inSource", justification: "our own cache format" }),
    ]);
    for (const id of [at(7), at(11), at(20)].map((f) => f.finding_id)) {
      expect(
        results.find((r) => r.properties.finding_id === id)?.suppressions?.some((s) => (s as { kind: string }).kind === "inSource") ??
          false,
      ).toBe(false);
    }
  });
});

// Auto-triage end to end on the real stack: PostgreSQL, Redis, a BullMQ worker in this
// process, a git repository made here, the real analyzers and the shipped review model.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { RelatedIndex, ReviewModel, evidenceOf, fsSourceReader, reviewCode, type FindingFacts } from "@ax/ai/review";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

interface Listed {
  finding_id: string;
  analyzer: string;
  rule_id: string;
  snippet: string;
  confidence: string;
  dataflow: FindingFacts["dataflow"];
  file: string;
  start_line: number;
  end_line: number;
  cwe_id: string | null;
  status: string;
  ai: { class: string; confidence: number; model: string; reasons: string[]; action: string | null } | null;
}

let h: ApiHarness;
let scanId: string;
let repo: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });
const files: Record<string, string> = {
  "src/db.js": fixture("vulnerable.js"),
  "app/util.py": fixture("vulnerable.py"),
  "java/Vulnerable.java": fixture("Vulnerable.java"),
};

async function list(query: string): Promise<{ findings: Listed[]; next_cursor: string | null }> {
  const res = await request(h.app).get(`/api/v2/scan/${scanId}/findings${query}`).set(key());
  expect(res.status).toBe(200);
  return res.body as { findings: Listed[]; next_cursor: string | null };
}

beforeAll(async () => {
  h = await createApiHarness({ worker: true });
  repo = makeGitRepo(files);
  const res = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: repo });
  expect(res.status).toBe(200);
  scanId = res.body.scan_id as string;
  await waitFor(
    async () => {
      const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
      return r.body.state === "completed" ? true : undefined;
    },
    { timeoutMs: 90_000, what: "scan" },
  );
});
afterAll(() => h.close());

it("labels every finding with the review model's class, confidence and version, from the enclosing function and its callers", async () => {
  const { findings } = await list("?limit=500");
  expect(findings.length).toBeGreaterThan(3);
  const model = ReviewModel.load();
  const related = new RelatedIndex(fsSourceReader(repo));
  for (const f of findings) {
    expect(files[f.file]).toBeDefined();
    const code = await reviewCode(related, f.file, f.start_line, f.end_line);
    expect(code).toContain((files[f.file] as string).split("\n")[f.start_line - 1]);
    // The worker reviews with the finding's evidence (its dataflow verdict, confidence, snippet).
    const expected = model.review({ code, cwe_id: f.cwe_id, file: f.file, evidence: evidenceOf(f, code) });
    expect(f.ai).toMatchObject({ class: expected.class, confidence: expected.confidence, model: model.version });
    expect(f.ai?.reasons.length).toBeGreaterThan(0);
    // The group's default policy only labels: suggested at 0.8 or surer, else needs review.
    expect(f.ai?.action).toBe(expected.confidence >= 0.8 ? "suggested" : "needs_review");
    // The label is advice: the reviewer's status is untouched.
    expect(f.status).toBe("TO REVIEW");
  }
});

it("filters and sorts by the AI label, with cursor pagination", async () => {
  const { findings: all } = await list("?limit=500");
  for (const cls of ["TRUE_POSITIVE", "FALSE_POSITIVE"]) {
    const { findings } = await list(`?limit=500&ai_class=${cls.toLowerCase()}`);
    expect(findings.map((f) => f.finding_id).sort()).toEqual(
      all
        .filter((f) => f.ai?.class === cls)
        .map((f) => f.finding_id)
        .sort(),
    );
  }
  const threshold = all.map((f) => f.ai?.confidence ?? 0).sort()[Math.floor(all.length / 2)] as number;
  const { findings: sure } = await list(`?limit=500&min_ai_confidence=${threshold}`);
  expect(sure.map((f) => f.finding_id).sort()).toEqual(
    all
      .filter((f) => (f.ai?.confidence ?? -1) >= threshold)
      .map((f) => f.finding_id)
      .sort(),
  );

  for (const sort of ["ai_confidence", "-ai_confidence"]) {
    const seen: Listed[] = [];
    let cursor: string | null = null;
    do {
      const page: { findings: Listed[]; next_cursor: string | null } = await list(
        `?limit=2&sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...page.findings);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((f) => f.finding_id).sort()).toEqual(all.map((f) => f.finding_id).sort());
    const conf = seen.map((f) => f.ai?.confidence ?? 0);
    const sorted = [...conf].sort((a, b) => (sort === "ai_confidence" ? a - b : b - a));
    expect(conf).toEqual(sorted);
  }
});

it("rejects bad AI filters with 400", async () => {
  for (const q of ["ai_class=maybe", "min_ai_confidence=2", "min_ai_confidence=x", "sort=random"]) {
    const res = await request(h.app).get(`/api/v2/scan/${scanId}/findings?${q}`).set(key());
    expect({ q, status: res.status }).toEqual({ q, status: 400 });
  }
});

it("never overwrites a reviewer's status on a rescan, and labels the new scan's findings", async () => {
  const { findings } = await list("?limit=1");
  const first = findings[0] as Listed;
  const put = await request(h.app)
    .put(`/api/v2/scan/${scanId}/finding/${first.finding_id}`)
    .set(key())
    .send({ status: "FALSE POSITIVE", reason: "test fixture" });
  expect(put.status).toBe(200);
  const scan = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
  const again = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: scan.body.git_uri });
  const second = again.body.scan_id as string;
  await waitFor(
    async () => ((await request(h.app).get(`/api/v2/scan/${second}`).set(key())).body.state === "completed" ? true : undefined),
    { timeoutMs: 90_000, what: "rescan" },
  );
  const res = await request(h.app).get(`/api/v2/scan/${second}/findings?limit=500`).set(key());
  const carried = (res.body.findings as Listed[]).find(
    (f) => f.file === first.file && f.start_line === first.start_line && f.cwe_id === first.cwe_id,
  );
  expect(carried?.status).toBe("FALSE POSITIVE");
  expect(carried?.ai).toEqual(first.ai);
});

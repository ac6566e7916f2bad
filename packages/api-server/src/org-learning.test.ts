// Learning from an organization's own triage (issue 21, item 6), end to end on the real stack:
// PostgreSQL, Redis, a BullMQ worker in this process, git repositories made here, the real
// analyzers and the shipped review model. Triage through PUT, rescan, and the AI verdicts of
// similar findings move — in this organization only.
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

interface Listed {
  finding_id: string;
  file: string;
  start_line: number;
  rule_id: string;
  analyzer: string;
  cwe_id: string | null;
  status: string;
  scan_id: string;
  ai: { class: string; confidence: number; model: string; reasons?: string[] } | null;
}

let h: ApiHarness;
const key = (token = h.tenant.token) => ({ "X-AX-KEY": token });
const pTrue = (ai: { class: string; confidence: number }) => (ai.class === "TRUE_POSITIVE" ? ai.confidence : 1 - ai.confidence);

// One weak-hash call per file, in sibling directories: the same rule, path pattern and code shape.
const digestFile = (name: string) => `import hashlib\n\n\ndef digest(${name}):\n    return hashlib.md5(${name}).hexdigest()\n`;
const FILES: Record<string, string> = {
  "app/orders/util.py": digestFile("data"),
  "app/users/util.py": digestFile("payload"),
  "app/billing/util.py": digestFile("body"),
  "app/reports/util.py": digestFile("content"),
};

async function scan(gitUri: string, token = h.tenant.token): Promise<Listed[]> {
  const res = await request(h.app).post("/api/v2/scan").set(key(token)).send({ git_uri: gitUri });
  expect(res.status).toBe(200);
  const id = res.body.scan_id as string;
  await waitFor(
    async () => ((await request(h.app).get(`/api/v2/scan/${id}`).set(key(token))).body.state === "completed" ? true : undefined),
    { timeoutMs: 90_000, what: "scan" },
  );
  const list = await request(h.app).get(`/api/v2/scan/${id}/findings?limit=500`).set(key(token));
  expect(list.status).toBe(200);
  return (list.body.findings as Omit<Listed, "scan_id">[]).map((f) => ({ ...f, scan_id: id }));
}

/** The rule with a finding in every file (the weak hash), and its findings by file. */
function hashFindings(findings: Listed[]): Map<string, Listed> {
  const byRule = new Map<string, Listed[]>();
  for (const f of findings) byRule.set(`${f.analyzer}:${f.rule_id}`, [...(byRule.get(`${f.analyzer}:${f.rule_id}`) ?? []), f]);
  const rule = [...byRule.values()].find((list) => new Set(list.map((f) => f.file)).size === Object.keys(FILES).length);
  expect(rule).toBeDefined();
  return new Map(rule!.map((f) => [f.file, f]));
}

let repo: string;
let before: Map<string, Listed>;

beforeAll(async () => {
  h = await createApiHarness({ worker: true });
  repo = makeGitRepo(FILES);
  before = hashFindings(await scan(repo));
  for (const f of before.values()) expect(f.ai).not.toBeNull();
});
afterAll(() => h.close());

it("moves the verdicts of similar findings toward FALSE_POSITIVE after triage, and the reasons cite it", async () => {
  // Three of the four marked false positive by a reviewer; the fourth is left to the AI.
  for (const file of ["app/orders/util.py", "app/users/util.py", "app/billing/util.py"]) {
    const f = before.get(file)!;
    const put = await request(h.app)
      .put(`/api/v2/scan/${f.scan_id}/finding/${f.finding_id}`)
      .set(key())
      .send({ status: "FALSE POSITIVE", reason: "digest of non-secret data" });
    expect(put.status).toBe(200);
  }
  const after = hashFindings(await scan(repo));
  const untouched = after.get("app/reports/util.py")!;
  expect(untouched.status).toBe("TO REVIEW");
  expect(pTrue(untouched.ai!)).toBeLessThan(pTrue(before.get("app/reports/util.py")!.ai!));
  expect(untouched.ai!.model).toMatch(/\+org$/);
  expect(untouched.ai!.reasons?.[0]).toBe("3 findings of the same rule and code shape in this project were marked false positive");
  // A triaged finding's own label is left out: it is moved by the other two only.
  const triaged = after.get("app/orders/util.py")!;
  expect(triaged.status).toBe("FALSE POSITIVE");
  expect(triaged.ai!.reasons?.[0]).toBe("2 findings of the same rule and code shape in this project were marked false positive");
  expect(pTrue(triaged.ai!)).toBeGreaterThan(pTrue(untouched.ai!));
});

it("applies the organization's labels to another of its projects, and never to another organization", async () => {
  const second = makeGitRepo({ "svc/ledger/hash.py": digestFile("blob") });
  const mine = (await scan(second)).find((f) => f.file === "svc/ledger/hash.py" && `${f.analyzer}:${f.rule_id}` === ruleOf(before));
  const other = await h.otherTenant();
  const theirs = (await scan(second, other.token)).find(
    (f) => f.file === "svc/ledger/hash.py" && `${f.analyzer}:${f.rule_id}` === ruleOf(before),
  );
  expect(mine?.ai && theirs?.ai).toBeTruthy();
  expect(theirs!.ai!.model).not.toMatch(/\+org$/);
  expect(pTrue(mine!.ai!)).toBeLessThan(pTrue(theirs!.ai!));
  expect(mine!.ai!.reasons?.[0]).toMatch(/^3 findings .* in this organization were marked false positive$/);

  // The other organization's scan of the first repository: the model's labels, unmoved.
  const theirFirst = hashFindings(await scan(repo, other.token));
  for (const [file, f] of before) expect(theirFirst.get(file)!.ai).toEqual(f.ai);
});

it("moves POST /ai/review answers of the caller's organization only", async () => {
  const f = before.get("app/reports/util.py")!;
  const body = { code: "    return hashlib.md5(secret).hexdigest()", cwe_id: f.cwe_id ?? "CWE-327", file: "lib/crypto/sign.py" };
  const other = await h.otherTenant();
  const mine = await request(h.app).post("/api/v2/ai/review").set(key()).send(body);
  const theirs = await request(h.app).post("/api/v2/ai/review").set(key(other.token)).send(body);
  expect([mine.status, theirs.status]).toEqual([200, 200]);
  expect(theirs.body.model).not.toMatch(/\+org$/);
  expect(pTrue(mine.body)).toBeLessThan(pTrue(theirs.body));
  expect(mine.body.reasons?.[0]).toMatch(
    /^\d+ findings with the same weakness \(CWE-\d+\) and code shape in this organization were marked false positive$/,
  );
});

it("counts votes on review answers as the organization's labels", async () => {
  const other = await h.otherTenant();
  const body = { code: "os.system(cmd)", cwe_id: "CWE-78", file: "tools/run.py" };
  // Three answers before any vote (the model's alone), each voted "false": the other class was right.
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push(await request(h.app).post("/api/v2/ai/review").set(key(other.token)).send(body));
  const first = answers[0]!;
  expect(answers.map((a) => [a.status, a.body.class, a.body.model])).toEqual(answers.map(() => [200, first.body.class, first.body.model]));
  for (const a of answers) {
    const vote = await request(h.app)
      .get(`/api/v2/ai/feedback/${a.body.request_id}/false?organization_id=${other.organization_id}&group_id=${other.group_id}`)
      .set(key(other.token));
    expect(vote.status).toBe(200);
  }
  const later = await request(h.app).post("/api/v2/ai/review").set(key(other.token)).send(body);
  const wrongClass = first.body.class as string;
  // Toward the class the votes said was right.
  if (wrongClass === "TRUE_POSITIVE") expect(pTrue(later.body)).toBeLessThan(pTrue(first.body));
  else expect(pTrue(later.body)).toBeGreaterThan(pTrue(first.body));
  expect(later.body.model).toMatch(/\+org$/);
  // The first organization's answer is its own.
  const mine = await request(h.app).post("/api/v2/ai/review").set(key()).send(body);
  expect(mine.body.model).not.toMatch(/\+org$/);
});

function ruleOf(findings: Map<string, Listed>): string {
  const f = [...findings.values()][0]!;
  return `${f.analyzer}:${f.rule_id}`;
}

// The AI policy per group and the AI's reasons on findings (issue 21, items 4 and 5), on the
// real API, PostgreSQL and Redis. Scans are stored as the worker stores them, with the review
// model's labels given (their confidences chosen so that each threshold is crossed), so the
// policy's decisions are exact whatever the shipped model answers.
import request from "supertest";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import { createScan, findOrCreateProject, markRunning, storeScanResults, type AiLabel } from "@ax/db";
import { createApiHarness, SEED_FINDING, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
const key = (token = h.tenant.token) => ({ "X-AX-KEY": token });
const policyPath = (org = h.tenant.organization_id, group = h.tenant.group_id) => `/api/v2/organization/${org}/group/${group}/ai-policy`;
const RUNS: AnalyzerRun[] = [{ name: "ast-grep", version: "1", status: "completed", duration_ms: 1, findings: 1 }];

interface Listed {
  finding_id: string;
  fingerprint: string;
  status: string;
  reason: string | null;
  ai: { class: string; confidence: number; model: string; reasons: string[]; action: string | null } | null;
}

/** The seed finding without its fix: these findings differ by place and fingerprint only. */
const { fix: _fix, ...BASE } = SEED_FINDING;

function finding(n: number): NormalizedFinding {
  return {
    ...BASE,
    file: `src/f${n}.js`,
    start_line: 10 + n,
    end_line: 10 + n,
    snippet: `db.query('select ' + id${n})`,
    fingerprint: n.toString(16).padStart(64, "0"),
  };
}

const label = (cls: "TRUE_POSITIVE" | "FALSE_POSITIVE", confidence: number, n: number): AiLabel => ({
  class: cls,
  confidence,
  model: "review-lr-test",
  reasons: [`the value reaches the query only as a bound parameter (${n})`, `no untrusted source was found (${n})`],
});

/** A scan of `gitUrl` on main stored with these findings and labels, as the worker stores one. */
async function storeScan(gitUrl: string, findings: NormalizedFinding[], labels: Map<string, AiLabel>): Promise<string> {
  const db = h.stack.handle.db;
  const t = h.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl, name: gitUrl });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: gitUrl,
    branch: "main",
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  const stored = await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings,
    analyzers: RUNS,
    languages: ["javascript"],
    aiLabels: labels,
  });
  expect(stored.stored).toBe(true);
  return scan.id;
}

async function list(scanId: string, query = ""): Promise<Listed[]> {
  const res = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500${query}`).set(key());
  expect(res.status).toBe(200);
  return res.body.findings as Listed[];
}

const byFingerprint = (rows: Listed[]) => new Map(rows.map((r) => [r.fingerprint, r]));

beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(() => h.close());

describe("GET and PUT …/group/{group_id}/ai-policy", () => {
  it("gives the default policy, sets what is given and keeps the rest", async () => {
    const first = await request(h.app).get(policyPath()).set(key());
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ group_id: h.tenant.group_id, auto_close_at: null, suggest_at: 0.8, updated_at: null });

    const set = await request(h.app).put(policyPath()).set(key()).send({ auto_close_at: 0.95 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ group_id: h.tenant.group_id, auto_close_at: 0.95, suggest_at: 0.8, updated_at: expect.any(String) });
    const suggest = await request(h.app).put(policyPath()).set(key()).send({ suggest_at: 0.7 });
    expect(suggest.body).toMatchObject({ auto_close_at: 0.95, suggest_at: 0.7 });
    const off = await request(h.app).put(policyPath()).set(key()).send({ auto_close_at: null });
    expect(off.body).toMatchObject({ auto_close_at: null, suggest_at: 0.7 });
    expect((await request(h.app).get(policyPath()).set(key())).body).toEqual(off.body);
  });

  it.each([
    [{ auto_close_at: 0.4 }, /auto_close_at must be at least 0.5/],
    [{ auto_close_at: 1.2 }, /auto_close_at must be at most 1/],
    [{ suggest_at: -0.1 }, /suggest_at must be at least 0/],
    [{ suggest_at: "high" }, /suggest_at must be a number/],
    [{ auto_close_at: 0.85, suggest_at: 0.9 }, /auto_close_at \(0.85\) must be at least suggest_at \(0.9\)/],
    [{ threshold: 0.9 }, /Unknown field: threshold/],
    [[0.9], /Body must be a JSON object/],
  ])("refuses %j with a 400 that says why", async (body, message) => {
    const before = (await request(h.app).get(policyPath()).set(key())).body;
    const res = await request(h.app).put(policyPath()).set(key()).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("validation_failed");
    expect(res.body.message).toMatch(message);
    expect((await request(h.app).get(policyPath()).set(key())).body).toEqual(before);
  });

  it("lets viewers read it and only admins and owners set it", async () => {
    const viewer = await h.member("viewer");
    expect((await request(h.app).get(policyPath()).set(key(viewer))).status).toBe(200);
    for (const role of ["viewer", "member"] as const) {
      const res = await request(h.app)
        .put(policyPath())
        .set(key(await h.member(role)))
        .send({ suggest_at: 0.5 });
      expect({ role, status: res.status }).toEqual({ role, status: 403 });
    }
    const admin = await h.member("admin");
    expect((await request(h.app).put(policyPath()).set(key(admin)).send({ suggest_at: 0.8 })).status).toBe(200);
  });

  it("is tenant-scoped: another organization's group or token is 404, and nothing changes", async () => {
    const other = await h.otherTenant();
    const mine = (await request(h.app).get(policyPath()).set(key())).body;
    for (const [path, token] of [
      [policyPath(), other.token],
      [policyPath(other.organization_id, other.group_id), h.tenant.token],
      [policyPath(h.tenant.organization_id, other.group_id), h.tenant.token],
    ] as const) {
      expect((await request(h.app).get(path).set(key(token))).status).toBe(404);
      expect((await request(h.app).put(path).set(key(token)).send({ auto_close_at: 0.9 })).status).toBe(404);
    }
    expect((await request(h.app).get(policyPath()).set(key())).body).toEqual(mine);
    const theirs = await request(h.app).get(policyPath(other.organization_id, other.group_id)).set(key(other.token));
    expect(theirs.body).toMatchObject({ auto_close_at: null, suggest_at: 0.8, updated_at: null });
  });
});

describe("the policy on stored findings", () => {
  it("with the default policy only labels: nothing is closed, and the action follows suggest_at 0.8", async () => {
    await request(h.app).put(policyPath()).set(key()).send({ auto_close_at: null, suggest_at: 0.8 });
    const fs = [finding(1), finding(2)];
    const scanId = await storeScan(
      "file:///default-policy",
      fs,
      new Map([
        [fs[0]!.fingerprint, label("FALSE_POSITIVE", 0.99, 1)],
        [fs[1]!.fingerprint, label("TRUE_POSITIVE", 0.6, 2)],
      ]),
    );
    const rows = byFingerprint(await list(scanId));
    expect(rows.get(fs[0]!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: { class: "FALSE_POSITIVE", action: "suggested" } });
    expect(rows.get(fs[1]!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: { class: "TRUE_POSITIVE", action: "needs_review" } });
  });

  it("auto-closes a new finding with history and reasons, and never overrides a reviewer's status carried to a rescan", async () => {
    expect((await request(h.app).put(policyPath()).set(key()).send({ auto_close_at: 0.9, suggest_at: 0.7 })).status).toBe(200);
    const [a, b, c, d, e, f] = [1, 2, 3, 4, 5, 6].map(finding) as NormalizedFinding[];
    const first = await storeScan(
      "file:///policy",
      [a!, b!, c!, d!, e!, f!],
      new Map([
        [a!.fingerprint, label("FALSE_POSITIVE", 0.95, 1)],
        [b!.fingerprint, label("FALSE_POSITIVE", 0.93, 2)],
        [c!.fingerprint, label("TRUE_POSITIVE", 0.97, 3)],
        [d!.fingerprint, label("FALSE_POSITIVE", 0.6, 4)],
        [f!.fingerprint, label("FALSE_POSITIVE", 0.8, 6)],
      ]),
    );
    const one = byFingerprint(await list(first));
    // A and B closed by the policy; C a confident TRUE_POSITIVE, only suggested; D unsure; E unlabelled.
    expect(one.get(a!.fingerprint)).toMatchObject({ status: "FALSE POSITIVE", ai: { action: "auto_closed", confidence: 0.95 } });
    expect(one.get(b!.fingerprint)).toMatchObject({ status: "FALSE POSITIVE", ai: { action: "auto_closed" } });
    expect(one.get(c!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: { class: "TRUE_POSITIVE", action: "suggested" } });
    expect(one.get(d!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: { action: "needs_review" } });
    expect(one.get(e!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: null });
    expect(one.get(f!.fingerprint)).toMatchObject({ status: "TO REVIEW", ai: { action: "suggested" } });

    const closed = one.get(a!.fingerprint)!;
    expect(closed.reason).toMatch(
      /^Closed by the group's AI policy: the review model \(review-lr-test\) labelled it FALSE_POSITIVE with confidence 0\.95, at or above the auto-close threshold 0\.90\. Evidence: the value reaches the query only as a bound parameter \(1\)/,
    );
    const history = await request(h.app).get(`/api/v2/scan/${first}/finding/${closed.finding_id}/history`).set(key());
    expect(history.status).toBe(200);
    expect(history.body.history).toEqual([
      {
        version: 2,
        source: "ai",
        changed_by: null,
        carried_from_finding_id: null,
        changes: { status: { from: "TO REVIEW", to: "FALSE POSITIVE" }, reason: { from: null, to: closed.reason } },
        created_at: expect.any(String),
      },
    ]);

    // Reviewers: B was not a false positive after all (reopened), F is a true positive.
    for (const [row, status] of [
      [one.get(b!.fingerprint)!, "TO REVIEW"],
      [one.get(f!.fingerprint)!, "TRUE POSITIVE"],
    ] as const) {
      const put = await request(h.app)
        .put(`/api/v2/scan/${first}/finding/${row.finding_id}`)
        .set(key())
        .send({ status, reason: "reviewed" });
      expect(put.status).toBe(200);
    }

    // The rescan: the model is now surer that B and F are false positives, and G is new.
    const g = finding(7);
    const second = await storeScan(
      "file:///policy",
      [a!, b!, c!, d!, e!, f!, g],
      new Map([
        [a!.fingerprint, label("FALSE_POSITIVE", 0.95, 1)],
        [b!.fingerprint, label("FALSE_POSITIVE", 0.99, 2)],
        [c!.fingerprint, label("TRUE_POSITIVE", 0.97, 3)],
        [d!.fingerprint, label("FALSE_POSITIVE", 0.6, 4)],
        [f!.fingerprint, label("FALSE_POSITIVE", 0.99, 6)],
        [g.fingerprint, label("FALSE_POSITIVE", 0.91, 7)],
      ]),
    );
    const two = byFingerprint(await list(second));
    expect(two.get(b!.fingerprint)).toMatchObject({
      status: "TO REVIEW",
      reason: "reviewed",
      ai: { confidence: 0.99, action: "suggested" },
    });
    expect(two.get(f!.fingerprint)).toMatchObject({
      status: "TRUE POSITIVE",
      reason: "reviewed",
      ai: { confidence: 0.99, action: "suggested" },
    });
    expect(two.get(a!.fingerprint)).toMatchObject({ status: "FALSE POSITIVE", ai: { action: "auto_closed" } });
    expect(two.get(g.fingerprint)).toMatchObject({ status: "FALSE POSITIVE", ai: { action: "auto_closed" } });
    const carried = await request(h.app)
      .get(`/api/v2/scan/${second}/finding/${two.get(f!.fingerprint)!.finding_id}/history`)
      .set(key());
    expect((carried.body.history as { source: string }[]).map((x) => x.source)).toEqual(["carried"]);

    // ?ai_action= filters by what the policy did.
    const ids = (rows: Listed[]) => rows.map((r) => r.fingerprint).sort();
    expect(ids(await list(second, "&ai_action=auto_closed"))).toEqual([a!.fingerprint, g.fingerprint].sort());
    expect(ids(await list(second, "&ai_action=needs_review"))).toEqual([d!.fingerprint]);
    expect(ids(await list(second, "&ai_action=Suggested,needs-review"))).toEqual(
      [b!.fingerprint, c!.fingerprint, d!.fingerprint, f!.fingerprint].sort(),
    );
    const bad = await request(h.app).get(`/api/v2/scan/${second}/findings?ai_action=closed`).set(key());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/ai_action takes auto_closed, suggested, needs_review/);
  });

  it("shows the reasons in the finding detail and in SARIF, with the action", async () => {
    const fs = [finding(21), finding(22)];
    await request(h.app).put(policyPath()).set(key()).send({ auto_close_at: 0.9, suggest_at: 0.7 });
    const scanId = await storeScan("file:///reasons", fs, new Map([[fs[0]!.fingerprint, label("FALSE_POSITIVE", 0.96, 21)]]));
    const rows = byFingerprint(await list(scanId));
    const labelled = rows.get(fs[0]!.fingerprint)!;
    const detail = await request(h.app).get(`/api/v2/scan/${scanId}/finding/${labelled.finding_id}`).set(key());
    expect(detail.body.ai).toEqual({
      class: "FALSE_POSITIVE",
      confidence: 0.96,
      model: "review-lr-test",
      reasons: label("FALSE_POSITIVE", 0.96, 21).reasons,
      action: "auto_closed",
    });

    const sarif = await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key());
    expect(sarif.status).toBe(200);
    const results = (sarif.body.runs as { results: { properties: Record<string, unknown>; suppressions?: unknown[] }[] }[]).flatMap(
      (r) => r.results,
    );
    const closed = results.find((r) => r.properties.finding_id === labelled.finding_id)!;
    expect(closed.properties.ai).toEqual(detail.body.ai);
    // Closed by the policy: an accepted external suppression whose justification says why.
    expect(closed.suppressions).toEqual([{ kind: "external", status: "accepted", justification: labelled.reason }]);
    const unlabelled = results.find((r) => r.properties.finding_id === rows.get(fs[1]!.fingerprint)!.finding_id)!;
    expect(unlabelled.properties.ai).toBeUndefined();
  });
});

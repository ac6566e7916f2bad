// Paging through a scan's findings while reviewers triage it (issue 16): the real API on a
// real PostgreSQL, a scan stored as the worker stores one. Every finding must come exactly
// once. The list's key began with the triaged severity: a finding raised to CRITICAL after
// the cursor passed CRITICAL was never listed, one lowered to INFO was listed twice.
import request from "supertest";
import { createScan, findOrCreateProject, markRunning, storeScanResults } from "@ax/db";
import { createApiHarness, SEED_FINDING, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let scanId: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });
const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
const N = 40;

interface Row {
  finding_id: string;
  severity: string;
  status: string;
}

/** A deterministic stream of numbers in [0, 1), so that a failure replays. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

beforeAll(async () => {
  h = await createApiHarness();
  const db = h.stack.handle.db;
  const t = h.tenant;
  const project = await findOrCreateProject(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    gitUrl: "file:///paging",
    name: "paging",
  });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: "file:///paging",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  const findings = Array.from({ length: N }, (_, i) => ({
    ...SEED_FINDING,
    severity: SEVERITIES[i % SEVERITIES.length] as (typeof SEVERITIES)[number],
    file: `src/f${i % 7}.js`,
    start_line: 1 + i,
    end_line: 1 + i,
    fingerprint: i.toString(16).padStart(64, "0"),
  }));
  // Two of every three labelled by the review model, so the AI orders have both kinds.
  const aiLabels = new Map(
    findings
      .filter((_, i) => i % 3 !== 0)
      .map((f, i) => [
        f.fingerprint,
        { class: i % 2 ? "TRUE_POSITIVE" : "FALSE_POSITIVE", confidence: ((i * 37) % 100) / 100, model: "m" },
      ]),
  );
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings,
    analyzers: [],
    languages: ["javascript"],
    aiLabels,
  });
  scanId = scan.id;
});
afterAll(() => h.close());

async function page(query: string): Promise<{ findings: Row[]; next_cursor: string | null }> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/findings?${query}`).set(key());
  expect(r.status).toBe(200);
  return r.body;
}

async function triage(findingId: string, patch: Record<string, string>) {
  const r = await request(h.app).put(`/api/v2/scan/${scanId}/finding/${findingId}`).set(key()).send(patch);
  expect(r.status).toBe(200);
}

/** Pages with `limit`, re-prioritising findings between pages: those seen and those to come, up and down. */
async function pageWhileTriaging(query: string, limit: number, seed: number): Promise<string[]> {
  const random = prng(seed);
  const all = (await page(`${query}&limit=500`)).findings.map((f) => f.finding_id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const p = await page(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    seen.push(...p.findings.map((f) => f.finding_id));
    cursor = p.next_cursor;
    const ahead = all.filter((id) => !seen.includes(id));
    const targets = [seen[Math.floor(random() * seen.length)], ahead[Math.floor(random() * ahead.length)], ahead[ahead.length - 1]];
    for (const id of targets) {
      if (id === undefined) continue;
      await triage(id, {
        severity: SEVERITIES[Math.floor(random() * SEVERITIES.length)] as string,
        ...(random() < 0.3 ? { status: "true positive" } : {}),
      });
    }
    // The extremes move furthest: the next to come to CRITICAL, the last one seen to INFO.
    if (ahead[0]) await triage(ahead[0], { severity: "CRITICAL" });
    const last = seen[seen.length - 1];
    if (last) await triage(last, { severity: "INFO" });
  } while (cursor);
  return seen;
}

function expectEachOnce(seen: string[]) {
  const repeated = seen.filter((id, i) => seen.indexOf(id) !== i);
  expect(repeated).toEqual([]);
  expect(seen).toHaveLength(N);
}

describe("paging a scan's findings while they are triaged", () => {
  it("lists every finding exactly once in the default order", async () => {
    const seen = await pageWhileTriaging("sort=severity", 3, 1);
    expectEachOnce(seen);
    // The order is the scan's, whatever the triage since: a fresh listing gives the same.
    expect((await page("limit=500")).findings.map((f) => f.finding_id)).toEqual(seen);
  });

  it("keeps the order of the severities as stored, so a re-prioritised finding keeps its place", async () => {
    const rows = (await page("limit=500")).findings;
    const raised = rows.find((f) => f.severity !== "CRITICAL" && rows.indexOf(f) > 20) as Row;
    await triage(raised.finding_id, { severity: "CRITICAL" });
    const after = (await page("limit=500")).findings;
    expect(after.map((f) => f.finding_id)).toEqual(rows.map((f) => f.finding_id));
    expect(after.find((f) => f.finding_id === raised.finding_id)?.severity).toBe("CRITICAL");
  });

  it.each(["ai_confidence", "-ai_confidence"])("lists every finding exactly once with sort=%s", async (sort) => {
    expectEachOnce(await pageWhileTriaging(`sort=${sort}`, 4, sort.length));
  });

  it("with pages of one", async () => {
    expectEachOnce(await pageWhileTriaging("sort=severity", 1, 7));
  });
});

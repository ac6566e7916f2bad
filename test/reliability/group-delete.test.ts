// Data safety: the hard delete of a group while its scans run, new scans are submitted into
// it and reviewers triage its findings, repeated AX_FAULT_REPEAT times. Real PostgreSQL,
// Redis, git, analyzers and worker (in process); an operator-style SARIF tool (a node
// script) keeps each scan in its analyzing phase for a while.
import fs from "node:fs";
import { sql } from "kysely";
import request from "supertest";
import { SCAN_QUEUE } from "@ax/contracts";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";
import { countReferencing, foreignKeysTo } from "./support/audit";
import { submitScan } from "./support/fleet";
import { pidsWithMarker } from "./support/processes";
import { Tally, budgetMs, repeatCount, report, sleep } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
/** Scan submissions fired around each delete, this far apart. */
const BURST = 24;
const BURST_GAP_MS = 3;
const TRIAGE = ["TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "TO REVIEW"];

let h: ApiHarness;
let tools: ProbeTools;
let marker: string;
let repos: string[];
let sibling: { scanId: string; snapshot: string };

beforeAll(async () => {
  tools = probeTools(1500);
  marker = tools.marker();
  // Rate limits and the cap on scans in flight would turn the hammering below into 429s.
  h = await createApiHarness({
    worker: true,
    env: {
      SARIF_TOOLS: tools.config(marker, ["slow"]),
      RECONCILE_INTERVAL_MS: "1000",
      RATE_LIMIT_ENABLED: "false",
      MAX_SCANS_IN_FLIGHT_PER_ORG: "0",
    },
  });
  repos = [makeGitRepo(pythonFiles(4)), makeGitRepo(pythonFiles(5))];
  const g = await createGroup("sibling");
  const scanId = await submitScan(h.app, h.tenant.token, repos[0]!, `?group_id=${g}`);
  await waitForState(scanId, ["completed"]);
  sibling = { scanId, snapshot: await siblingSnapshot(scanId) };
});

afterAll(async () => {
  await h.close();
  for (const dir of [tools.dir, ...repos]) fs.rmSync(dir, { recursive: true, force: true });
});

const key = () => ({ "X-AX-KEY": h.tenant.token });
const org = () => h.tenant.organization_id;

async function createGroup(name: string): Promise<string> {
  const r = await request(h.app).post(`/api/v2/organization/${org()}/group`).set(key()).send({ name });
  if (r.status !== 200) throw new Error(`creating a group answered ${r.status}`);
  return r.body.group_id as string;
}

async function waitForState(scanId: string, states: string[]) {
  await waitFor(
    async () =>
      states.includes(
        (await h.stack.handle.db.selectFrom("scans").select("state").where("id", "=", scanId).executeTakeFirst())?.state ?? "",
      ),
    {
      timeoutMs: 60_000,
      what: `scan ${scanId} to be ${states.join(" or ")}`,
    },
  );
}

/** The sibling group's scan, findings and history, to show the delete left them alone. */
async function siblingSnapshot(scanId: string): Promise<string> {
  const db = h.stack.handle.db;
  const findings = await db
    .selectFrom("findings")
    .select(["id", "fingerprint", "status", "version"])
    .where("scan_id", "=", scanId)
    .orderBy("id")
    .execute();
  const history = await db
    .selectFrom("finding_history")
    .select(["id", "version"])
    .where("finding_id", "in", findings.length ? findings.map((f) => f.id) : [""])
    .orderBy("id")
    .execute();
  const scan = await db.selectFrom("scans").select(["state", "counts"]).where("id", "=", scanId).executeTakeFirst();
  return JSON.stringify({ scan, findings, history });
}

interface Ids {
  groups: string[];
  projects: string[];
  scans: string[];
  findings: string[];
}

/**
 * Rows anywhere that still point at the deleted group's ids: every column with a foreign key
 * to groups, projects, scans or findings (from the catalog, so a table added later is
 * covered), the id columns that have none, and orphans of any origin in those.
 */
async function leftovers(ids: Ids): Promise<Record<string, number>> {
  const db = h.stack.handle.db;
  const found: Record<string, number> = {};
  const idsOf: Record<string, string[]> = { groups: ids.groups, projects: ids.projects, scans: ids.scans, findings: ids.findings };
  const columns = [
    ...(await foreignKeysTo(db, Object.keys(idsOf))),
    { table: "groups", column: "id", references: "groups" },
    { table: "projects", column: "id", references: "projects" },
    { table: "scans", column: "id", references: "scans" },
    { table: "findings", column: "id", references: "findings" },
    // Identifier columns without a foreign key.
    { table: "findings", column: "project_id", references: "projects" },
    { table: "findings", column: "first_seen_scan_id", references: "scans" },
    { table: "finding_history", column: "carried_from", references: "findings" },
  ];
  for (const c of columns) {
    const n = await countReferencing(db, c.table, c.column, idsOf[c.references] ?? []);
    if (n > 0) found[`${c.table}.${c.column}`] = n;
  }
  const orphans = await sql<{ what: string; n: string }>`
    SELECT 'findings without project' AS what, count(*) AS n FROM findings f WHERE NOT EXISTS (SELECT 1 FROM projects p WHERE p.id = f.project_id)
    UNION ALL SELECT 'findings without scan', count(*) FROM findings f WHERE NOT EXISTS (SELECT 1 FROM scans s WHERE s.id = f.scan_id)
    UNION ALL SELECT 'history without finding', count(*) FROM finding_history h WHERE NOT EXISTS (SELECT 1 FROM findings f WHERE f.id = h.finding_id)`.execute(
    db,
  );
  for (const o of orphans.rows) if (Number(o.n) > 0) found[o.what] = Number(o.n);
  return found;
}

async function idle(): Promise<void> {
  await waitFor(
    async () => {
      const c = await h.deps.queue.queue(SCAN_QUEUE).getJobCounts("active", "waiting", "delayed", "prioritized");
      return Object.values(c).every((n) => n === 0) && pidsWithMarker(marker).length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: "the worker to be idle" },
  );
}

/** Status codes of the requests sent while the delete happened. */
const statuses: Record<string, Record<number, number>> = { "PUT finding": {}, "POST /scan": {}, DELETE: {} };
const count = (what: string, status: number) => {
  const m = statuses[what]!;
  m[status] = (m[status] ?? 0) + 1;
};

it(
  `hard-deletes a group under concurrent scans, scan submissions and triage: no orphan row, nothing comes back, 404 afterwards (${N}×)`,
  async () => {
    const db = h.stack.handle.db;
    const tally = new Tally(N);
    let runningAtDelete = 0;
    let queuedAtDelete = 0;
    let late = 0;
    while (tally.more) {
      await tally.run(async () => {
        const g = await createGroup(`doomed-${tally.done + tally.missed}-${Date.now()}`);
        const q = `?group_id=${g}`;
        const earlier = await Promise.all(repos.map((r) => submitScan(h.app, h.tenant.token, r, q)));
        for (const id of earlier) await waitForState(id, ["completed"]);
        const targets = await db.selectFrom("findings").select(["id", "scan_id"]).where("scan_id", "in", earlier).execute();

        const fresh = [
          await submitScan(h.app, h.tenant.token, repos[0]!, q),
          await submitScan(h.app, h.tenant.token, repos[1]!, q),
          await submitScan(h.app, h.tenant.token, repos[0]!, q),
        ];
        await waitFor(
          async () =>
            (await db.selectFrom("scans").select("id").where("id", "in", fresh).where("state", "=", "running").execute()).length > 0,
          {
            timeoutMs: 30_000,
            intervalMs: 20,
            what: "a scan to run",
          },
        );

        let stop = false;
        const submitted: string[] = [];
        const triage = async (seed: number) => {
          for (let k = seed; !stop; k++) {
            const f = targets[k % targets.length]!;
            const r = await request(h.app)
              .put(`/api/v2/scan/${f.scan_id}/finding/${f.id}`)
              .set(key())
              .send({ status: TRIAGE[k % TRIAGE.length], reason: `pass ${k}` });
            count("PUT finding", r.status);
          }
        };
        const scanLoop = async () => {
          while (!stop) {
            const r = await request(h.app).post(`/api/v2/scan${q}`).set(key()).send({ git_uri: repos[1] });
            count("POST /scan", r.status);
            if (r.status === 200) submitted.push(r.body.scan_id as string);
            await sleep(150);
          }
        };
        const loops = [triage(0), triage(7), scanLoop()];
        await sleep(200 + Math.random() * 1_500);

        const before: Ids = {
          groups: [g],
          projects: (await db.selectFrom("projects").select("id").where("group_id", "=", g).execute()).map((r) => r.id),
          scans: (await db.selectFrom("scans").select("id").where("group_id", "=", g).execute()).map((r) => r.id),
          findings: (
            await db
              .selectFrom("findings")
              .innerJoin("scans", "scans.id", "findings.scan_id")
              .select("findings.id")
              .where("scans.group_id", "=", g)
              .execute()
          ).map((r) => r.id),
        };
        const states = await db.selectFrom("scans").select("state").where("id", "in", fresh).execute();
        runningAtDelete += states.filter((s) => s.state === "running").length;
        queuedAtDelete += states.filter((s) => s.state === "queued").length;
        // A burst of submissions into the group spread over the moment of the delete, so that
        // some land between their own statements while it commits.
        const burst = Array.from({ length: BURST }, (_, k) =>
          sleep(k * BURST_GAP_MS).then(() =>
            request(h.app)
              .post(`/api/v2/scan${q}`)
              .set(key())
              .send({ git_uri: repos[k % 2] })
              .then((r) => {
                count("POST /scan", r.status);
                if (r.status === 200) submitted.push(r.body.scan_id as string);
              }),
          ),
        );
        await sleep((BURST * BURST_GAP_MS) / 3); // a third into the burst
        const del = await request(h.app).delete(`/api/v2/organization/${org()}/group/${g}`).set(key());
        await Promise.all(burst);
        count("DELETE", del.status);
        await sleep(500);
        stop = true;
        await Promise.all(loops);

        const ids: Ids = { ...before, scans: [...new Set([...before.scans, ...fresh, ...submitted])] };
        const problems: string[] = [];
        if (del.status !== 200) problems.push(`DELETE answered ${del.status}`);
        const now = await leftovers(ids);
        if (Object.keys(now).length) problems.push(`right after the delete: ${JSON.stringify(now)}`);
        await idle();
        await sleep(1_500); // a reconciler pass
        const later = await leftovers(ids);
        if (Object.keys(later).length) {
          late++;
          problems.push(`once the worker was idle: ${JSON.stringify(later)}`);
        }
        for (const id of ids.scans) {
          const scan = await request(h.app).get(`/api/v2/scan/${id}`).set(key());
          const list = await request(h.app).get(`/api/v2/scan/${id}/findings`).set(key());
          if (scan.status !== 404 || list.status !== 404) problems.push(`scan ${id}: GET ${scan.status}, findings ${list.status}`);
        }
        const f = targets[0]!;
        const put = await request(h.app).put(`/api/v2/scan/${f.scan_id}/finding/${f.id}`).set(key()).send({ status: "FIXED" });
        if (put.status !== 404) problems.push(`PUT on a deleted finding answered ${put.status}`);
        if ((await siblingSnapshot(sibling.scanId)) !== sibling.snapshot)
          problems.push("the sibling group's scan, findings or history changed");
        if (problems.length) throw new Error(problems.join("; "));
      });
    }

    report(
      "group-delete",
      `${tally.figure} group hard deletes under concurrent scans (${runningAtDelete} running, ${queuedAtDelete} queued at the delete), ` +
        `scan submissions and triage left no row referencing the group, ` +
        `${late} had results reappear once the worker was idle, and every deleted scan answered 404; ` +
        `concurrent requests answered PUT finding ${JSON.stringify(statuses["PUT finding"])}, POST /scan ` +
        `${JSON.stringify(statuses["POST /scan"])}, DELETE ${JSON.stringify(statuses.DELETE)}`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
  },
  budgetMs(N, 25_000),
);

it("answers requests racing the delete with 200 (before) or 404 (after), never 500", () => {
  const unexpected = (what: string) => Object.keys(statuses[what] ?? {}).filter((s) => s !== "200" && s !== "404");
  expect({ put: unexpected("PUT finding"), post: unexpected("POST /scan"), del: Object.keys(statuses.DELETE ?? {}) }).toEqual({
    put: [],
    post: [],
    del: ["200"],
  });
});

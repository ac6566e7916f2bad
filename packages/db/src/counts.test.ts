// Real PostgreSQL (a database made for this suite) and real PGlite, which `npm start` runs on.
import fs from "node:fs";
import { createTestDatabase, tmpDir, type TestDatabase } from "@ax/testkit";
import { bootstrap } from "./bootstrap";
import { openDatabase, type DbHandle } from "./client";
import { scanCounts } from "./counts";
import { updateFinding } from "./findings";
import { newId } from "./ids";
import { migrate } from "./migrate";
import type { NewFinding } from "./schema";
import { createScan, findOrCreateProject } from "./scans";

const ZERO = {
  CRITICAL: 0,
  HIGH: 0,
  MEDIUM: 0,
  LOW: 0,
  INFO: 0,
  total: 0,
  new: 0,
  fixed: 0,
  suppressed: 0,
  introduced: 0,
  to_review: 0,
  true_positive: 0,
  false_positive: 0,
  accepted_risk: 0,
  marked_fixed: 0,
};

describe.each(["postgres", "pglite"] as const)("scan counts on %s", (kind) => {
  let database: TestDatabase | undefined;
  let handle: DbHandle;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tmpDir("ax-counts-");
    if (kind === "postgres") database = await createTestDatabase();
    handle = await openDatabase({ url: database?.url, dataDir });
    await migrate(handle);
  });
  afterAll(async () => {
    await handle.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let n = 0;
  /** An organization with one project; its scans, completed or in the given state. */
  async function tenant() {
    const t = await bootstrap(handle.db, {
      orgName: `Org ${++n}`,
      email: `c${n}-${kind}@x.test`,
      displayName: "C",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///repo",
      name: "repo",
    });
    const scan = async (state = "completed") => {
      const { scan: s } = await createScan(handle.db, {
        organizationId: t.organization_id,
        groupId: t.group_id,
        projectId: project.id,
        createdBy: t.user_id,
        gitUri: "file:///repo",
        branch: null,
        idempotencyKey: null,
        requestHash: null,
      });
      await handle.db.updateTable("scans").set({ state }).where("id", "=", s.id).execute();
      return s.id;
    };
    /** Finding rows as a stored scan holds them (written directly: this tests the counting, not the storing). */
    const findings = async (scanId: string, rows: Partial<NewFinding>[]) => {
      const ids = rows.map(() => newId());
      await handle.db
        .insertInto("findings")
        .values(
          rows.map((r, i) => ({
            id: ids[i]!,
            scan_id: scanId,
            organization_id: t.organization_id,
            project_id: project.id,
            analyzer: "ast-grep",
            rule_id: "r",
            title: "t",
            message: "m",
            cwe_id: null,
            cwe_name: null,
            owasp: null,
            file: "a.js",
            start_line: i + 1,
            end_line: i + 1,
            start_column: 1,
            end_column: 2,
            snippet: "x",
            fingerprint: `fp${i}`,
            identity: `fp${i}`,
            first_seen_scan_id: scanId,
            severity: "HIGH",
            confidence: "HIGH",
            likelihood: null,
            impact: null,
            remediation: null,
            reason: null,
            raw: null,
            ...r,
          })),
        )
        .execute();
      return ids;
    };
    return { org: t.organization_id, user: t.user_id, scan, findings };
  }
  const suppression = JSON.stringify({ kind: "inline", reason: "test data", line: 1 });

  it("puts every row in one place: absent in fixed, suppressed in suppressed, the rest by current status, open ones by severity", async () => {
    const t = await tenant();
    const scan = await t.scan();
    await t.findings(scan, [
      { severity: "HIGH", baseline_state: "new", introduced: true },
      { severity: "CRITICAL", status: "TRUE POSITIVE", baseline_state: "unchanged", introduced: false },
      { severity: "MEDIUM", status: "FALSE POSITIVE", baseline_state: "new", introduced: true },
      { severity: "LOW", status: "ACCEPTED RISK", baseline_state: "unchanged" },
      { severity: "HIGH", status: "FIXED", baseline_state: "unchanged" },
      { severity: "MEDIUM", baseline_state: "new", suppression, introduced: true },
      // Gone since the previous scan: it keeps its old suppression, and is still only `fixed`.
      { severity: "HIGH", status: "FIXED", baseline_state: "absent", suppression },
      { severity: "INFO", status: "TRUE POSITIVE", baseline_state: "absent" },
    ]);
    const counts = await scanCounts(handle.db, t.org, [scan]);
    expect(counts.get(scan)).toEqual({
      ...ZERO,
      CRITICAL: 1,
      HIGH: 1,
      total: 2,
      new: 1,
      introduced: 1,
      fixed: 2,
      suppressed: 1,
      to_review: 1,
      true_positive: 1,
      false_positive: 1,
      accepted_risk: 1,
      marked_fixed: 1,
    });
  });

  it("follows triage: a status or severity a reviewer changes moves the finding", async () => {
    const t = await tenant();
    const scan = await t.scan();
    const [a, b] = await t.findings(scan, [{ severity: "HIGH" }, { severity: "MEDIUM" }]);
    const counts = async () => (await scanCounts(handle.db, t.org, [scan])).get(scan);
    expect(await counts()).toEqual({ ...ZERO, HIGH: 1, MEDIUM: 1, total: 2, new: 2, to_review: 2 });

    const triage = (findingId: string, patch: Parameters<typeof updateFinding>[1]["patch"]) =>
      updateFinding(handle.db, { organizationId: t.org, scanId: scan, findingId, patch, userId: t.user });
    expect((await triage(a!, { status: "FALSE POSITIVE" })).kind).toBe("updated");
    expect(await counts()).toEqual({ ...ZERO, MEDIUM: 1, total: 1, new: 1, to_review: 1, false_positive: 1 });
    expect((await triage(b!, { severity: "CRITICAL" })).kind).toBe("updated");
    expect(await counts()).toEqual({ ...ZERO, CRITICAL: 1, total: 1, new: 1, to_review: 1, false_positive: 1 });
    expect((await triage(b!, { status: "TRUE POSITIVE" })).kind).toBe("updated");
    expect(await counts()).toEqual({ ...ZERO, CRITICAL: 1, total: 1, new: 1, true_positive: 1, false_positive: 1 });
    // Reopened: back in its severity.
    expect((await triage(a!, { status: "TO REVIEW" })).kind).toBe("updated");
    expect(await counts()).toEqual({ ...ZERO, CRITICAL: 1, HIGH: 1, total: 2, new: 2, to_review: 1, true_positive: 1 });
  });

  it("gives zeros for a completed scan without findings, {} for one that stored nothing, and a page in one call", async () => {
    const t = await tenant();
    const empty = await t.scan();
    const withFindings = await t.scan();
    await t.findings(withFindings, [{ severity: "LOW" }]);
    const [queued, running, failed, cancelled] = [
      await t.scan("queued"),
      await t.scan("running"),
      await t.scan("failed"),
      await t.scan("cancelled"),
    ];
    const counts = await scanCounts(handle.db, t.org, [empty, withFindings, queued, running, failed, cancelled, empty]);
    expect(Object.fromEntries(counts)).toEqual({
      [empty]: ZERO,
      [withFindings]: { ...ZERO, LOW: 1, total: 1, new: 1, to_review: 1 },
      [queued]: {},
      [running]: {},
      [failed]: {},
      [cancelled]: {},
    });
    expect((await scanCounts(handle.db, t.org, [])).size).toBe(0);
  });

  it("is scoped to the organization: another organization's scan id gives nothing", async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const myScan = await mine.scan();
    const theirScan = await theirs.scan();
    await mine.findings(myScan, [{ severity: "HIGH" }]);
    await theirs.findings(theirScan, [{ severity: "CRITICAL" }, { severity: "CRITICAL" }]);
    const counts = await scanCounts(handle.db, mine.org, [myScan, theirScan, newId()]);
    expect([...counts.keys()]).toEqual([myScan]);
    expect(counts.get(myScan)).toMatchObject({ HIGH: 1, CRITICAL: 0, total: 1 });
    expect((await scanCounts(handle.db, theirs.org, [theirScan])).get(theirScan)).toMatchObject({ CRITICAL: 2, total: 2 });
  });
});

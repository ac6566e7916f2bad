// Real PostgreSQL (a database made for this suite) and real PGlite, which `npm start` runs on.
import fs from "node:fs";
import type { FindingUpdateBody } from "@ax/contracts";
import { createTestDatabase, tmpDir, type TestDatabase } from "@ax/testkit";
import { insertAiRequest, upsertFeedback } from "./ai";
import { orgLabelRows, orgLabelSignature, triagedLabels, voteLabels } from "./ai-learning";
import { bootstrap } from "./bootstrap";
import { openDatabase, type DbHandle } from "./client";
import { updateFinding } from "./findings";
import { newId } from "./ids";
import { migrate } from "./migrate";
import { createScan, findOrCreateProject } from "./scans";

describe.each(["postgres", "pglite"] as const)("organization labels on %s", (kind) => {
  let database: TestDatabase | undefined;
  let handle: DbHandle;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tmpDir("ax-learning-");
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
  /** An organization with one project and a completed scan of three findings. */
  async function tenant() {
    const t = await bootstrap(handle.db, {
      orgName: `Org ${++n}`,
      email: `l${n}-${kind}@x.test`,
      displayName: "L",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///repo",
      name: "repo",
    });
    const { scan } = await createScan(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      projectId: project.id,
      createdBy: t.user_id,
      gitUri: "file:///repo",
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    });
    const ids = [0, 1, 2].map(() => newId());
    await handle.db
      .insertInto("findings")
      .values(
        ids.map((id, i) => ({
          id,
          scan_id: scan.id,
          organization_id: t.organization_id,
          project_id: project.id,
          analyzer: "ast-grep",
          rule_id: `rule-${i}`,
          title: "t",
          message: "m",
          cwe_id: "CWE-89",
          cwe_name: null,
          owasp: null,
          file: `src/a${i}/f.js`,
          start_line: i + 1,
          end_line: i + 1,
          start_column: 1,
          end_column: 2,
          snippet: `db.query("q" + x${i})`,
          fingerprint: `fp${i}`,
          identity: `id${i}`,
          first_seen_scan_id: scan.id,
          severity: "HIGH",
          confidence: "HIGH",
          likelihood: null,
          impact: null,
          remediation: null,
          reason: null,
          raw: null,
          ai_class: "TRUE_POSITIVE",
          ai_confidence: 0.8,
          ai_model: "m",
        })),
      )
      .execute();
    const put = (i: number, status: NonNullable<FindingUpdateBody["status"]>) =>
      updateFinding(handle.db, {
        organizationId: t.organization_id,
        scanId: scan.id,
        findingId: ids[i]!,
        patch: { status },
        userId: t.user_id,
      });
    return { t, project, put };
  }

  it("reads the findings a reviewer marked true or false positive, once per identity, scoped to the organization", async () => {
    const a = await tenant();
    const b = await tenant();
    const empty = await orgLabelSignature(handle.db, a.t.organization_id);
    await a.put(0, "FALSE POSITIVE");
    await a.put(1, "TRUE POSITIVE");
    await a.put(2, "ACCEPTED RISK");
    await a.put(0, "TRUE POSITIVE");
    await a.put(0, "FALSE POSITIVE");
    const labels = await triagedLabels(handle.db, a.t.organization_id);
    expect(labels.map((l) => [l.rule_id, l.truePositive, l.fingerprint, l.projectId]).sort()).toEqual([
      ["rule-0", false, "fp0", a.project.id],
      ["rule-1", true, "fp1", a.project.id],
    ]);
    expect(labels[0]).toMatchObject({ kind: "finding", cwe_id: "CWE-89", pTrue: 0.8 });
    expect(await triagedLabels(handle.db, b.t.organization_id)).toEqual([]);
    expect(await orgLabelSignature(handle.db, a.t.organization_id)).not.toBe(empty);
    expect(await orgLabelSignature(handle.db, b.t.organization_id)).toBe(empty.replace(/^\d+\|[^|]*/, "0|"));
  });

  it("reads votes on review answers as labels: true confirms the class, false says the other was right", async () => {
    const a = await tenant();
    const b = await tenant();
    const review = async (cls: string, feedback: boolean, org = a.t) => {
      const id = newId();
      await insertAiRequest(handle.db, {
        id,
        organizationId: org.organization_id,
        groupId: org.group_id,
        userId: org.user_id,
        kind: "review",
        model: "m",
        cweId: "CWE-78",
        class: cls,
        confidence: 0.7,
        input: { code: "os.system(cmd)", cwe_id: "CWE-78", file: "t/run.py", line: null },
      });
      await upsertFeedback(handle.db, {
        requestId: id,
        userId: org.user_id,
        organizationId: org.organization_id,
        groupId: org.group_id,
        feedback,
        relayStatus: "disabled",
        relayError: null,
      });
    };
    await review("TRUE_POSITIVE", false);
    await review("FALSE_POSITIVE", false);
    await review("TRUE_POSITIVE", true);
    await review("TRUE_POSITIVE", true, b.t);
    const votes = await voteLabels(handle.db, a.t.organization_id);
    expect(votes.map((v) => [v.truePositive, Math.round(v.pTrue! * 1000) / 1000]).sort()).toEqual([
      [false, 0.7],
      [true, 0.3],
      [true, 0.7],
    ]);
    expect(votes[0]).toMatchObject({ kind: "vote", cwe_id: "CWE-78", file: "t/run.py", code: "os.system(cmd)" });
    expect((await orgLabelRows(handle.db, b.t.organization_id)).map((r) => r.kind)).toEqual(["vote"]);
  });
});

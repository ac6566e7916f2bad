// Real PostgreSQL, real git and the real analyzers; the job handler is called directly.
import {
  bootstrap,
  cancelScan,
  createScan,
  deleteGroup,
  findOrCreateProject,
  getState,
  markRunning,
  storeScanResults,
  createGroup,
  updateFinding,
} from "@ax/db";
import { createLogger } from "@ax/logger";
import { commitFiles, createTestStack, makeGitRepo, waitFor, type TestStack } from "@ax/testkit";
import { processScan, PermanentScanError } from "./process-scan";

let stack: TestStack;
const logger = createLogger({ level: "error", format: "json", silent: true });

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());

async function newScan(gitUri: string, groupName?: string, tenant = stack.tenant) {
  const db = stack.handle.db;
  const t = tenant;
  const groupId = groupName ? (await createGroup(db, t.organization_id, groupName))!.id : t.group_id;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId, gitUrl: gitUri, name: "p" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri,
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  return { scan, groupId };
}

const deps = () => ({ db: stack.handle.db, config: stack.config, logger });
const once = { attempt: 1, maxAttempts: 3 };

describe("processScan", () => {
  it("completes a scan and refuses to run it a second time", async () => {
    const repo = makeGitRepo({ "a.py": "import yaml\n\nyaml.load(open('x'))\n" });
    const { scan } = await newScan(repo);
    const data = { scan_id: scan.id, organization_id: scan.organization_id };
    expect(await processScan(deps(), data, once)).toBe("completed");
    const count = await stack.handle.db
      .selectFrom("findings")
      .select(({ fn }) => fn.countAll<string>().as("n"))
      .where("scan_id", "=", scan.id)
      .executeTakeFirstOrThrow();
    expect(await processScan(deps(), data, once)).toBe("discarded");
    const again = await stack.handle.db
      .selectFrom("findings")
      .select(({ fn }) => fn.countAll<string>().as("n"))
      .where("scan_id", "=", scan.id)
      .executeTakeFirstOrThrow();
    expect(again.n).toBe(count.n);
  });

  it("discards the late result of a scan whose group was deleted, without error", async () => {
    const repo = makeGitRepo({ "a.js": "eval(x);\n" });
    const { scan, groupId } = await newScan(repo, "late");
    await markRunning(stack.handle.db, scan.id);
    await deleteGroup(stack.handle.db, scan.organization_id, groupId);
    const outcome = await storeScanResults(stack.handle.db, {
      scanId: scan.id,
      projectId: scan.project_id,
      organizationId: scan.organization_id,
      findings: [],
      analyzers: [],
      languages: [],
    });
    expect(outcome.stored).toBe(false);
    expect(await processScan(deps(), { scan_id: scan.id, organization_id: scan.organization_id }, once)).toBe("discarded");
  });

  it("stops a running scan when its group is deleted mid-way", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++)
      files[`src/f${i}.js`] = `const q = "SELECT * FROM t WHERE id = " + req.query.id;\ndb.query(q);\n`.repeat(20);
    const repo = makeGitRepo(files);
    const { scan, groupId } = await newScan(repo, "mid-way");
    const run = processScan(deps(), { scan_id: scan.id, organization_id: scan.organization_id }, once);
    await waitFor(async () => (await getState(stack.handle.db, scan.id)) === "running", { intervalMs: 10 });
    await deleteGroup(stack.handle.db, scan.organization_id, groupId);
    await expect(run).resolves.toBe("discarded");
  });

  it("stops a running scan when it is cancelled", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`src/f${i}.py`] = "import yaml\nyaml.load(data)\n".repeat(40);
    const repo = makeGitRepo(files);
    const { scan } = await newScan(repo);
    const run = processScan(deps(), { scan_id: scan.id, organization_id: scan.organization_id }, once);
    await waitFor(async () => (await getState(stack.handle.db, scan.id)) === "running", { intervalMs: 10 });
    expect(await cancelScan(stack.handle.db, scan.organization_id, scan.id)).toBeDefined();
    await expect(run).resolves.toBe("discarded");
    const findings = await stack.handle.db.selectFrom("findings").select("id").where("scan_id", "=", scan.id).execute();
    expect(findings).toEqual([]);
    expect(await getState(stack.handle.db, scan.id)).toBe("cancelled");
  });

  it("fails a scan of a missing repository for good, with a reason", async () => {
    const { scan } = await newScan("/nonexistent/repo-path");
    await expect(processScan(deps(), { scan_id: scan.id, organization_id: scan.organization_id }, once)).rejects.toBeInstanceOf(
      PermanentScanError,
    );
    const row = await stack.handle.db.selectFrom("scans").select(["state", "error"]).where("id", "=", scan.id).executeTakeFirstOrThrow();
    expect(row.state).toBe("failed");
    expect(row.error).toEqual(expect.any(String));
  });

  it("reuses the analysis of a commit scanned before: same findings, triage carried, never across organizations", async () => {
    const db = stack.handle.db;
    const repo = makeGitRepo({ "a.py": "import yaml\n\nyaml.load(open('x'))\n", "b.js": "eval(req.query.x);\n" });
    const scanned = async (tenant = stack.tenant) => {
      const { scan } = await newScan(repo, undefined, tenant);
      expect(await processScan(deps(), { scan_id: scan.id, organization_id: scan.organization_id }, once)).toBe("completed");
      const row = await db.selectFrom("scans").selectAll().where("id", "=", scan.id).executeTakeFirstOrThrow();
      const findings = await db.selectFrom("findings").selectAll().where("scan_id", "=", scan.id).orderBy("fingerprint").execute();
      return {
        row,
        findings,
        analyzers: row.analyzers as unknown as {
          name: string;
          cached_files?: number;
          files?: number;
          duration_ms: number;
          status: string;
        }[],
      };
    };
    const first = await scanned();
    expect(first.findings.length).toBeGreaterThan(0);
    const triaged = first.findings[0]!;
    expect(
      (
        await updateFinding(db, {
          organizationId: triaged.organization_id,
          scanId: triaged.scan_id,
          findingId: triaged.id,
          patch: { status: "FALSE POSITIVE" },
          userId: stack.tenant.user_id,
        })
      ).kind,
    ).toBe("updated");

    const second = await scanned();
    const ran = first.analyzers.filter((a) => a.status === "completed");
    expect(ran.length).toBeGreaterThan(0);
    // Nothing ran again: every analyzer's files came from the earlier analysis.
    for (const a of second.analyzers.filter((r) => r.status === "completed"))
      expect(a).toMatchObject({ duration_ms: 0, cached_files: a.files });
    const shape = (f: (typeof first.findings)[number]) => [
      f.fingerprint,
      f.rule_id,
      f.file,
      f.start_line,
      f.severity,
      f.confidence,
      f.dataflow,
      f.sources,
      f.ai_class,
    ];
    expect(second.findings.map(shape)).toEqual(first.findings.map(shape));
    expect(second.findings.find((f) => f.fingerprint === triaged.fingerprint)?.status).toBe("FALSE POSITIVE");
    expect(second.row.counts).toEqual({ ...(first.row.counts as object), new: 0 });
    // Taken without cloning: the commit and branch come from the remote's answer.
    expect([second.row.commit_sha, second.row.branch]).toEqual([first.row.commit_sha, first.row.branch]);

    // Another organization scanning the same commit analyses it itself.
    const other = await bootstrap(db, {
      orgName: "Other",
      email: "other@other.test",
      displayName: "O",
      identityProvider: "github",
      expiresInDays: 1,
    });
    const theirs = await scanned(other);
    for (const a of theirs.analyzers.filter((r) => r.status === "completed")) expect(a.cached_files).toBe(0);
    expect(theirs.findings.map(shape)).toEqual(first.findings.map(shape));
  });

  it("labels a new commit's findings as a scan without any cache does, reusing kept labels", async () => {
    const db = stack.handle.db;
    const repo = makeGitRepo({
      "a/x.py": "import yaml\n\nyaml.load(open('x'))\n",
      "b/y.js": "eval(req.query.x);\n",
      "b/z.js": "exec(req.body.cmd);\n",
    });
    const run = async (config = stack.config, tenant = stack.tenant) => {
      const { scan } = await newScan(repo, undefined, tenant);
      expect(await processScan({ ...deps(), config }, { scan_id: scan.id, organization_id: scan.organization_id }, once)).toBe("completed");
      // Not the earlier scan's findings reported FIXED: they keep the labels they had.
      return db
        .selectFrom("findings")
        .select(["fingerprint", "ai_class", "ai_confidence", "ai_model"])
        .where("scan_id", "=", scan.id)
        .where("baseline_state", "!=", "absent")
        .orderBy("fingerprint")
        .execute();
    };
    // An organization of its own, without triage: its labels are the model's alone (org-learning.ts
    // would otherwise move them by whatever earlier tests triaged), as in the fresh one below.
    const mine = await bootstrap(db, {
      orgName: "Mine",
      email: "mine@mine.test",
      displayName: "M",
      identityProvider: "github",
      expiresInDays: 1,
    });
    await run(stack.config, mine);
    commitFiles(repo, { "b/y.js": "const q = req.query.x;\neval(q);\n" }, "change one file");
    const cached = await run(stack.config, mine);
    const other = await bootstrap(db, {
      orgName: "Fresh",
      email: "fresh@fresh.test",
      displayName: "F",
      identityProvider: "github",
      expiresInDays: 1,
    });
    const uncached = await run({ ...stack.config, scan: { ...stack.config.scan, analysisCache: false } }, other);
    expect(cached.length).toBeGreaterThan(0);
    expect(cached.every((f) => f.ai_class !== null)).toBe(true);
    expect(cached).toEqual(uncached);
  });
});

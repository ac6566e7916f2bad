/**
 * What the API fuzzer (src/fuzz.test.ts) reads and writes against: a tenant with a completed
 * scan, a finding, a review request and the ids of all of it, and a completed public scan.
 */
import { SEED_FINDING } from "@ax/testkit/api";
import type { NormalizedFinding } from "@ax/contracts";
import {
  PUBLIC_ORG_KEY,
  createScan,
  ensureInternalOrganization,
  findOrCreateProject,
  createWebhook,
  insertAiRequest,
  listTokens,
  newId,
  markRunning,
  storeScanResults,
  type BootstrapResult,
  type Db,
} from "@ax/db";
import type { IdName } from "./fuzz-support";

export type Ids = Record<IdName, string>;

const seedFinding: NormalizedFinding = {
  ...SEED_FINDING,
  // A non-null verdict, so that its response schema is checked too.
  dataflow: {
    status: "confirmed",
    source_kind: "remote",
    trace: [
      { file: "src/routes.js", line: 8, column: 14, kind: "source", label: "HTTP request parameter", code: "const id = req.query.id;" },
      { file: "src/db.js", line: 3, column: 1, kind: "sink", label: "SQL query", code: "db.query('x' + id)" },
    ],
    confirms: [{ analyzer: "ast-grep", rule_id: "js-sql-injection" }],
  },
};

/** A completed scan with one finding, a review request and the ids of all of it. */
export async function seedTenant(db: Db, t: BootstrapResult): Promise<Ids> {
  const project = await findOrCreateProject(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    gitUrl: "file:///repo",
    name: "repo",
  });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: "file:///repo",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings: [seedFinding],
    analyzers: [],
    languages: ["javascript"],
  });
  const finding = await db.selectFrom("findings").select("id").where("scan_id", "=", scan.id).executeTakeFirstOrThrow();
  const requestId = newId();
  await insertAiRequest(db, {
    id: requestId,
    organizationId: t.organization_id,
    groupId: null,
    userId: t.user_id,
    kind: "review",
    model: "m",
    input: { code: "x" },
  });
  const token = (await listTokens(db, t.user_id))[0]!;
  const webhook = await createWebhook(db, {
    organizationId: t.organization_id,
    url: "https://hooks.example.test/ax",
    events: ["scan.completed", "group.deleted"],
    secret: "whsec_seed",
    createdBy: t.user_id,
  });
  // job_id: the Admin operations on one failed job get a fresh one (FRESH); anything else, none.
  return {
    organization_id: t.organization_id,
    group_id: t.group_id,
    project_id: project.id,
    scan_id: scan.id,
    finding_id: finding.id,
    token_id: token.id,
    request_id: requestId,
    webhook_id: webhook.id,
    job_id: "no-such-job",
  };
}

/** A completed scan of the internal public organization, as POST /public/scan and a worker would leave it. */
export async function seedPublicScan(db: Db): Promise<string> {
  const { organizationId, groupId } = await ensureInternalOrganization(db, PUBLIC_ORG_KEY);
  const project = await findOrCreateProject(db, { organizationId, groupId, gitUrl: "https://git.example.test/public/repo", name: "repo" });
  const { scan } = await createScan(db, {
    organizationId,
    groupId,
    projectId: project.id,
    createdBy: null,
    gitUri: "https://git.example.test/public/repo",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId,
    findings: [seedFinding],
    analyzers: [],
    languages: ["javascript"],
  });
  return scan.id;
}

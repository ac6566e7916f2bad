// Real PostgreSQL, Redis, git and analyzers, and the real disk: what a worker keeps of a
// project must be gone from it once the project is deleted, and nothing else may be.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createGroup, createScan, deleteGroup, findOrCreateProject, getState } from "@ax/db";
import { createLogger } from "@ax/logger";
import { JobQueue, producerConnection, publishProjectsDeleted } from "@ax/queue";
import { createTestStack, makeGitRepo, tmpDir, waitFor, type TestStack } from "@ax/testkit";
import { processScan } from "./process-scan";
import { projectStateDir, startProjectStateJanitor, sweepProjectState } from "./project-state";
import { startWorker } from "./worker";

let stack: TestStack;
const logger = createLogger({ level: "error", format: "json", silent: true });
beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());

const deps = () => ({ db: stack.handle.db, config: stack.config, logger });
const workspace = () => stack.config.worker.workspaceDir;
const stateRoot = () => path.join(workspace(), ".analyzer-state");
const org = () => stack.tenant.organization_id;

async function newScan(gitUri: string, groupName: string) {
  const db = stack.handle.db;
  const t = stack.tenant;
  const group = (await createGroup(db, t.organization_id, groupName))!;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: group.id, gitUrl: gitUri, name: groupName });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: group.id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri,
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  return { scan, group, project, stateDir: projectStateDir(workspace(), t.organization_id, project.id) };
}

async function scanned(files: Record<string, string>, groupName: string) {
  const s = await newScan(makeGitRepo(files), groupName);
  expect(await processScan(deps(), { scan_id: s.scan.id, organization_id: s.scan.organization_id }, { attempt: 1, maxAttempts: 1 })).toBe(
    "completed",
  );
  return s;
}

const cacheRows = (projectId: string) =>
  stack.handle.db.selectFrom("analysis_cache").select("analyzer").where("project_id", "=", projectId).execute();
const scanWorkspaces = () => fs.readdirSync(workspace()).filter((n) => n.startsWith("scan-"));

it("removes a deleted project's clone, analyzer state and cached analyses on the delete notice, and nothing of the others'", async () => {
  const code = {
    "src/db.js": 'const q = "SELECT * FROM t WHERE id = " + req.query.id;\ndb.query(q);\n',
    "c/copy.c": "#include <string.h>\nvoid f(char *s) { char b[8]; strcpy(b, s); }\n",
  };
  const doomed = await scanned(code, "doomed");
  const kept = await scanned(code, "kept");
  // The full checkout of the repository, and cppcheck's build directory, on this worker's disk.
  expect(fs.readFileSync(path.join(doomed.stateDir, "git-repo", "tree", "src", "db.js"), "utf8")).toBe(code["src/db.js"]);
  expect(fs.readdirSync(doomed.stateDir).some((n) => n.startsWith("cppcheck-build-"))).toBe(true);
  expect((await cacheRows(doomed.project.id)).length).toBeGreaterThan(0);

  const janitor = await startProjectStateJanitor(deps(), { everyMs: 3_600_000 });
  const redis = producerConnection(stack.config.redis.url);
  try {
    const deleted = await deleteGroup(stack.handle.db, org(), doomed.group.id);
    // What the API does after the delete committed (packages/api-server/src/services/groups.ts).
    expect(
      await publishProjectsDeleted(redis, stack.config.redis.queuePrefix, { organization_id: org(), project_ids: deleted!.projectIds }),
    ).toBeGreaterThan(0);
    await waitFor(async () => !fs.existsSync(doomed.stateDir), { what: "the deleted project's state to go" });
  } finally {
    janitor.close();
    redis.disconnect();
  }
  expect(await cacheRows(doomed.project.id)).toEqual([]);
  expect(fs.readFileSync(path.join(kept.stateDir, "git-repo", "tree", "src", "db.js"), "utf8")).toBe(code["src/db.js"]);
  expect((await cacheRows(kept.project.id)).length).toBeGreaterThan(0);
  expect(scanWorkspaces()).toEqual([]);
}, 120_000);

it("leaves nothing on disk of a project deleted while its scan runs, once the scan is discarded", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 400; i++)
    files[`src/f${i}.js`] = `const q = "SELECT * FROM t WHERE id = " + req.query.id;\ndb.query(q);\n`.repeat(20);
  const s = await newScan(makeGitRepo(files), "mid-scan");
  const worker = await startWorker(deps());
  const redis = producerConnection(stack.config.redis.url);
  const queue = new JobQueue(redis, { redisUrl: stack.config.redis.url, prefix: stack.config.redis.queuePrefix, attempts: 1 });
  try {
    await queue.enqueue("scan.run", { scan_id: s.scan.id, organization_id: org() }, { jobId: s.scan.id });
    await waitFor(async () => (await getState(stack.handle.db, s.scan.id)) === "running" && fs.existsSync(s.stateDir), {
      intervalMs: 10,
      what: "the scan to claim its state",
    });
    // No notice: the scan itself must clean up what it may put back after the delete.
    await deleteGroup(stack.handle.db, org(), s.group.id);
    const job = await queue.queue("scans").getJob(s.scan.id);
    await waitFor(async () => (await job!.getState()) === "completed", { timeoutMs: 60_000, what: "the job to end" });
  } finally {
    await worker.close(10_000);
    await queue.close();
    redis.disconnect();
  }
  expect(fs.existsSync(s.stateDir)).toBe(false);
  expect(scanWorkspaces()).toEqual([]);
}, 120_000);

it("sweeps at start and periodically: deleted projects go; live projects, other deployments' organizations and anything not named by ids stay", async () => {
  const live = await scanned({ "a.py": "import yaml\nyaml.load(open('x'))\n" }, "live");
  const put = (...parts: string[]) => {
    const file = path.join(stateRoot(), ...parts, "git-repo", "tree", "a.py");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "secret code\n");
    return path.join(stateRoot(), ...parts);
  };
  const goneProject = put(org(), randomUUID());
  // An organization this database does not have: another deployment's sharing the directory.
  const otherDeployment = put(randomUUID(), randomUUID());
  const notIds = [put("not-an-id"), put(org(), "not-an-id")];
  // A link named like a project: not something a worker made, so neither it nor its target goes.
  const outside = tmpDir("ax-outside-");
  fs.writeFileSync(path.join(outside, "keep.txt"), "keep\n");
  const link = path.join(stateRoot(), org(), randomUUID());
  fs.symlinkSync(outside, link);

  const worker = await startWorker(deps());
  await worker.close(10_000);
  expect(fs.existsSync(goneProject)).toBe(false);
  expect(fs.existsSync(otherDeployment)).toBe(true);
  expect(fs.existsSync(path.join(live.stateDir, "git-repo"))).toBe(true);
  expect(notIds.filter((d) => !fs.existsSync(d))).toEqual([]);
  expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
  expect(fs.readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("keep\n");

  // Periodically, for notices missed (published while a worker was down or cut off).
  const janitor = await startProjectStateJanitor(deps(), { everyMs: 200 });
  try {
    const later = put(org(), randomUUID());
    await waitFor(async () => !fs.existsSync(later), { what: "the periodic sweep" });
  } finally {
    janitor.close();
  }
  expect(fs.existsSync(path.join(live.stateDir, "git-repo"))).toBe(true);
  // Refused outright: an id is the only thing a scope may name.
  expect(await sweepProjectState(deps(), { organizationId: ".." })).toBe(0);
  expect(() => projectStateDir(workspace(), org(), "../..")).toThrow();
  fs.rmSync(outside, { recursive: true, force: true });
}, 120_000);

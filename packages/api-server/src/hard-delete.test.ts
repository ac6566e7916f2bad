// Real PostgreSQL, Redis, worker, git and analyzers, and the real disk: a group hard delete
// through the API removes what the worker kept of the group's projects, not only their rows.
import fs from "node:fs";
import path from "node:path";
import request from "supertest";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({ worker: true });
});
afterAll(() => h.close());

const key = () => ({ "X-AX-KEY": h.tenant.token });
const org = () => h.tenant.organization_id;

async function scanInGroup(name: string, files: Record<string, string>) {
  const group = (await request(h.app).post(`/api/v2/organization/${org()}/group`).set(key()).send({ name })).body.group_id as string;
  const res = await request(h.app)
    .post(`/api/v2/scan?group_id=${group}`)
    .set(key())
    .send({ git_uri: makeGitRepo(files) });
  expect(res.status).toBe(200);
  const scanId = res.body.scan_id as string;
  await waitFor(async () => (await request(h.app).get(`/api/v2/scan/${scanId}`).set(key())).body.state === "completed", {
    timeoutMs: 60_000,
    what: `scan ${scanId}`,
  });
  const { project_id } = await h.stack.handle.db
    .selectFrom("scans")
    .select("project_id")
    .where("id", "=", scanId)
    .executeTakeFirstOrThrow();
  const stateDir = path.join(h.stack.config.worker.workspaceDir, ".analyzer-state", org(), project_id);
  return { group, projectId: project_id, stateDir };
}

const cached = (projectId: string) =>
  h.stack.handle.db.selectFrom("analysis_cache").select("analyzer").where("project_id", "=", projectId).execute();

it("removes the deleted projects' clones, analyzer state and cached analyses from the worker, and keeps the others'", async () => {
  const files = {
    "src/db.js": 'const q = "SELECT * FROM t WHERE id = " + req.query.id;\ndb.query(q);\n',
    "app.py": "import yaml\nyaml.load(open('x'))\n",
  };
  const doomed = await scanInGroup("doomed", files);
  const kept = await scanInGroup("kept", files);
  // The report: the project's full clone sits in the worker's state folder.
  expect(fs.readFileSync(path.join(doomed.stateDir, "git-repo", "tree", "src", "db.js"), "utf8")).toBe(files["src/db.js"]);
  expect((await cached(doomed.projectId)).length).toBeGreaterThan(0);

  const r = await request(h.app).delete(`/api/v2/organization/${org()}/group/${doomed.group}`).set(key());
  expect(r.status).toBe(200);
  expect(r.body.deleted).toMatchObject({ projects: 1, scans: 1 });
  // The rows go in the delete's transaction; the worker's disk on its notice.
  expect(await cached(doomed.projectId)).toEqual([]);
  await waitFor(async () => !fs.existsSync(doomed.stateDir), { what: "the worker to remove the deleted project's state" });
  expect(fs.readFileSync(path.join(kept.stateDir, "git-repo", "tree", "src", "db.js"), "utf8")).toBe(files["src/db.js"]);
  expect((await cached(kept.projectId)).length).toBeGreaterThan(0);
  expect(fs.readdirSync(h.stack.config.worker.workspaceDir).filter((n) => n.startsWith("scan-"))).toEqual([]);
}, 120_000);

// Real PostgreSQL (a database made for this suite) and real PGlite: the migration that makes
// the cache per project runs on both.
import fs from "node:fs";
import { createTestDatabase, tmpDir, type TestDatabase } from "@ax/testkit";
import { PgAnalysisCache } from "./analysis-cache";
import { bootstrap } from "./bootstrap";
import { openDatabase, type DbHandle } from "./client";
import { migrate } from "./migrate";
import { createGroup, deleteGroup } from "./orgs";
import { findOrCreateProject } from "./scans";

describe.each(["postgres", "pglite"] as const)("analysis cache on %s", (kind) => {
  let database: TestDatabase | undefined;
  let handle: DbHandle;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tmpDir("ax-db-cache-");
    if (kind === "postgres") database = await createTestDatabase();
    handle = await openDatabase({ url: database?.url, dataDir });
    expect(await migrate(handle)).toContain("0008_project_state");
  });
  afterAll(async () => {
    await handle.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps entries per project and deletes a project's with its group, not its sibling's", async () => {
    const db = handle.db;
    const t = await bootstrap(db, {
      orgName: "Cache",
      email: `c-${kind}@x.test`,
      displayName: "C",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const doomed = (await createGroup(db, t.organization_id, "doomed"))!;
    const sibling = (await createGroup(db, t.organization_id, "sibling"))!;
    // The same repository in both groups: two projects, whose caches are still apart.
    const gitUrl = "https://example.test/shop.git";
    const a = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: doomed.id, gitUrl, name: "shop" });
    const b = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: sibling.id, gitUrl, name: "shop" });
    const cacheA = new PgAnalysisCache(db, { organizationId: t.organization_id, projectId: a.id });
    const cacheB = new PgAnalysisCache(db, { organizationId: t.organization_id, projectId: b.id });
    const finding = { rule_id: "js-eval", snippet: "eval(req.query.x)" };

    await cacheA.put("ast-grep", "1", new Map([["blob-1", [finding]]]));
    expect(await cacheB.get("ast-grep", "1", ["blob-1"])).toEqual(new Map());
    await cacheB.put("ast-grep", "1", new Map([["blob-1", [finding]]]));
    expect(await cacheA.get("ast-grep", "1", ["blob-1"])).toEqual(new Map([["blob-1", [finding]]]));

    const deleted = await deleteGroup(db, t.organization_id, doomed.id);
    expect(deleted?.projectIds).toEqual([a.id]);
    const left = await db.selectFrom("analysis_cache").select("project_id").where("organization_id", "=", t.organization_id).execute();
    expect(left).toEqual([{ project_id: b.id }]);
    // A scan of the deleted project that ends late cannot write its results back.
    await expect(cacheA.put("ast-grep", "1", new Map([["blob-2", [finding]]]))).rejects.toThrow();
    expect(await cacheB.get("ast-grep", "1", ["blob-1"])).toEqual(new Map([["blob-1", [finding]]]));
  });
});

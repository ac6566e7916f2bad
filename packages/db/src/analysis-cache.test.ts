// Real PostgreSQL (a database made for this suite) and real PGlite: the migration that makes
// the cache per project runs on both.
import fs from "node:fs";
import { createTestDatabase, tmpDir, type TestDatabase } from "@ax/testkit";
import type { NormalizedFinding } from "@ax/contracts";
import { PgAnalysisCache, type AiLabel, type AnalysisCacheEntries } from "./analysis-cache";
import { bootstrap } from "./bootstrap";
import { openDatabase, type DbHandle } from "./client";
import { migrate } from "./migrate";
import { createGroup, deleteGroup } from "./orgs";
import { findOrCreateProject } from "./scans";

function cachedFinding(rule_id: string, snippet: string): AnalysisCacheEntries["findings"][number] {
  return {
    analyzer: "ast-grep",
    rule_id,
    title: "Eval",
    message: "eval of input",
    cwe_id: "CWE-95",
    cwe_name: null,
    owasp: null,
    start_line: 1,
    end_line: 1,
    start_column: 1,
    end_column: 5,
    snippet,
    severity: "HIGH",
    confidence: "HIGH",
    likelihood: "MEDIUM",
    impact: "HIGH",
    remediation: "",
    raw: {},
  };
}

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
    const finding = cachedFinding("js-eval", "eval(req.query.x)");

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

  it("keeps each kind of entry under its own name, in the stored shape, and reads rows written before the typed pairs", async () => {
    const db = handle.db;
    const t = await bootstrap(db, {
      orgName: "Kinds",
      email: `k-${kind}@x.test`,
      displayName: "K",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const group = (await createGroup(db, t.organization_id, "kinds"))!;
    const gitUrl = "https://example.test/kinds.git";
    const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: group.id, gitUrl, name: "kinds" });
    const cache = new PgAnalysisCache(db, { organizationId: t.organization_id, projectId: project.id });
    const finding: NormalizedFinding = { ...cachedFinding("js-eval", "eval(x)"), file: "a.js", fingerprint: "f".repeat(64) };
    const result = { findings: [finding], analyzers: [], languages: ["javascript"], selection: { files: 1 } };
    const label: AiLabel = { class: "TRUE_POSITIVE", confidence: 0.9, model: "m" };
    await cache.putScanResult("v1", "c".repeat(40), result);
    await cache.putLabels("model-1", new Map([["key-1", label]]));
    await cache.putCommitLabels("model-1", "c".repeat(40), { [finding.fingerprint]: label });

    const rows = await db
      .selectFrom("analysis_cache")
      .select(["analyzer", "analyzer_version", "blob_sha", "findings"])
      .where("project_id", "=", project.id)
      .orderBy("analyzer")
      .execute();
    // One-element arrays under fixed names: the shape the rows had before the store was typed.
    expect(rows).toEqual([
      { analyzer: "ai-label", analyzer_version: "model-1", blob_sha: "key-1", findings: [label] },
      { analyzer: "ai-labels", analyzer_version: "model-1", blob_sha: "c".repeat(40), findings: [{ [finding.fingerprint]: label }] },
      { analyzer: "scan-result", analyzer_version: "v1", blob_sha: "c".repeat(40), findings: [result] },
    ]);

    // Rows as an earlier worker wrote them read back through the typed pairs.
    const older = { ...result, languages: ["python"] };
    await db
      .insertInto("analysis_cache")
      .values([
        {
          organization_id: t.organization_id,
          project_id: project.id,
          analyzer: "scan-result",
          analyzer_version: "v0",
          blob_sha: "d".repeat(40),
          findings: JSON.stringify([older]),
        },
        {
          organization_id: t.organization_id,
          project_id: project.id,
          analyzer: "ai-label",
          analyzer_version: "model-0",
          blob_sha: "key-0",
          findings: JSON.stringify([label]),
        },
      ])
      .execute();
    expect(await cache.getScanResult("v0", "d".repeat(40))).toEqual(older);
    expect(await cache.getScanResult("v1", "c".repeat(40))).toEqual(result);
    expect(await cache.getScanResult("v1", "d".repeat(40))).toBeUndefined();
    expect(await cache.getLabels("model-0", ["key-0", "key-1"])).toEqual(new Map([["key-0", label]]));
    expect(await cache.getLabels("model-1", ["key-1"])).toEqual(new Map([["key-1", label]]));
    expect(await cache.getCommitLabels("model-1", "c".repeat(40))).toEqual({ [finding.fingerprint]: label });
    expect(await cache.getCommitLabels("model-0", "c".repeat(40))).toBeUndefined();
  });
});

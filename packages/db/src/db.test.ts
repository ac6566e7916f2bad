// Real PostgreSQL (a database made for this suite) and real PGlite.
import fs from "node:fs";
import path from "node:path";
import { createTestDatabase, tmpDir, type TestDatabase } from "@ax/testkit";
import { openDatabase, type DbHandle } from "./client";
import { migrate } from "./migrate";
import { authenticate, createToken, generateToken, isWellFormedToken, revokeToken } from "./tokens";
import { bootstrap } from "./bootstrap";
import { createGroup, deleteGroup } from "./orgs";
import { createScan, findOrCreateProject, markRunning } from "./scans";
import { findingHistory, getFinding, updateFinding } from "./findings";
import { listFindings } from "./findings-list";
import { storeScanResults } from "./findings-store";

describe.each(["postgres", "pglite"] as const)("database on %s", (kind) => {
  let database: TestDatabase | undefined;
  let handle: DbHandle;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tmpDir("ax-db-");
    if (kind === "postgres") database = await createTestDatabase();
    handle = await openDatabase({ url: database?.url, dataDir });
  });
  afterAll(async () => {
    await handle.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("applies migrations once and is idempotent", async () => {
    const first = await migrate(handle);
    expect(first).toContain("0001_init");
    expect(await migrate(handle)).toEqual([]);
    if (kind === "pglite") expect(fs.existsSync(path.join(dataDir, "pgdata"))).toBe(true);
  });

  it("authenticates a fresh token and refuses revoked, expired and forged ones", async () => {
    const t = await bootstrap(handle.db, {
      orgName: "Org",
      email: `a-${kind}@x.test`,
      displayName: "A",
      identityProvider: "google",
      expiresInDays: 1,
    });
    const principal = await authenticate(handle.db, t.token);
    expect(principal?.user.display_name).toBe("A");
    expect(principal?.memberships).toEqual([{ organization_id: t.organization_id, name: "Org", role: "owner" }]);

    expect(await authenticate(handle.db, generateToken())).toBeNull(); // well-formed, unknown
    const forged = t.token.slice(0, -1) + (t.token.endsWith("A") ? "B" : "A");
    expect(isWellFormedToken(forged)).toBe(false);
    expect(await authenticate(handle.db, forged)).toBeNull();

    const expired = await createToken(handle.db, { userId: t.user_id, name: "old", expiresInDays: -1 });
    expect(await authenticate(handle.db, expired.token)).toBeNull();

    const revocable = await createToken(handle.db, { userId: t.user_id, name: "r", expiresInDays: 5 });
    expect(await authenticate(handle.db, revocable.token)).not.toBeNull();
    expect(await revokeToken(handle.db, t.user_id, revocable.record.id)).toBeDefined();
    expect(await authenticate(handle.db, revocable.token)).toBeNull();
  });

  it("serialises concurrent transactions (PGlite has one session)", async () => {
    const t = await bootstrap(handle.db, {
      orgName: "Par",
      email: `p-${kind}@x.test`,
      displayName: "P",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const names = Array.from({ length: 12 }, (_, i) => `g${i}`);
    const groups = await Promise.all(names.map((n) => createGroup(handle.db, t.organization_id, n)));
    expect(groups.every(Boolean)).toBe(true);
    const g = groups[0]!;
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: g.id,
      gitUrl: "file:///x",
      name: "x",
    });
    await Promise.all(
      [1, 2, 3].map((i) =>
        createScan(handle.db, {
          organizationId: t.organization_id,
          groupId: g.id,
          projectId: project.id,
          createdBy: t.user_id,
          gitUri: "file:///x",
          branch: null,
          idempotencyKey: `k${i}`,
          requestHash: null,
        }),
      ),
    );
    const deleted = await deleteGroup(handle.db, t.organization_id, g.id);
    expect(deleted).toMatchObject({ projects: 1, scans: 3, findings: 0 });
    expect(await deleteGroup(handle.db, t.organization_id, g.id)).toBeUndefined();
  });

  it("stores a finding's dataflow as JSON, NULL without one, and filters by its status", async () => {
    const t = await bootstrap(handle.db, {
      orgName: "Flow",
      email: `f-${kind}@x.test`,
      displayName: "F",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///flow",
      name: "flow",
    });
    const { scan } = await createScan(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      projectId: project.id,
      createdBy: t.user_id,
      gitUri: "file:///flow",
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    });
    await markRunning(handle.db, scan.id);
    const base = {
      analyzer: "taint",
      rule_id: "r",
      title: "t",
      message: "m",
      cwe_id: null,
      cwe_name: null,
      owasp: null,
      file: "a.py",
      end_line: 1,
      start_column: 1,
      end_column: 2,
      snippet: "x",
      severity: "HIGH" as const,
      confidence: "HIGH" as const,
      likelihood: null,
      impact: null,
      remediation: null,
      raw: null,
    };
    const dataflow = {
      status: "confirmed" as const,
      source_kind: "local" as const,
      trace: [{ file: "a.py", line: 1, column: 5, kind: "sink" as const, label: "eval", code: "eval(x)" }],
    };
    await storeScanResults(handle.db, {
      scanId: scan.id,
      projectId: project.id,
      organizationId: t.organization_id,
      findings: [
        { ...base, start_line: 1, fingerprint: "1", dataflow },
        { ...base, start_line: 2, fingerprint: "2" },
      ],
      analyzers: [],
      languages: ["python"],
    });
    const find = (filter: "confirmed" | "unconfirmed" | "none") =>
      listFindings(handle.db, { organizationId: t.organization_id, scanId: scan.id, filters: { dataflow: filter }, limit: 10 });
    expect((await find("confirmed")).map((f) => [f.fingerprint, f.dataflow])).toEqual([["1", dataflow]]);
    expect((await find("none")).map((f) => [f.fingerprint, f.dataflow])).toEqual([["2", null]]);
    expect(await find("unconfirmed")).toEqual([]);
  });

  it("lists findings without their raw output and fix, saying only whether the fix has a diff", async () => {
    const t = await bootstrap(handle.db, {
      orgName: "Lean",
      email: `l-${kind}@x.test`,
      displayName: "L",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///lean",
      name: "lean",
    });
    const { scan } = await createScan(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      projectId: project.id,
      createdBy: t.user_id,
      gitUri: "file:///lean",
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    });
    await markRunning(handle.db, scan.id);
    const base = {
      analyzer: "ast-grep",
      rule_id: "r",
      title: "t",
      message: "m",
      cwe_id: null,
      cwe_name: null,
      owasp: null,
      file: "a.js",
      end_line: 1,
      start_column: 1,
      end_column: 2,
      snippet: "x",
      severity: "LOW" as const,
      confidence: "HIGH" as const,
      likelihood: null,
      impact: null,
      remediation: null,
      raw: { big: "x".repeat(1000) },
    };
    const fix = { replacement: "y", start_byte: 0, end_byte: 1 };
    await storeScanResults(handle.db, {
      scanId: scan.id,
      projectId: project.id,
      organizationId: t.organization_id,
      findings: [
        { ...base, start_line: 1, fingerprint: "1", fix: { ...fix, diff: "--- a/a.js\n+++ b/a.js\n" } },
        { ...base, start_line: 2, fingerprint: "2", fix },
        { ...base, start_line: 3, fingerprint: "3" },
      ],
      analyzers: [],
      languages: ["javascript"],
    });
    const rows = await listFindings(handle.db, { organizationId: t.organization_id, scanId: scan.id, filters: {}, limit: 10 });
    expect(rows.map((r) => [r.fingerprint, r.has_fix])).toEqual([
      ["1", true],
      ["2", false],
      ["3", false],
    ]);
    for (const r of rows) {
      expect(r).not.toHaveProperty("raw");
      expect(r).not.toHaveProperty("fix");
    }
    // The whole finding still has both.
    const one = await getFinding(handle.db, t.organization_id, scan.id, rows[0]!.id);
    expect(one).toMatchObject({ raw: base.raw, fix: { diff: "--- a/a.js\n+++ b/a.js\n" } });
  });

  it("keeps a finding and its history in step under concurrent triage; If-Match lets exactly one writer win", async () => {
    const t = await bootstrap(handle.db, {
      orgName: "Race",
      email: `r-${kind}@x.test`,
      displayName: "R",
      identityProvider: "local",
      expiresInDays: 1,
    });
    const project = await findOrCreateProject(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///race",
      name: "race",
    });
    const { scan } = await createScan(handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      projectId: project.id,
      createdBy: t.user_id,
      gitUri: "file:///race",
      branch: null,
      idempotencyKey: null,
      requestHash: null,
    });
    await markRunning(handle.db, scan.id);
    const base = {
      analyzer: "ast-grep",
      rule_id: "r",
      title: "t",
      message: "m",
      cwe_id: null,
      cwe_name: null,
      owasp: null,
      file: "a.py",
      start_line: 1,
      end_line: 1,
      start_column: 1,
      end_column: 2,
      snippet: "x",
      severity: "HIGH" as const,
      confidence: "HIGH" as const,
      likelihood: null,
      impact: null,
      remediation: null,
      raw: null,
    };
    await storeScanResults(handle.db, {
      scanId: scan.id,
      projectId: project.id,
      organizationId: t.organization_id,
      findings: [{ ...base, fingerprint: "race" }],
      analyzers: [],
      languages: ["python"],
    });
    const [seeded] = await listFindings(handle.db, { organizationId: t.organization_id, scanId: scan.id, filters: {}, limit: 1 });
    const ids = { organizationId: t.organization_id, scanId: scan.id, findingId: seeded!.id, userId: t.user_id };

    // 16 writers at once, each changing the reason to a value of its own: every one applies.
    const outcomes = await Promise.all(
      Array.from({ length: 16 }, (_, i) => updateFinding(handle.db, { ...ids, patch: { reason: `r${i}` } })),
    );
    expect(outcomes.every((o) => o.kind === "updated")).toBe(true);
    const after = await getFinding(handle.db, t.organization_id, scan.id, seeded!.id);
    expect(after?.version).toBe(seeded!.version + 16);
    const history = await findingHistory(handle.db, t.organization_id, seeded!.id);
    expect(history.map((h) => h.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => seeded!.version + 1 + i));
    // Each row's "from" is the previous row's "to": no write was lost or recorded twice.
    const chain = [...history]
      .sort((a, b) => a.version - b.version)
      .map((h) => (h.changes as { reason: { from: string | null; to: string } }).reason);
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.from).toBe(chain[i - 1]!.to);
    expect(chain.at(-1)!.to).toBe(after?.reason);

    // With the version they read (If-Match), concurrent writers conflict: one wins.
    const racing = await Promise.all(
      ["FALSE POSITIVE", "TRUE POSITIVE", "FALSE POSITIVE"].map((status, i) =>
        updateFinding(handle.db, {
          ...ids,
          patch: { status: status as "FALSE POSITIVE", reason: `m${i}` },
          expectedVersion: after!.version,
        }),
      ),
    );
    expect(racing.filter((o) => o.kind === "updated")).toHaveLength(1);
    expect(racing.filter((o) => o.kind === "conflict")).toEqual([
      { kind: "conflict", version: after!.version + 1 },
      { kind: "conflict", version: after!.version + 1 },
    ]);
    // Another organization cannot touch it.
    const other = await bootstrap(handle.db, {
      orgName: "Else",
      email: `e-${kind}@x.test`,
      displayName: "E",
      identityProvider: "local",
      expiresInDays: 1,
    });
    expect(
      await updateFinding(handle.db, { ...ids, organizationId: other.organization_id, userId: other.user_id, patch: { reason: "x" } }),
    ).toEqual({ kind: "not_found" });
  });
});

describe("embedded database lock", () => {
  it("refuses a second process's data directory while that process lives, and takes over a stale lock", async () => {
    const { spawn } = await import("node:child_process");
    const dir = tmpDir("ax-lock-");
    const holder = spawn("sleep", ["30"]);
    try {
      fs.writeFileSync(path.join(dir, "embedded-db.pid"), String(holder.pid));
      await expect(openDatabase({ dataDir: dir })).rejects.toThrow(/in use by process/);
    } finally {
      holder.kill();
    }
    await new Promise((r) => holder.once("exit", r));
    const handle = await openDatabase({ dataDir: dir });
    expect(fs.readFileSync(path.join(dir, "embedded-db.pid"), "utf8")).toBe(String(process.pid));
    await handle.close();
    expect(fs.existsSync(path.join(dir, "embedded-db.pid"))).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

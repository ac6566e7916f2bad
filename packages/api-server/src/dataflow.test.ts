// The taint analysis's verdict (NormalizedFinding.dataflow) from the stored scan result to the
// finding representation, the list filter and the SARIF code flows. Real PostgreSQL and
// Redis; the results are stored the way the worker stores them, so no analyzer runs.
import request from "supertest";
import type { AnalyzerRun, FindingDataflow, NormalizedFinding } from "@ax/contracts";
import { createScan, findOrCreateProject, markRunning, storeScanResults } from "@ax/db";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

let h: ApiHarness;
let projectId: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });

function finding(over: Partial<NormalizedFinding> & Pick<NormalizedFinding, "fingerprint">): NormalizedFinding {
  return {
    analyzer: "ast-grep",
    rule_id: "java-sql-injection",
    title: "SQL injection",
    message: "Query built from input",
    cwe_id: "CWE-89",
    cwe_name: "SQL Injection",
    owasp: "A03:2021-Injection",
    file: "src/main/java/app/UserDao.java",
    start_line: 20,
    end_line: 20,
    start_column: 9,
    end_column: 60,
    snippet: 'stmt.executeQuery("SELECT * FROM users WHERE id = " + id)',
    severity: "HIGH",
    confidence: "HIGH",
    likelihood: "MEDIUM",
    impact: "HIGH",
    remediation: "Use a PreparedStatement",
    raw: {},
    ...over,
  };
}

// Source and call in the controller, sink in the DAO: a trace across two files.
const confirmedFlow: FindingDataflow = {
  status: "confirmed",
  source_kind: "remote",
  trace: [
    {
      file: "src/main/java/app/UserController.java",
      line: 12,
      column: 21,
      kind: "source",
      label: "HTTP request parameter",
      code: 'String id = request.getParameter("id");',
    },
    {
      file: "src/main/java/app/UserController.java",
      line: 14,
      column: 9,
      kind: "call",
      label: "passed to `find` (parameter 1)",
      code: "dao.find(id);",
    },
    {
      file: "src/main/java/app/UserDao.java",
      line: 20,
      column: 9,
      kind: "sink",
      label: "SQL query",
      code: 'stmt.executeQuery("SELECT * FROM users WHERE id = " + id);',
    },
  ],
  confirms: [{ analyzer: "ast-grep", rule_id: "java-sql-injection" }],
};

const confirmed = finding({ analyzer: "taint", rule_id: "taint-sql-injection", fingerprint: "c".repeat(64), dataflow: confirmedFlow });
const unconfirmed = finding({
  file: "src/main/java/app/Report.java",
  start_line: 7,
  end_line: 7,
  confidence: "LOW",
  fingerprint: "u".repeat(64),
  dataflow: { status: "unconfirmed", trace: [] },
});
const plain = finding({
  rule_id: "java-weak-hash",
  cwe_id: "CWE-328",
  file: "src/main/java/app/Hash.java",
  start_line: 3,
  end_line: 3,
  fingerprint: "p".repeat(64),
});

const runs: AnalyzerRun[] = ["ast-grep", "taint"].map((name) => ({ name, version: "1", status: "completed", duration_ms: 1, findings: 1 }));

/** A scan of the project whose results are the given findings, stored as the worker would. */
async function storedScan(findings: NormalizedFinding[], refuted: NormalizedFinding[] = []): Promise<string> {
  const db = h.stack.handle.db;
  const t = h.tenant;
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId,
    createdBy: t.user_id,
    gitUri: "file:///dataflow",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  const outcome = await storeScanResults(db, {
    scanId: scan.id,
    projectId,
    organizationId: t.organization_id,
    findings,
    refuted,
    analyzers: runs,
    languages: ["java"],
  });
  expect(outcome.stored).toBe(true);
  return scan.id;
}

interface Listed {
  finding_id: string;
  fingerprint: string;
  status: string;
  baseline_state: string;
  dataflow: unknown;
}

async function list(scanId: string, query = ""): Promise<Listed[]> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500${query}`).set(key());
  expect(r.status).toBe(200);
  return r.body.findings as Listed[];
}

const byFingerprint = (rows: Listed[], f: NormalizedFinding) => rows.find((r) => r.fingerprint === f.fingerprint)!;

beforeAll(async () => {
  h = await createApiHarness();
  const t = h.tenant;
  projectId = (
    await findOrCreateProject(h.stack.handle.db, {
      organizationId: t.organization_id,
      groupId: t.group_id,
      gitUrl: "file:///dataflow",
      name: "dataflow",
    })
  ).id;
});
afterAll(() => h.close());

describe("a scan with dataflow verdicts", () => {
  let scanId: string;
  let rows: Listed[];
  beforeAll(async () => {
    scanId = await storedScan([confirmed, unconfirmed, plain]);
    rows = await list(scanId);
  });

  it("shows the verdict and trace on the finding, with every key present", async () => {
    const id = byFingerprint(rows, confirmed).finding_id;
    const r = await request(h.app).get(`/api/v2/scan/${scanId}/finding/${id}`).set(key());
    expect(r.status).toBe(200);
    expect(r.body.dataflow).toEqual({ ...confirmedFlow, entry: null, reason: null });
    expect(r.body.dataflow.trace.map((s: { file: string }) => s.file)).toEqual([
      "src/main/java/app/UserController.java",
      "src/main/java/app/UserController.java",
      "src/main/java/app/UserDao.java",
    ]);
    const other = await request(h.app)
      .get(`/api/v2/scan/${scanId}/finding/${byFingerprint(rows, unconfirmed).finding_id}`)
      .set(key());
    expect(other.body.dataflow).toEqual({ status: "unconfirmed", source_kind: null, trace: [], confirms: [], entry: null, reason: null });
    expect(byFingerprint(rows, plain).dataflow).toBeNull();
    expect(byFingerprint(rows, confirmed).dataflow).toEqual({ ...confirmedFlow, entry: null, reason: null });
  });

  it("filters the list by verdict, none meaning not judged", async () => {
    const fps = async (value: string) => (await list(scanId, `&dataflow=${value}`)).map((f) => f.fingerprint);
    expect(await fps("confirmed")).toEqual([confirmed.fingerprint]);
    expect(await fps("unconfirmed")).toEqual([unconfirmed.fingerprint]);
    expect(await fps("none")).toEqual([plain.fingerprint]);
    expect((await list(scanId, "&dataflow=confirmed&severity=low")).length).toBe(0);
  });

  it("refuses any other filter value, naming the accepted ones", async () => {
    for (const value of ["yes", "CONFIRMED", "", "confirmed,none"]) {
      const r = await request(h.app)
        .get(`/api/v2/scan/${scanId}/findings?dataflow=${encodeURIComponent(value)}`)
        .set(key());
      expect({ value, status: r.status, message: r.body.message }).toEqual({
        value,
        status: 400,
        message: "Invalid query: dataflow takes confirmed, unconfirmed or none",
      });
    }
  });

  it("exports a confirmed trace as a SARIF code flow, and every verdict in the result's properties", async () => {
    const r = await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key());
    expect(r.status).toBe(200);
    const sarif = JSON.parse(r.text) as { runs: { results: { codeFlows?: unknown; properties: Record<string, unknown> }[] }[] };
    const results = sarif.runs.flatMap((run) => run.results);
    const of = (f: NormalizedFinding) => results.find((x) => x.properties.finding_id === byFingerprint(rows, f).finding_id)!;

    expect(of(confirmed).properties).toMatchObject({ dataflow: "confirmed", dataflow_source_kind: "remote" });
    expect(of(confirmed).codeFlows).toEqual([
      {
        threadFlows: [
          {
            locations: confirmedFlow.trace.map((s) => ({
              location: {
                physicalLocation: {
                  artifactLocation: { uri: s.file, uriBaseId: "%SRCROOT%" },
                  region: { startLine: s.line, startColumn: s.column },
                },
                message: { text: s.label },
              },
              kinds: [s.kind],
              properties: { code: s.code },
            })),
          },
        ],
      },
    ]);
    expect(of(unconfirmed).properties.dataflow).toBe("unconfirmed");
    expect(of(unconfirmed).codeFlows).toBeUndefined();
    expect(of(plain).properties).not.toHaveProperty("dataflow");
    expect(of(plain).codeFlows).toBeUndefined();
  });
});

describe("a rescan", () => {
  it("stores null for findings without a verdict, carries triage, and keeps a fixed finding's trace", async () => {
    const first = await storedScan([confirmed, unconfirmed, plain]);
    const firstRows = await list(first);
    const triaged = await request(h.app)
      .put(`/api/v2/scan/${first}/finding/${byFingerprint(firstRows, confirmed).finding_id}`)
      .set(key())
      .send({ status: "true positive" });
    expect(triaged.status).toBe(200);

    // The same sink without a verdict (say the taint analysis was off), the unconfirmed one gone.
    const { dataflow: _d, ...withoutFlow } = confirmed;
    const second = await storedScan([withoutFlow, plain]);
    const rows = await list(second);
    expect(byFingerprint(rows, confirmed)).toMatchObject({ status: "TRUE POSITIVE", baseline_state: "unchanged", dataflow: null });
    expect(byFingerprint(rows, plain)).toMatchObject({ baseline_state: "unchanged", dataflow: null });
    expect(rows.some((f) => f.baseline_state === "absent")).toBe(false);
    expect(byFingerprint(await list(second, "&baseline=absent"), unconfirmed)).toMatchObject({
      status: "FIXED",
      baseline_state: "absent",
      dataflow: { status: "unconfirmed", trace: [] },
    });

    // SQL NULL, not a JSON null: the filter and the column agree.
    expect((await list(second, "&dataflow=none")).map((f) => f.fingerprint).sort()).toEqual(
      [confirmed.fingerprint, plain.fingerprint].sort(),
    );
    const nulls = await h.stack.handle.db
      .selectFrom("findings")
      .select("id")
      .where("scan_id", "=", second)
      .where("dataflow", "is", null)
      .execute();
    expect(nulls).toHaveLength(2);
  });
});

describe("SARIF of an unusual trace", () => {
  it("percent-encodes paths and gives a step without a valid position no region, so the log stays valid", async () => {
    const odd = finding({
      analyzer: "taint",
      file: "src/my app/Dao#1.java",
      fingerprint: "o".repeat(64),
      dataflow: {
        status: "confirmed",
        trace: [
          { file: "src/my app/In.java", line: 0, column: 0, kind: "source", label: "environment variable", code: "" },
          { file: "src/my app/Dao#1.java", line: 20, column: 0, kind: "sink", label: "SQL query", code: "q(x);" },
        ],
      },
    });
    const scanId = await storedScan([odd]);
    const id = byFingerprint(await list(scanId), odd).finding_id;
    const sarif = JSON.parse((await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key())).text);
    const result = sarif.runs
      .flatMap((r: { results: unknown[] }) => r.results)
      .find((r: { properties: { finding_id: string } }) => r.properties.finding_id === id);
    expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe("src/my%20app/Dao%231.java");
    expect(result.properties).not.toHaveProperty("dataflow_source_kind");
    expect(
      result.codeFlows[0].threadFlows[0].locations.map((l: { location: { physicalLocation: unknown } }) => l.location.physicalLocation),
    ).toEqual([
      { artifactLocation: { uri: "src/my%20app/In.java", uriBaseId: "%SRCROOT%" } },
      { artifactLocation: { uri: "src/my%20app/Dao%231.java", uriBaseId: "%SRCROOT%" }, region: { startLine: 20 } },
    ]);
  });
});

describe("refuted pattern matches", () => {
  const refutedAt = (file: string, line: number, fingerprint: string) =>
    finding({
      file,
      start_line: line,
      end_line: line,
      fingerprint,
      snippet: 'stmt.executeQuery("SELECT count(*) FROM users")',
      confidence: "MEDIUM",
      dataflow: {
        status: "refuted",
        trace: [],
        reason: "The taint analysis judged this sink (java-taint-sql): its dangerous arguments are constants.",
      },
    });
  const matches = [refutedAt("src/main/java/app/B.java", 7, "r1".repeat(32)), refutedAt("src/main/java/app/A.java", 9, "r2".repeat(32))];
  let scanId: string;
  beforeAll(async () => {
    scanId = await storedScan([plain], matches);
  });

  it("are listed apart, in file and line order, with the reason, and are not findings", async () => {
    const r = await request(h.app).get(`/api/v2/scan/${scanId}/refuted`).set(key());
    expect(r.status).toBe(200);
    expect(r.body.next_cursor).toBeNull();
    expect(r.body.refuted.map((m: { file: string; start_line: number }) => [m.file, m.start_line])).toEqual([
      ["src/main/java/app/A.java", 9],
      ["src/main/java/app/B.java", 7],
    ]);
    expect(r.body.refuted[0]).toMatchObject({
      scan_id: scanId,
      rule_id: "java-sql-injection",
      cwe_id: "CWE-89",
      severity: "HIGH",
      sources: [{ analyzer: "ast-grep", rule_id: "java-sql-injection" }],
      reason: expect.stringContaining("constants"),
    });
    expect((await list(scanId)).map((f) => f.fingerprint)).toEqual([plain.fingerprint]);
    const scan = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
    expect(scan.body.counts.total).toBe(1);
  });

  it("page with a cursor, refuse a cursor that is not theirs, and are not visible to another organization", async () => {
    const first = await request(h.app).get(`/api/v2/scan/${scanId}/refuted?limit=1`).set(key());
    expect(first.body.refuted).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await request(h.app).get(`/api/v2/scan/${scanId}/refuted?limit=1&cursor=${first.body.next_cursor}`).set(key());
    expect(second.body.refuted.map((m: { file: string }) => m.file)).toEqual(["src/main/java/app/B.java"]);
    expect(second.body.next_cursor).toBeNull();
    const bad = await request(h.app).get(`/api/v2/scan/${scanId}/refuted?cursor=bm90LWEtY3Vyc29y`).set(key());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/cursor/);
    const other = await h.otherTenant();
    const foreign = await request(h.app).get(`/api/v2/scan/${scanId}/refuted`).set({ "X-AX-KEY": other.token });
    expect(foreign.status).toBe(404);
  });

  it("belong to the scan's organization and project, and go with the scan", async () => {
    const db = h.stack.handle.db;
    const own = await storedScan([], [refutedAt("src/main/java/app/C.java", 3, "r3".repeat(32))]);
    const rows = await db.selectFrom("refuted_matches").select(["organization_id", "project_id"]).where("scan_id", "=", own).execute();
    expect(rows).toEqual([{ organization_id: h.tenant.organization_id, project_id: projectId }]);
    await db.deleteFrom("scans").where("id", "=", own).execute();
    expect(await db.selectFrom("refuted_matches").select("id").where("scan_id", "=", own).execute()).toEqual([]);
  });
});

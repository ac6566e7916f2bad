// End to end on the real stack: PostgreSQL, Redis, a BullMQ worker in this process, git
// repositories made here, and the real ast-grep with the project's rule pack.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { commitFiles, git, makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

let h: ApiHarness;
let repo: string;
const key = () => ({ "X-AX-KEY": h.tenant.token });

interface FindingBody {
  finding_id: string;
  rule_id: string;
  cwe_id: string;
  cwe_ids: string[];
  file: string;
  start_line: number;
  status: string;
  severity: string;
  baseline_state: string;
  fingerprint: string;
  first_seen_scan_id: string;
}

async function scanAndWait(body: object, query = ""): Promise<{ scan_id: string; scan: Record<string, unknown> }> {
  const res = await request(h.app).post(`/api/v2/scan${query}`).set(key()).send(body);
  expect(res.status).toBe(200);
  const scan_id = res.body.scan_id as string;
  const scan = await waitFor(
    async () => {
      const r = await request(h.app).get(`/api/v2/scan/${scan_id}`).set(key());
      return ["completed", "failed", "cancelled"].includes(r.body.state) ? (r.body as Record<string, unknown>) : undefined;
    },
    { timeoutMs: 60_000, what: `scan ${scan_id}` },
  );
  return { scan_id, scan };
}

async function allFindings(scanId: string, query = ""): Promise<FindingBody[]> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500${query}`).set(key());
  expect(r.status).toBe(200);
  return r.body.findings as FindingBody[];
}

beforeAll(async () => {
  h = await createApiHarness({ worker: true });
  repo = makeGitRepo({
    "src/db.js": fixture("vulnerable.js"),
    "src/safe.js": fixture("safe.js"),
    "app/util.py": fixture("vulnerable.py"),
    "app/safe.py": fixture("safe.py"),
    "java/Vulnerable.java": fixture("Vulnerable.java"),
    "java/Safe.java": fixture("Safe.java"),
  });
});
afterAll(() => h.close());

describe("a full scan", () => {
  let scanId: string;
  let findings: FindingBody[];

  beforeAll(async () => {
    const { scan_id, scan } = await scanAndWait({ git_uri: repo });
    scanId = scan_id;
    expect(scan).toMatchObject({ state: "completed", progress: 100, branch: "main", commit: git(repo, "rev-parse", "HEAD"), error: null });
    findings = await allFindings(scanId);
  });

  it("records the analyzers, languages and counts", async () => {
    const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set(key());
    expect(r.body.analyzers).toEqual(expect.arrayContaining([expect.objectContaining({ name: "ast-grep", status: "completed" })]));
    expect(r.body.languages).toEqual(expect.arrayContaining(["javascript", "python", "java"]));
    expect(r.body.counts.total).toBe(findings.length);
    expect(r.body.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it.each([
    ["CWE-89", "src/db.js", 6],
    ["CWE-328", "src/db.js", 11],
    ["CWE-502", "app/util.py", 6],
    ["CWE-328", "app/util.py", 10],
    ["CWE-328", "java/Vulnerable.java", 5],
    ["CWE-78", "java/Vulnerable.java", 10],
  ])("finds %s in %s at line %i", (cwe, file, line) => {
    expect(findings).toEqual(expect.arrayContaining([expect.objectContaining({ cwe_id: cwe, file, start_line: line })]));
  });

  it("reports nothing in the safe twins", () => {
    expect(findings.filter((f) => /safe|Safe/.test(f.file))).toEqual([]);
  });

  it("filters by severity, CWE and file prefix, and pages with a cursor", async () => {
    const sqli = await allFindings(scanId, "&cwe=cwe-89");
    expect(sqli.length).toBeGreaterThanOrEqual(1);
    expect(sqli.every((f) => f.cwe_id === "CWE-89")).toBe(true);
    const py = await allFindings(scanId, "&file=app/");
    expect(py.length).toBeGreaterThanOrEqual(2);
    expect(py.every((f) => f.file.startsWith("app/"))).toBe(true);
    const high = await allFindings(scanId, "&severity=high,critical");
    expect(high.every((f) => ["HIGH", "CRITICAL"].includes(f.severity))).toBe(true);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: request.Response = await request(h.app)
        .get(`/api/v2/scan/${scanId}/findings?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
        .set(key());
      seen.push(...r.body.findings.map((f: FindingBody) => f.finding_id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(findings.map((f) => f.finding_id));
    expect((await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=0`).set(key())).status).toBe(400);
  });

  it("names each weakness at both levels, and a filter on the class finds the specific weakness", async () => {
    const weakHash = findings.filter((f) => f.cwe_id === "CWE-328");
    expect(weakHash.length).toBeGreaterThanOrEqual(3);
    // MITRE (view 1000): CWE-328 Use of Weak Hash is a child of CWE-327 and CWE-326.
    for (const f of weakHash) expect(f.cwe_ids).toEqual(["CWE-328", "CWE-326", "CWE-327"]);
    const byClass = await allFindings(scanId, "&cwe=CWE-327");
    expect(byClass.map((f) => f.finding_id)).toEqual(expect.arrayContaining(weakHash.map((f) => f.finding_id)));

    const sarif = JSON.parse((await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key())).text);
    const run = sarif.runs.find((r: { tool: { driver: { rules: { properties: { tags: string[] } }[] } } }) =>
      r.tool.driver.rules.some((rule) => rule.properties.tags.includes("external/cwe/cwe-328")),
    );
    const rule = run.tool.driver.rules.find((r: { properties: { tags: string[] } }) => r.properties.tags.includes("external/cwe/cwe-328"));
    expect(rule.properties.tags).toEqual(expect.arrayContaining(["external/cwe/cwe-327", "external/cwe/cwe-326"]));
    const taxa: { id: string; name?: string }[] = run.taxonomies[0].taxa;
    expect(run.taxonomies[0].name).toBe("CWE");
    expect(run.tool.driver.supportedTaxonomies).toEqual([{ name: "CWE", index: 0 }]);
    const linked = rule.relationships.map((r: { target: { id: string; index: number } }) => [r.target.id, taxa[r.target.index]?.id]);
    expect(linked).toEqual([
      ["328", "328"],
      ["326", "326"],
      ["327", "327"],
    ]);
    expect(taxa.find((t) => t.id === "328")?.name).toBe("Use of Weak Hash");
  });

  it("exports SARIF 2.1.0 with fingerprints", async () => {
    const r = await request(h.app).get(`/api/v2/scan/${scanId}/sarif`).set(key());
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/application\/sarif\+json/);
    const sarif = JSON.parse(r.text);
    expect(sarif.version).toBe("2.1.0");
    const results = sarif.runs.flatMap((run: { results: unknown[] }) => run.results);
    expect(results).toHaveLength(findings.length);
    expect(results[0].partialFingerprints["axFingerprint/v1"]).toMatch(/^[0-9a-f]{64}$/);
    expect(sarif.runs[0].tool.driver.rules[0].properties.tags).toEqual(
      expect.arrayContaining([expect.stringMatching(/^external\/cwe\/cwe-\d+$/)]),
    );
  });

  describe("triage", () => {
    let f: FindingBody;
    beforeAll(() => {
      f = findings.find((x) => x.cwe_id === "CWE-89")!;
    });
    const url = () => `/api/v2/scan/${scanId}/finding/${f.finding_id}`;

    it("updates only the fields present, canonicalising labels, and keeps history", async () => {
      const before = (await request(h.app).get(url()).set(key())).body;
      const r = await request(h.app).put(url()).set(key()).send({ status: "true_positive", reason: "Reachable from /user" });
      expect(r.status).toBe(200);
      expect(r.body.message).toBe("Finding updated");
      expect(r.body.finding).toMatchObject({
        status: "TRUE POSITIVE",
        reason: "Reachable from /user",
        severity: before.severity,
        remediation: before.remediation,
        impact: before.impact,
        likelihood: before.likelihood,
        confidence: before.confidence,
        version: before.version + 1,
      });
      const r2 = await request(h.app).put(url()).set(key()).send({ severity: "low" });
      expect(r2.body.finding).toMatchObject({ status: "TRUE POSITIVE", reason: "Reachable from /user", severity: "LOW" });

      const hist = await request(h.app).get(`${url()}/history`).set(key());
      expect(hist.body.history).toEqual([
        expect.objectContaining({
          source: "review",
          changed_by: { user_id: h.tenant.user_id, display_name: "Ada Owner" },
          changes: { status: { from: "TO REVIEW", to: "TRUE POSITIVE" }, reason: { from: null, to: "Reachable from /user" } },
        }),
        expect.objectContaining({ changes: { severity: { from: before.severity, to: "LOW" } } }),
      ]);
    });

    it("honours If-Match", async () => {
      const current = await request(h.app).get(url()).set(key());
      const etag = current.headers.etag as string;
      expect(etag).toBe(`"${current.body.version}"`);
      expect((await request(h.app).put(url()).set(key()).set("If-Match", '"1"').send({ impact: "x" })).status).toBe(412);
      const ok = await request(h.app).put(url()).set(key()).set("If-Match", etag).send({ impact: "Data of every user" });
      expect(ok.status).toBe(200);
      expect(ok.headers.etag).toBe(`"${current.body.version + 1}"`);
    });

    it.each([
      [{}, /at least one/],
      [{ status: "MAYBE" }, /status must be one of/],
      [{ severity: 5 }, /severity must be a string/],
      [{ owner: "me" }, /Unknown field: owner/],
      [{ reason: "x".repeat(10_001) }, /at most 10000/],
    ])("refuses %j with a clear 400 and changes nothing", async (body, message) => {
      const before = (await request(h.app).get(url()).set(key())).body;
      const r = await request(h.app).put(url()).set(key()).send(body);
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(message);
      expect((await request(h.app).get(url()).set(key())).body).toEqual(before);
    });

    it("answers 404 for an unknown finding or a finding of another scan", async () => {
      expect(
        (
          await request(h.app)
            .put(`/api/v2/scan/${scanId}/finding/00000000-0000-4000-8000-000000000000`)
            .set(key())
            .send({ status: "FIXED" })
        ).status,
      ).toBe(404);
      expect((await request(h.app).put(`/api/v2/scan/${scanId}/finding/not-an-id`).set(key()).send({ status: "FIXED" })).status).toBe(404);
    });

    it("carries triage to the next scan by fingerprint and reports vanished findings as fixed", async () => {
      // Move every line of db.js down and remove the Python flaws.
      commitFiles(
        repo,
        { "src/db.js": `// header\n\n\n${fixture("vulnerable.js")}`, "app/util.py": fixture("safe.py") },
        "fix python, move js",
      );
      const { scan_id: second, scan } = await scanAndWait({ git_uri: repo });
      expect(scan.state).toBe("completed");
      const next = await allFindings(second);
      // The scan's own list holds only its commit's findings; the fixed ones are asked for.
      expect(next.filter((x) => x.baseline_state === "absent")).toEqual([]);
      next.push(...(await allFindings(second, "&baseline=absent")));
      expect(await allFindings(second, "&status=fixed")).toEqual(expect.arrayContaining(next.filter((x) => x.status === "FIXED")));
      const carried = next.find((x) => x.fingerprint === f.fingerprint)!;
      expect(carried).toMatchObject({
        status: "TRUE POSITIVE",
        severity: "LOW",
        baseline_state: "unchanged",
        first_seen_scan_id: scanId,
        start_line: f.start_line + 3,
      });
      const fixed = next.filter((x) => x.status === "FIXED");
      expect(fixed.map((x) => x.file)).toEqual(expect.arrayContaining(["app/util.py"]));
      expect(fixed.every((x) => x.baseline_state === "absent")).toBe(true);
      expect((scan.counts as Record<string, number>).fixed).toBe(fixed.length);
      const hist = await request(h.app).get(`/api/v2/scan/${second}/finding/${carried.finding_id}/history`).set(key());
      expect(hist.body.history[0]).toMatchObject({ source: "carried", changes: { status: { from: "TO REVIEW", to: "TRUE POSITIVE" } } });
    });
  });
});

describe("starting scans", () => {
  it("scans a named branch", async () => {
    git(repo, "checkout", "-q", "-b", "feature");
    commitFiles(repo, { "src/extra.js": "eval(req.body.code);\n" }, "feature work");
    git(repo, "checkout", "-q", "main");
    const { scan } = await scanAndWait({ git_uri: `file://${repo}`, branch: "feature" });
    expect(scan).toMatchObject({ state: "completed", branch: "feature", commit: git(repo, "rev-parse", "feature") });
  });

  it("fails a scan of a branch that does not exist, with the reason", async () => {
    const { scan } = await scanAndWait({ git_uri: repo, branch: "no-such-branch" });
    expect(scan.state).toBe("failed");
    expect(String(scan.error)).toMatch(/no-such-branch/);
  });

  it.each([
    [{ git_uri: "ext::sh -c touch% /tmp/x" }, /helpers/],
    [{ git_uri: "-uupload-pack=x" }, /start with '-'/],
    [{ git_uri: "https://user:pw@example.com/a" }, /credentials/],
    [{ git_uri: 42 }, /git_uri/],
    [{}, /git_uri is required/],
    [{ git_uri: "https://github.com/a/b", branch: "--upload-pack=x" }, /branch is not a valid/],
    [{ git_uri: "https://github.com/a/b", branch: "a..b" }, /branch is not a valid/],
  ])("refuses %j with 400", async (body, message) => {
    const r = await request(h.app).post("/api/v2/scan").set(key()).send(body);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(message);
  });

  it("returns the same scan for a repeated Idempotency-Key, and 409 for a different request", async () => {
    const a = await request(h.app).post("/api/v2/scan").set(key()).set("Idempotency-Key", "k-1").send({ git_uri: repo });
    const b = await request(h.app).post("/api/v2/scan").set(key()).set("Idempotency-Key", "k-1").send({ git_uri: repo });
    expect(a.status).toBe(200);
    expect(b.body.scan_id).toBe(a.body.scan_id);
    const c = await request(h.app).post("/api/v2/scan").set(key()).set("Idempotency-Key", "k-1").send({ git_uri: repo, branch: "feature" });
    expect(c.status).toBe(409);
  });

  it("puts scans in the named group and lists projects and scans", async () => {
    const org = h.tenant.organization_id;
    const g = await request(h.app).post(`/api/v2/organization/${org}/group`).set(key()).send({ name: "listing" });
    const { scan_id } = await scanAndWait({ git_uri: repo }, `?group_id=${g.body.group_id}`);
    const projects = await request(h.app).get(`/api/v2/organization/${org}/group/${g.body.group_id}/project`).set(key());
    expect(projects.body.projects).toHaveLength(1);
    const scans = await request(h.app)
      .get(`/api/v2/organization/${org}/group/${g.body.group_id}/project/${projects.body.projects[0].project_id}/scan`)
      .set(key());
    expect(scans.body.scans.map((s: { scan_id: string }) => s.scan_id)).toEqual([scan_id]);
    const byGroup = await request(h.app).get(`/api/v2/scan?group_id=${g.body.group_id}`).set(key());
    expect(byGroup.body.scans.map((s: { scan_id: string }) => s.scan_id)).toEqual([scan_id]);
    expect(
      (await request(h.app).post("/api/v2/scan?group_id=00000000-0000-4000-8000-000000000000").set(key()).send({ git_uri: repo })).status,
    ).toBe(404);
  });
});

describe("group hard delete", () => {
  it("removes the group's projects, scans, findings and history and leaves a sibling untouched", async () => {
    const org = h.tenant.organization_id;
    const doomed = (await request(h.app).post(`/api/v2/organization/${org}/group`).set(key()).send({ name: "doomed" })).body.group_id;
    const sibling = (await request(h.app).post(`/api/v2/organization/${org}/group`).set(key()).send({ name: "sibling" })).body.group_id;
    const a = await scanAndWait({ git_uri: repo }, `?group_id=${doomed}`);
    const b = await scanAndWait({ git_uri: repo }, `?group_id=${sibling}`);
    const doomedFindings = await allFindings(a.scan_id);
    await request(h.app)
      .put(`/api/v2/scan/${a.scan_id}/finding/${doomedFindings[0]!.finding_id}`)
      .set(key())
      .send({ status: "FALSE POSITIVE" });
    const siblingBefore = await allFindings(b.scan_id);

    const r = await request(h.app).delete(`/api/v2/organization/${org}/group/${doomed}`).set(key());
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      message: "Group deleted",
      group_id: doomed,
      deleted: { projects: 1, scans: 1, findings: doomedFindings.length },
    });

    const db = h.stack.handle.db;
    const left = await Promise.all([
      db.selectFrom("groups").select("id").where("id", "=", doomed).execute(),
      db.selectFrom("projects").select("id").where("group_id", "=", doomed).execute(),
      db.selectFrom("scans").select("id").where("group_id", "=", doomed).execute(),
      db.selectFrom("findings").select("id").where("scan_id", "=", a.scan_id).execute(),
      db
        .selectFrom("finding_history")
        .select("id")
        .where(
          "finding_id",
          "in",
          doomedFindings.map((f) => f.finding_id),
        )
        .execute(),
    ]);
    expect(left.map((rows) => rows.length)).toEqual([0, 0, 0, 0, 0]);
    expect((await request(h.app).get(`/api/v2/scan/${a.scan_id}`).set(key())).status).toBe(404);
    expect(await allFindings(b.scan_id)).toEqual(siblingBefore);
    expect((await request(h.app).delete(`/api/v2/organization/${org}/group/${doomed}`).set(key())).status).toBe(404);
  });
});

describe("counts follow triage", () => {
  const SEVERITY_KEYS = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
  let own: string;
  let scanId: string;
  let findings: FindingBody[];
  const counts = async (id = scanId) => {
    const r = await request(h.app).get(`/api/v2/scan/${id}`).set(key());
    expect(r.status).toBe(200);
    return r.body.counts as Record<string, number>;
  };
  const put = async (f: FindingBody, body: object) =>
    expect((await request(h.app).put(`/api/v2/scan/${scanId}/finding/${f.finding_id}`).set(key()).send(body)).status).toBe(200);

  beforeAll(async () => {
    // A repository of its own: a project no other test triages or rescans.
    own = makeGitRepo({ "src/db.js": fixture("vulnerable.js"), "app/util.py": fixture("vulnerable.py") });
    const { scan_id, scan } = await scanAndWait({ git_uri: own });
    expect(scan.state).toBe("completed");
    scanId = scan_id;
    findings = await allFindings(scanId);
    expect(findings.length).toBeGreaterThanOrEqual(3);
  });

  it("counts every finding of a fresh scan as open, by severity and as to review, every key present", async () => {
    const bySeverity = Object.fromEntries(SEVERITY_KEYS.map((s) => [s, findings.filter((f) => f.severity === s).length]));
    expect(await counts()).toEqual({
      ...bySeverity,
      total: findings.length,
      new: findings.length,
      fixed: 0,
      suppressed: 0,
      introduced: 0,
      to_review: findings.length,
      true_positive: 0,
      false_positive: 0,
      accepted_risk: 0,
      marked_fixed: 0,
    });
  });

  it("drops a finding from its severity and total when it is marked FALSE POSITIVE, and moves it when its severity changes", async () => {
    const before = await counts();
    const [closed, moved] = findings;
    await put(closed!, { status: "false_positive", reason: "test data only" });
    const afterClose = await counts();
    expect(afterClose).toEqual({
      ...before,
      [closed!.severity]: before[closed!.severity]! - 1,
      total: before.total! - 1,
      new: before.new! - 1,
      to_review: before.to_review! - 1,
      false_positive: 1,
    });

    const to = moved!.severity === "INFO" ? "CRITICAL" : "INFO";
    await put(moved!, { severity: to });
    const afterMove = await counts();
    expect(afterMove).toEqual({ ...afterClose, [moved!.severity]: afterClose[moved!.severity]! - 1, [to]: afterClose[to]! + 1 });

    // A closed finding's severity no longer counts anywhere but in its status.
    await put(closed!, { severity: closed!.severity === "LOW" ? "HIGH" : "LOW" });
    expect(await counts()).toEqual(afterMove);
    // Confirmed: open again, at its new severity.
    await put(closed!, { status: "true_positive" });
    const reopened = await counts();
    expect(reopened.total).toBe(before.total);
    expect(reopened).toMatchObject({ false_positive: 0, true_positive: 1, to_review: before.to_review! - 1 });
  });

  it("shows the same counts in every list of scans, a page at a time", async () => {
    const org = h.tenant.organization_id;
    const failed = await scanAndWait({ git_uri: own, branch: "no-such-branch" });
    expect(failed.scan.state).toBe("failed");
    const one = await counts();
    const seen = new Map<string, Record<string, number>>();
    let cursor: string | null = null;
    do {
      const r: request.Response = await request(h.app)
        .get(`/api/v2/scan?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
        .set(key());
      expect(r.status).toBe(200);
      for (const s of r.body.scans as { scan_id: string; counts: Record<string, number> }[]) seen.set(s.scan_id, s.counts);
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen.get(scanId)).toEqual(one);
    // A failed scan stored nothing, which is not the same as finding nothing.
    expect(seen.get(failed.scan_id)).toEqual({});
    // Every listed scan shows what GET /scan/{id} shows.
    for (const [id, listed] of seen) expect(listed).toEqual(await counts(id));

    const scan = (await request(h.app).get(`/api/v2/scan/${scanId}`).set(key())).body as { group_id: string; project_id: string };
    const byProject = await request(h.app)
      .get(`/api/v2/organization/${org}/group/${scan.group_id}/project/${scan.project_id}/scan`)
      .set(key());
    expect(byProject.body.scans).toEqual([
      expect.objectContaining({ scan_id: failed.scan_id, counts: {} }),
      expect.objectContaining({ scan_id: scanId, counts: one }),
    ]);
  });

  it("shows another organization nothing", async () => {
    const other = await h.otherTenant();
    expect((await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", other.token)).status).toBe(404);
    const theirs = await request(h.app).get("/api/v2/scan").set("X-AX-KEY", other.token);
    expect(theirs.body.scans).toEqual([]);
  });
});

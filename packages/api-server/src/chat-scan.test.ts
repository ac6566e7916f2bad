// The chat assistant about a completed scan, end to end on the real stack: PostgreSQL, Redis,
// the app, a BullMQ worker in this process running the real analyzers on a git repository made
// here, and the shipped offline answerers (no model server is configured, so nothing is faked).
import { randomUUID } from "node:crypto";
import request from "supertest";
import { addMember, createToken, createUser } from "@ax/db";
import { makeGitRepo, waitFor } from "@ax/testkit";
import type { ApiHarness } from "@ax/testkit/api";
import {
  FENCE_BREAKER_PY,
  HOSTILE_FILE,
  HOSTILE_SOURCE,
  SEVERITIES,
  chatRig,
  fixture,
  rawHtmlOutsideCode,
  severityTable,
} from "../test/chat-support";

const rig = chatRig();
const { ask } = rig;
let h: ApiHarness;
let other: Awaited<ReturnType<ApiHarness["otherTenant"]>>;
beforeAll(() => {
  h = rig.h;
  other = rig.other;
});

describe("with a completed scan", () => {
  let repo: string;
  let scanId: string;
  let scan: { git_uri: string; group_id: string; counts: Record<string, number>; state: string };
  let findings: { finding_id: string; file: string; cwe_id: string | null; severity: string }[];

  beforeAll(async () => {
    repo = makeGitRepo({
      "src/db.js": fixture("vulnerable.js"),
      "src/safe.js": fixture("safe.js"),
      "app/util.py": fixture("vulnerable.py"),
      "java/Vulnerable.java": fixture("Vulnerable.java"),
      [HOSTILE_FILE]: HOSTILE_SOURCE,
      "app/loader.py": FENCE_BREAKER_PY,
    });
    const started = await request(h.app).post("/api/v2/scan").set("X-AX-KEY", h.tenant.token).send({ git_uri: repo });
    expect(started.status).toBe(200);
    scanId = started.body.scan_id as string;
    scan = await waitFor(
      async () => {
        const r = await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", h.tenant.token);
        return ["completed", "failed", "cancelled"].includes(r.body.state) ? r.body : undefined;
      },
      { timeoutMs: 90_000, what: `scan ${scanId}` },
    );
    expect(scan.state).toBe("completed");
    const list = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500`).set("X-AX-KEY", h.tenant.token);
    expect(list.status).toBe(200);
    findings = list.body.findings;
  }, 120_000);

  it("summarizes the last scan with the scan's own numbers", async () => {
    expect(scan.counts.total).toBe(findings.length);
    expect(findings.length).toBeGreaterThan(0);

    const res = await ask("summarize my last scan");
    expect(res.headers["x-ai-specialist"]).toBe("findings");
    expect(res.text).toContain(scan.git_uri);
    expect(res.text).toContain(scanId);

    const table = severityTable(res.text);
    expect(table.total).toBe(scan.counts.total);
    for (const s of SEVERITIES) {
      const expected = findings.filter((f) => f.severity === s).length;
      if (expected > 0) expect(table[s]).toBe(expected);
      expect(table[s] ?? 0).toBe(scan.counts[s] ?? 0);
    }
    expect(SEVERITIES.reduce((sum, s) => sum + (table[s] ?? 0), 0)).toBe(table.total);

    // Top weaknesses: each row's count is the number of that CWE's findings.
    const cweRows = [...res.text.matchAll(/^\| (CWE-\d+) \| [^\n]* \| (\d+) \|$/gm)];
    expect(cweRows.length).toBeGreaterThan(0);
    for (const [, cwe, n] of cweRows) expect(Number(n)).toBe(findings.filter((f) => f.cwe_id === cwe).length);
  });

  it("sees only the group it is given", async () => {
    const created = await request(h.app)
      .post(`/api/v2/organization/${h.tenant.organization_id}/group`)
      .set("X-AX-KEY", h.tenant.token)
      .send({ name: "empty-group" });
    expect(created.status).toBe(200);
    const emptyGroup = created.body.group_id as string;

    const empty = await ask("summarize my last scan", { group_id: emptyGroup });
    expect(empty.text).toMatch(/no scans in this group/i);
    expect(empty.text).not.toContain(scan.git_uri);
    expect(empty.text).toContain(`group_id=${emptyGroup}`);
    const row = await h.deps.db
      .selectFrom("ai_requests")
      .selectAll()
      .where("id", "=", empty.headers["x-ai-request-id"] as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: "chat", specialist: "findings", group_id: emptyGroup });

    const own = await ask("summarize my last scan", { group_id: scan.group_id });
    expect(own.text).toContain(scan.git_uri);
    expect(severityTable(own.text).total).toBe(scan.counts.total);

    // Another tenant sees none of it.
    const theirs = await ask("summarize my last scan", {}, other.token);
    expect(theirs.text).toMatch(/no scans in this organization/i);
    expect(theirs.text).not.toContain(scan.git_uri);
    const named = await ask(`summarize scan ${scanId}`, {}, other.token);
    expect(named.text).toMatch(/can't find scan/);
    expect(named.text).not.toContain(scan.git_uri);
    expect((await ask(`summarize scan ${scanId}`)).text).toContain(scan.git_uri);
  });

  it("explains how to fix one of the caller's findings, and nobody else's", async () => {
    const sqli = findings.find((f) => f.file === "src/db.js" && f.cwe_id === "CWE-89");
    expect(sqli).toBeDefined();
    const res = await ask(`how do I fix finding ${sqli!.finding_id}`);
    expect(res.headers["x-ai-specialist"]).toBe("remediation");
    expect(res.text).toContain("src/db.js");
    expect(res.text).toContain("CWE-89");
    expect(res.text).toContain(sqli!.finding_id);

    const unknown = randomUUID();
    const missing = await ask(`how do I fix finding ${unknown}`);
    expect(missing.headers["x-ai-specialist"]).toBe("remediation");
    expect(missing.text).toMatch(/can't find finding/);
    expect(missing.text).toContain(unknown);

    // The other tenant asks about our finding: the same answer as for an id that does not exist.
    const probe = await ask(`how do I fix finding ${sqli!.finding_id}`, {}, other.token);
    expect(probe.text).toMatch(/can't find finding/);
    expect(probe.text).not.toContain("src/db.js");
    expect(probe.text).not.toContain("CWE-89");
    expect(probe.text.replace(sqli!.finding_id, unknown)).toBe(missing.text);

    // A group of the same organization that does not hold the scan cannot read it either.
    const group = await request(h.app)
      .post(`/api/v2/organization/${h.tenant.organization_id}/group`)
      .set("X-AX-KEY", h.tenant.token)
      .send({ name: "other-team" });
    expect(group.status).toBe(200);
    const scoped = await ask(`how do I fix finding ${sqli!.finding_id}`, { group_id: group.body.group_id });
    expect(scoped.text).toMatch(/can't find finding/);
    expect(scoped.text).not.toContain("src/db.js");
  });

  it("follows up on a listed finding in the same session", async () => {
    const session = `fix-${randomUUID()}`;
    const summary = await ask("summarize my last scan", { sessione_id: session });
    const listed = /finding `([0-9a-f-]{36})`/.exec(summary.text);
    expect(listed).not.toBeNull();
    const finding = findings.find((f) => f.finding_id === listed![1]);
    expect(finding).toBeDefined();
    const res = await ask("how do I fix it?", { sessione_id: session });
    expect(res.headers["x-ai-specialist"]).toBe("remediation");
    expect(res.text).toContain(finding!.finding_id);
    if (finding!.cwe_id) expect(res.text).toContain(finding!.cwe_id);
  });

  it("never renders a hostile repository's file names or code as raw HTML", async () => {
    const hostile = findings.filter((f) => f.file === HOSTILE_FILE);
    expect(hostile.length).toBeGreaterThan(0);

    const summary = await ask("summarize my last scan");
    expect(rawHtmlOutsideCode(summary.text)).toEqual([]);

    // Per-file tally: the file name's `|` must not split the table cell.
    const files = await ask("which files have the most findings in my last scan?");
    expect(files.headers["x-ai-specialist"]).toBe("findings");
    expect(files.text).toContain("<img src=x onerror=alert(1)>");
    expect(rawHtmlOutsideCode(files.text)).toEqual([]);
    const row = files.text.split("\n").find((l) => l.startsWith("|") && l.includes("onerror"));
    expect(row).toBeDefined();
    expect(row!.split(/(?<!\\)\|/)).toHaveLength(4);
    expect(Number(/\| (\d+) \|$/.exec(row!)![1])).toBe(hostile.length);

    // The fix of a finding there: its snippet carries a ``` and a <script>; both stay code.
    const target = hostile.find((f) => f.cwe_id === "CWE-89") ?? hostile[0]!;
    const fix = await ask(`how do I fix finding ${target.finding_id}`);
    expect(fix.headers["x-ai-specialist"]).toBe("remediation");
    expect(fix.text).toContain("onerror");
    expect(rawHtmlOutsideCode(fix.text)).toEqual([]);
    if (target.cwe_id === "CWE-89") expect(fix.text).toContain("<script>alert(1)</script>");

    const breaker = findings.find((f) => f.file === "app/loader.py" && f.cwe_id === "CWE-502");
    expect(breaker).toBeDefined();
    const fence = await ask(`how do I fix finding ${breaker!.finding_id}`);
    expect(fence.text).toContain("</code><script>alert(2)</script>");
    expect(fence.text.split("\n")).toContain("```");
    expect(rawHtmlOutsideCode(fence.text)).toEqual([]);
  });

  it("never renders a hostile display name as raw HTML", async () => {
    const user = await createUser(h.deps.db, {
      email: "mallory@acme.test",
      displayName: "<img src=x onerror=alert(1)> | **Mallory**",
      identityProvider: "google",
    });
    await addMember(h.deps.db, h.tenant.organization_id, user.id, "viewer");
    const { token } = await createToken(h.deps.db, { userId: user.id, name: "mallory", expiresInDays: 1 });
    const res = await ask("who am I?", {}, token);
    expect(res.text).toContain("Mallory");
    expect(res.text).toContain("mallory@acme.test");
    expect(rawHtmlOutsideCode(res.text)).toEqual([]);
    expect(res.text).not.toContain("**Mallory**");
  });

  // Last in this block: it triages findings of the shared scan.
  it("follows triage: a finding marked FALSE POSITIVE leaves its severity and total, a changed severity moves", async () => {
    const before = severityTable((await ask(`summarize scan ${scanId}`)).text);
    const [closed, moved] = findings;
    const put = (id: string, body: object) =>
      request(h.app).put(`/api/v2/scan/${scanId}/finding/${id}`).set("X-AX-KEY", h.tenant.token).send(body);
    expect((await put(closed!.finding_id, { status: "false_positive", reason: "test data" })).status).toBe(200);
    const to = moved!.severity === "INFO" ? "CRITICAL" : "INFO";
    expect((await put(moved!.finding_id, { severity: to })).status).toBe(200);
    const counts = (await request(h.app).get(`/api/v2/scan/${scanId}`).set("X-AX-KEY", h.tenant.token)).body.counts as Record<
      string,
      number
    >;

    const res = await ask(`summarize scan ${scanId}`);
    const table = severityTable(res.text);
    expect(table.total).toBe(before.total! - 1);
    expect(table.total).toBe(counts.total);
    for (const s of SEVERITIES) expect(table[s] ?? 0).toBe(counts[s]);
    expect(table[to]).toBe((before[to] ?? 0) + 1);
    expect(res.text).toContain("| FALSE POSITIVE | 1 |");
    expect(res.text).toContain(`| TO REVIEW | ${counts.to_review} |`);
    // The closed finding is still listed (most severe first), marked with the reviewer's verdict.
    expect(res.text.split("\n").find((l) => l.includes(closed!.finding_id))).toMatch(/ · FALSE POSITIVE/);
  });
});

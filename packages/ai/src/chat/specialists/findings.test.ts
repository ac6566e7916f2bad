// The model-path test uses a tiny in-test ModelProvider that stands in for a model server
// (none runs here). The data source is an in-memory ChatDataSource built below.
import type { ChatTurn, ModelProvider } from "../../provider/types";
import type { ChatDataSource, FindingSummary, Route, ScanSummary, SpecialistContext } from "../types";
import { findingsSpecialist } from "./findings";
import { answerLines, tenantContext } from "../../../test/specialist-support";

const SCAN = "11111111-1111-4111-8111-111111111111";
const OLD = "22222222-2222-4222-8222-222222222222";
const fid = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, "0")}`;

function scan(over: Partial<ScanSummary> = {}): ScanSummary {
  return {
    scan_id: SCAN,
    state: "completed",
    git_uri: "https://github.com/acme/shop.git",
    branch: "main",
    commit: "abcdef1234567890abcdef1234567890abcdef12",
    group_id: "g1",
    group_name: "payments",
    created_at: "2025-03-01T10:00:00.000Z",
    finished_at: "2025-03-01T10:02:30.000Z",
    error: null,
    counts: {
      CRITICAL: 1,
      HIGH: 2,
      MEDIUM: 3,
      LOW: 0,
      INFO: 0,
      total: 6,
      new: 2,
      fixed: 0,
      suppressed: 1,
      introduced: 0,
      to_review: 5,
      true_positive: 1,
      false_positive: 2,
      accepted_risk: 0,
      marked_fixed: 0,
    },
    languages: ["python", "javascript"],
    ...over,
  };
}

function finding(n: number, over: Partial<FindingSummary>): FindingSummary {
  return {
    finding_id: fid(n),
    scan_id: SCAN,
    rule_id: "r",
    analyzer: "ast-grep",
    title: `t${n}`,
    message: "m",
    cwe_id: null,
    cwe_name: null,
    severity: "MEDIUM",
    confidence: "HIGH",
    status: "TO REVIEW",
    file: "src/app.py",
    start_line: n * 10,
    end_line: n * 10,
    snippet: "x",
    remediation: null,
    fix_diff: null,
    ai_class: null,
    ai_confidence: null,
    ...over,
  };
}

const FINDINGS = [
  finding(1, {
    severity: "CRITICAL",
    title: "SQL built from request",
    cwe_id: "CWE-89",
    cwe_name: "SQL Injection",
    file: "src/db.py",
    ai_class: "true_positive",
    ai_confidence: 0.91,
  }),
  finding(2, { severity: "HIGH", title: "Second SQL query", cwe_id: "CWE-89", cwe_name: "SQL Injection", file: "src/db.py" }),
  finding(3, { severity: "HIGH", title: "Shell command", cwe_id: "CWE-78", cwe_name: "OS Command Injection" }),
  finding(4, { title: "Reflected XSS", cwe_id: "CWE-79", cwe_name: "Cross-site Scripting" }),
  finding(5, {
    title: "<img src=x onerror=alert(1)> [click](javascript:alert(1))",
    cwe_id: "CWE-79",
    cwe_name: "Cross-site Scripting",
    file: "web/a|b`c.js",
  }),
  finding(6, { title: "Weak hash", cwe_id: "CWE-328", cwe_name: null, file: "src/db.py" }),
];

/** What the API's PostgreSQL implementation returns, from arrays; `calls` records reads. */
function dataSource(scans: ScanSummary[], findings: FindingSummary[], calls: string[] = []): ChatDataSource {
  return {
    recentScans: async (limit) => (calls.push("recentScans"), scans.slice(0, limit)),
    scan: async (id) => (calls.push("scan"), scans.find((s) => s.scan_id === id) ?? null),
    findings: async (id, limit) => (calls.push("findings"), findings.filter((f) => f.scan_id === id).slice(0, limit)),
    finding: async (id) => findings.find((f) => f.finding_id === id) ?? null,
    cweCounts: async (id, limit) => {
      const tally = new Map<string, { cwe_id: string; cwe_name: string | null; count: number }>();
      for (const f of findings.filter((x) => x.scan_id === id && x.cwe_id)) {
        const t = tally.get(f.cwe_id!) ?? { cwe_id: f.cwe_id!, cwe_name: f.cwe_name, count: 0 };
        t.count++;
        tally.set(f.cwe_id!, t);
      }
      return [...tally.values()].sort((a, b) => b.count - a.count).slice(0, limit);
    },
  };
}

function context(data: ChatDataSource, route: Partial<Route> = {}, over: Partial<SpecialistContext> = {}): SpecialistContext {
  return tenantContext(data, "summarize my last scan", { specialist: "findings", cweIds: [], score: 0.9, ...route }, over);
}

function answer(ctx: SpecialistContext): Promise<string[]> {
  return answerLines(findingsSpecialist, ctx);
}

it("summarizes the newest scan with the data source's numbers", async () => {
  const lines = await answer(context(dataSource([scan(), scan({ scan_id: OLD })], FINDINGS)));
  const text = lines.join("\n");
  expect(text).toContain("### Scan of `https://github.com/acme/shop.git`");
  expect(text).toContain(`**Scan:** \`${SCAN}\` — **completed**, created 2025-03-01 10:00 UTC, finished 2025-03-01 10:02 UTC`);
  expect(text).toContain("**Branch:** `main` · **Commit:** `abcdef1`");
  expect(lines).toEqual(
    expect.arrayContaining([
      "#### Open findings by severity",
      "| CRITICAL | 1 |",
      "| HIGH | 2 |",
      "| MEDIUM | 3 |",
      "| LOW | 0 |",
      "| **Total** | 6 |",
    ]),
  );
  expect(text).toContain("_Open: TO REVIEW or TRUE POSITIVE, and not suppressed in the source._");
  // Every status, zeros included, so that closed findings are visible beside the open ones.
  const statuses = text.split("#### Findings by review status\n\n")[1]?.split("\n\n")[0]?.split("\n");
  expect(statuses).toEqual([
    "| Status | Findings |",
    "| --- | --- |",
    "| TO REVIEW | 5 |",
    "| TRUE POSITIVE | 1 |",
    "| FALSE POSITIVE | 2 |",
    "| ACCEPTED RISK | 0 |",
    "| FIXED (still reported) | 0 |",
  ]);
  expect(text).toContain("Also: new 2 · suppressed 1\n");
  expect(lines).toEqual(
    expect.arrayContaining([
      "| CWE-89 | SQL Injection | 2 |",
      "| CWE-79 | Cross-site Scripting | 2 |",
      "| CWE-78 | OS Command Injection | 1 |",
    ]),
  );
  const top = lines.filter((l) => /^\d+\. /.test(l) && l.includes("finding `"));
  expect(top).toHaveLength(5);
  expect(top[0]).toBe(
    `1. **CRITICAL** SQL built from request — \`src/db.py:10\` — finding \`${fid(1)}\` · CWE-89 · AI label: true\\_positive (91%)`,
  );
  expect(text).not.toContain(OLD);
});

it("marks a finding a reviewer has judged, and shows counts without a status breakdown as they are", async () => {
  const judged = [
    finding(1, { severity: "HIGH", status: "FALSE POSITIVE", title: "Not reachable" }),
    finding(2, { severity: "LOW", title: "Open one" }),
  ];
  const old = { CRITICAL: 0, HIGH: 0, MEDIUM: 0, LOW: 1, INFO: 0, total: 1, new: 1, fixed: 0, suppressed: 0, introduced: 0 };
  const lines = await answer(context(dataSource([scan({ counts: old })], judged)));
  expect(lines).toContain(`1. **HIGH** Not reachable — \`src/app.py:10\` — finding \`${fid(1)}\` · FALSE POSITIVE`);
  expect(lines).toContain(`2. **LOW** Open one — \`src/app.py:20\` — finding \`${fid(2)}\``);
  expect(lines).toContain("| **Total** | 1 |");
  expect(lines).not.toContain("#### Findings by review status");
});

it("uses the scan the route names", async () => {
  const text = (
    await answer(context(dataSource([scan(), scan({ scan_id: OLD, git_uri: "https://github.com/acme/old.git" })], []), { scanId: OLD }))
  ).join("\n");
  expect(text).toContain("acme/old.git");
  expect(text).toContain("No findings were reported for this scan.");
});

it("says there are no scans yet and how to start one", async () => {
  const text = (await answer(context(dataSource([], [])))).join("\n");
  expect(text).toContain("There are no scans in this organization yet.");
  expect(text).toContain("`POST /api/v2/scan`");
  const inGroup = (await answer(context(dataSource([], []), {}, { groupId: "g9" }))).join("\n");
  expect(inGroup).toContain("There are no scans in this group yet.");
  expect(inGroup).toContain("`POST /api/v2/scan?group_id=g9`");
});

it("does not find a scan it cannot see", async () => {
  const text = (await answer(context(dataSource([scan()], []), { scanId: OLD }))).join("\n");
  expect(text).toContain(`I can't find scan \`${OLD}\` in this organization.`);
});

it("focuses on the CWE the question names", async () => {
  const lines = await answer(
    context(dataSource([scan()], FINDINGS), { cweIds: ["CWE-89", "CWE-22"] }, { prompt: "is CWE-89 or CWE-22 in my last scan?" }),
  );
  const text = lines.join("\n");
  expect(text).toContain("- **CWE-89** (SQL Injection): 2 findings");
  expect(text).toContain("- **CWE-22**: no findings in this scan");
  const listed = lines.filter((l) => l.includes("finding `aaaaaaaa"));
  expect(listed.map((l) => l.includes("CWE-89"))).toEqual([true, true]);
});

it("says when the scan failed or is still running", async () => {
  const failed = (
    await answer(context(dataSource([scan({ state: "failed", error: "clone failed: <repo> not found", counts: {} })], [])))
  ).join("\n");
  expect(failed).toContain("> **The scan failed:** clone failed: &lt;repo&gt; not found");
  const calls: string[] = [];
  const running = (await answer(context(dataSource([scan({ state: "running", finished_at: null, counts: {} })], FINDINGS, calls)))).join(
    "\n",
  );
  expect(running).toContain("The scan is still **running**");
  expect(running).not.toContain("Top findings");
  expect(calls).not.toContain("findings");
});

it("notes a group scope", async () => {
  const text = (await answer(context(dataSource([scan()], FINDINGS), {}, { groupId: "g1" }))).join("\n");
  expect(text).toContain("**Group:** payments (this chat is limited to this group)");
});

it("tallies files when asked which files have the most issues", async () => {
  const lines = await answer(context(dataSource([scan()], FINDINGS), {}, { prompt: "which files have the most issues?" }));
  expect(lines).toEqual(
    expect.arrayContaining(["| `src/db.py` | 3 |", "| `src/app.py` | 2 |", "| ``web/a\\|b`c.js`` | 1 |", "_Counted over all 6 findings._"]),
  );
});

it("escapes hostile titles and paths from the scanned repository", async () => {
  const text = (await answer(context(dataSource([scan()], FINDINGS)))).join("\n");
  expect(text).not.toContain("<img");
  expect(text).not.toContain("](javascript:");
  expect(text).toContain("&lt;img src=x onerror=alert\\(1\\)&gt; \\[click\\]\\(javascript:alert\\(1\\)\\)");
  expect(text).toContain("``web/a|b`c.js:50``");
});

it("with a model, passes the same facts as context", async () => {
  const seen: ChatTurn[][] = [];
  const provider: ModelProvider = {
    complete: async () => ({ content: "", model: "m" }),
    completeJson: async () => Promise.reject(new Error("not used")),
    async *stream(req) {
      seen.push(req.messages);
      yield "Your last scan has 1 critical finding.";
    },
  };
  const lines = await answer(context(dataSource([scan()], FINDINGS), {}, { model: { provider, name: "m" } }));
  expect(lines).toEqual(["Your last scan has 1 critical finding."]);
  expect(seen[0]![0]!.content).toContain("| CRITICAL | 1 |");
  expect(seen[0]![0]!.content).toContain(fid(1));
});

it("answers 'no scans' itself even with a model", async () => {
  const provider: ModelProvider = {
    complete: async () => Promise.reject(new Error("not used")),
    completeJson: async () => Promise.reject(new Error("not used")),
    stream: () => {
      throw new Error("the model must not be asked");
    },
  };
  const text = (await answer(context(dataSource([], []), {}, { model: { provider, name: "m" } }))).join("\n");
  expect(text).toContain("There are no scans");
});

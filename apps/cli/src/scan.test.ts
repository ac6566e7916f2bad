// `ax scan`, `ax findings` and `ax triage`: the real binary against the real API, a real
// worker running the real analyzers on git repositories made here (see apps/cli/test/cli-harness.ts).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { makeGitRepo } from "@ax/testkit";
import { fixture, startCliHarness, type CliHarness } from "../test/cli-harness";

interface FindingJson {
  finding_id: string;
  scan_id: string;
  severity: string;
  status: string;
  reason: string | null;
  cwe_id: string | null;
}

let h: CliHarness;
let vulnerable: string;

beforeAll(async () => {
  h = await startCliHarness();
  // CRITICAL (SQL and command injection), HIGH (unsafe YAML load) and MEDIUM (weak hashes).
  vulnerable = makeGitRepo({
    "src/db.js": fixture("vulnerable.js"),
    "app/util.py": fixture("vulnerable.py"),
    "java/Vulnerable.java": fixture("Vulnerable.java"),
  });
});
afterAll(async () => {
  await h.close();
});

interface ScanJson {
  scan: { scan_id: string; state: string; counts: Record<string, number> };
  gate?: { open: number; passed: boolean };
}

/** `ax scan … --json`; stderr is empty unless a --fail-on gate failed. */
async function scanJson(args: string[]): Promise<ScanJson> {
  const r = await h.ax(["scan", ...args, "--json"]);
  const json = JSON.parse(r.out) as ScanJson;
  expect(r.code).toBe(json.gate?.passed === false ? 3 : 0);
  if (r.code === 0) expect(r.err).toBe("");
  return json;
}

async function findingsJson(scanId: string, ...filters: string[]): Promise<FindingJson[]> {
  const r = await h.ax(["findings", scanId, "--format", "json", ...filters]);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as FindingJson[];
}

describe("ax scan", () => {
  it("queues a scan and prints its id", async () => {
    const r = await h.ax(["scan", vulnerable, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ scan_id: expect.stringMatching(/^[0-9a-f-]{36}$/), state: "queued" });
    const human = await h.ax(["scan", vulnerable, "--branch", "main"]);
    expect(human.out).toMatch(/^Scan [0-9a-f-]{36} queued\.\nIts findings, once it completes: ax findings [0-9a-f-]{36}\n$/);
  });

  it("--wait follows the phases as plain lines off a terminal, then prints the scan's counts", async () => {
    // Files no earlier scan has seen (nothing cached), with enough in them to take a few polls.
    const salt = randomBytes(4).toString("hex");
    const hashes = Array.from(
      { length: 200 },
      (_, i) => `function h${i}_${salt}(d) { return crypto.createHash("md5").update(d).digest("hex"); }`,
    );
    const fresh = makeGitRepo({
      "src/db.js": fixture("vulnerable.js"),
      "app/util.py": fixture("vulnerable.py"),
      "java/Vulnerable.java": fixture("Vulnerable.java"),
      "src/hashes.js": ['const crypto = require("crypto");', ...hashes, ""].join("\n"),
    });
    const r = await h.ax(["scan", fresh, "--wait"]);
    expect(r.code).toBe(0);
    expect(r.err).toBe("");
    const lines = r.out.split("\n");
    expect(lines[0]).toBe(`Scan ${lines[0]!.split(" ")[1]} of ${fresh}`);
    // The worker may pass a phase between two polls; the ones seen are printed in order, once.
    const phases = lines.filter((l) => /^(queued|running: \w+|completed) \(\d+%\)$/.test(l));
    expect(phases.length).toBeGreaterThanOrEqual(2);
    expect(phases.some((l) => l.startsWith("running: "))).toBe(true);
    expect(phases[phases.length - 1]).toBe("completed (100%)");
    expect(new Set(phases).size).toBe(phases.length);
    expect(r.out).toMatch(/Completed in \d+\.\d s at [0-9a-f]{12}\./);
    expect(r.out).toMatch(
      new RegExp(
        "SEVERITY {2}OPEN\nCRITICAL +2\nHIGH +1\nMEDIUM +203\nLOW +1\nINFO +0\ntotal +207\n\n" +
          "207 new · 0 fixed since the previous scan · 0 suppressed in the source · 0 false positive · 0 accepted risk · 0 marked fixed\n",
      ),
    );
    expect(r.out).not.toContain("\x1b[");
  });

  it("--fail-on high exits 3 while a HIGH or CRITICAL finding is open, 0 once they are triaged", async () => {
    const gated = await h.ax(["scan", vulnerable, "--fail-on", "high"]);
    expect(gated.code).toBe(3);
    expect(gated.err).toMatch(/^ax: 3 open findings at HIGH or above \(--fail-on high\)\./);
    // MEDIUM findings alone do not trip a HIGH gate but do trip a MEDIUM one.
    const first = await scanJson([vulnerable, "--fail-on", "critical"]);
    expect(first.gate).toEqual({ fail_on: "CRITICAL", open: 2, passed: false });

    for (const f of await findingsJson(first.scan.scan_id, "--severity", "critical,high")) {
      const t = await h.ax(["triage", f.scan_id, f.finding_id, "--status", "accepted_risk", "--reason", "internal tool"]);
      expect(t.code).toBe(0);
    }
    // A new scan of the project carries the review over, so the gate passes.
    const passed = await h.ax(["scan", vulnerable, "--fail-on", "high"]);
    expect(passed.code).toBe(0);
    expect(passed.out).toMatch(/HIGH +0\n/);
    expect(passed.out).toContain(" · 3 accepted risk · ");
    expect(passed.out).toContain("No open findings at HIGH or above.");
    const carried = await scanJson([vulnerable, "--wait"]);
    expect(carried.scan.counts).toMatchObject({ CRITICAL: 0, HIGH: 0, accepted_risk: 3 });
    expect((await h.ax(["scan", vulnerable, "--fail-on", "medium"])).code).toBe(3);
  });

  it("--fail-on passes on a repository without findings", async () => {
    const safe = makeGitRepo({ "src/safe.js": fixture("safe.js"), "app/safe.py": fixture("safe.py") });
    const r = await scanJson([safe, "--fail-on", "info"]);
    expect(r.scan.state).toBe("completed");
    expect(r.gate).toEqual({ fail_on: "INFO", open: 0, passed: true });
    expect(r.scan.counts).toMatchObject({ total: 0, suppressed: 0, fixed: 0 });
  });

  it("exits 1 with the reason when the scan fails", async () => {
    const r = await h.ax(["scan", path.join(path.dirname(vulnerable), "no-such-repo"), "--wait"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("failed");
    expect(r.err).toMatch(/^ax: Scan [0-9a-f-]{36} failed: /);
  });

  it("scans into a group given by name", async () => {
    const group = JSON.parse((await h.ax(["groups", "create", "mobile", "--json"])).out) as { group_id: string };
    const r = await scanJson([vulnerable, "--group", "mobile", "--wait"]);
    expect(r.scan).toMatchObject({ state: "completed", group_id: group.group_id });
    const unknown = await h.ax(["scan", vulnerable, "--group", "no-such-group"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('No group named "no-such-group"');
  });
});

describe("ax findings --refuted", () => {
  it("lists the pattern matches the taint analysis refuted, with the reason, apart from the findings", async () => {
    const repo = makeGitRepo({
      "jobs/cleanup.py": 'import subprocess\n\n\ndef cleanup():\n    return subprocess.call("rm -rf /tmp/cache", shell=True)\n',
    });
    const scanId = (await scanJson([repo, "--wait"])).scan.scan_id;
    const table = await h.ax(["findings", scanId, "--refuted"]);
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/^CWE\s+RULE\s+LOCATION\s+WHY REFUTED$/m);
    expect(table.out).toContain("jobs/cleanup.py:5");
    expect(table.out).toMatch(/its dangerous arguments are constants/);
    const json = JSON.parse((await h.ax(["findings", scanId, "--refuted", "--format", "json"])).out) as { cwe_id: string; file: string }[];
    expect(json.length).toBeGreaterThan(0);
    expect(json.every((m) => m.file === "jobs/cleanup.py" && m.cwe_id === "CWE-78")).toBe(true);
    // Not findings: the list has no CWE-78 finding there.
    expect(await findingsJson(scanId, "--cwe", "CWE-78")).toEqual([]);
    const misuse = await h.ax(["findings", scanId, "--refuted", "--format", "sarif"]);
    expect(misuse.code).toBe(2);
    expect(misuse.err).toContain("--refuted lists every refuted match");
  });
});

describe("ax findings and ax triage", () => {
  let scanId: string;
  beforeAll(async () => {
    scanId = (await scanJson([vulnerable, "--wait"])).scan.scan_id;
  });

  it("prints a table, most severe first, with the ids triage needs", async () => {
    const r = await h.ax(["findings", scanId]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^SEVERITY\s+STATUS\s+CWE\s+RULE\s+LOCATION\s+AI\s+FINDING ID$/);
    expect(lines.slice(1, 7).map((l) => l.split(/\s+/)[0])).toEqual(["CRITICAL", "CRITICAL", "HIGH", "MEDIUM", "MEDIUM", "MEDIUM"]);
    expect(r.out).toContain("src/db.js:6");
    // The last row is the fixture's Express app keeping its X-Powered-By header (LOW).
    expect(lines.find((l) => l.startsWith("LOW"))).toMatch(/js-express-x-powered-by/);
    expect(lines[lines.length - 1]).toBe("7 findings");
    expect((await h.ax(["findings", scanId, "--severity", "info"])).out).toBe("No findings match.\n");
  });

  it("filters in JSON and in SARIF alike", async () => {
    const critical = await findingsJson(scanId, "--severity", "critical");
    expect(critical.map((f) => f.cwe_id).sort()).toEqual(["CWE-78", "CWE-89"]);
    expect((await findingsJson(scanId, "--cwe", "cwe-328")).every((f) => f.severity === "MEDIUM")).toBe(true);

    const sarifRun = await h.ax(["findings", scanId, "--format", "sarif", "--severity", "critical,high"]);
    expect(sarifRun.code).toBe(0);
    const sarif = JSON.parse(sarifRun.out) as {
      version: string;
      runs: { results: { ruleId: string; properties: { severity: string; finding_id: string } }[] }[];
    };
    expect(sarif.version).toBe("2.1.0");
    // One run per analyzer.
    const results = sarif.runs.flatMap((run) => run.results);
    expect(results.map((x) => x.properties.severity).sort()).toEqual(["CRITICAL", "CRITICAL", "HIGH"]);
    const all = JSON.parse((await h.ax(["findings", scanId, "--format", "sarif"])).out) as typeof sarif;
    expect(all.runs.flatMap((run) => run.results)).toHaveLength(7);
  });

  it("triages a finding: the status and reason change and the status filter sees it", async () => {
    const [target] = await findingsJson(scanId, "--severity", "medium");
    const r = await h.ax(["triage", scanId, target!.finding_id, "--status", "false positive", "--reason", "test fixture"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^Finding ${target!.finding_id} \\(MEDIUM .+\\) is now FALSE POSITIVE — test fixture\\.\\n$`));
    const closed = await findingsJson(scanId, "--status", "FALSE_POSITIVE");
    expect(closed.map((f) => [f.finding_id, f.reason])).toEqual([[target!.finding_id, "test fixture"]]);
    expect(await findingsJson(scanId, "--status", "to review", "--severity", "medium")).toHaveLength(2);

    const bad = await h.ax(["triage", scanId, target!.finding_id, "--status", "maybe"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /^ax: 400 Bad Request: Invalid body: status must be one of: TO REVIEW, TRUE POSITIVE, FALSE POSITIVE, ACCEPTED RISK, FIXED\.\n$/,
    );
    const missing = await h.ax(["triage", scanId, "00000000-0000-4000-8000-000000000000", "--status", "fixed"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe("ax: 404 Not Found: Finding not found.\n");
  });

  it("follows the cursor through every page", async () => {
    // 520 weak hashes: more than one page of 500.
    const lines = Array.from(
      { length: 520 },
      (_, i) => `function h${i}(d) { return crypto.createHash("md5").update(d + ${i}).digest("hex"); }`,
    );
    const big = makeGitRepo({ "hashes.js": ['const crypto = require("crypto");', ...lines, ""].join("\n") });
    const r = await scanJson([big, "--wait"]);
    expect(r.scan.counts).toMatchObject({ MEDIUM: 520, total: 520 });
    const all = await findingsJson(r.scan.scan_id);
    expect(all).toHaveLength(520);
    expect(new Set(all.map((f) => f.finding_id)).size).toBe(520);
  });

  it("shows the service's 404 for an unknown scan", async () => {
    const r = await h.ax(["findings", "00000000-0000-4000-8000-000000000000"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("ax: 404 Not Found: Scan not found.\n");
  });
});

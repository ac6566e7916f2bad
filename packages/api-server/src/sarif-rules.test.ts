// SARIF rules describe the rule, never one finding's triage (issue 16), and FIXED findings
// stay out of the results. End to end: PostgreSQL, Redis, an in-process worker, git and the
// real analyzers (ast-grep with our rule pack, shellcheck).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { loadRules } from "@ax/rules";
import { commitFiles, makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "../test/fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

let h: ApiHarness;
const key = () => ({ "X-AX-KEY": h.tenant.token });

interface F {
  finding_id: string;
  analyzer: string;
  rule_id: string;
  file: string;
  start_line: number;
  severity: string;
  confidence: string;
  remediation: string | null;
  status: string;
  baseline_state: string;
}

interface SarifRule {
  id: string;
  help?: { text: string };
  defaultConfiguration?: { level: string };
  properties: { "security-severity"?: string; precision?: string };
}
interface SarifResult {
  ruleId: string;
  level: string;
  baselineState: string;
  suppressions?: { kind: string; status: string }[];
  properties: { finding_id: string; severity: string; status: string };
}
interface Sarif {
  runs: { tool: { driver: { name: string; rules: SarifRule[] } }; results: SarifResult[] }[];
}

const LEVEL: Record<string, string> = { CRITICAL: "error", HIGH: "error", MEDIUM: "warning", LOW: "note", INFO: "note" };
const SECURITY_SEVERITY: Record<string, string> = { CRITICAL: "9.5", HIGH: "8.0", MEDIUM: "5.5", LOW: "3.0", INFO: "1.0" };
const RANK: Record<string, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, INFO: 4 };

async function scan(gitUri: string): Promise<string> {
  const res = await request(h.app).post("/api/v2/scan").set(key()).send({ git_uri: gitUri });
  expect(res.status).toBe(200);
  await waitFor(
    async () => {
      const r = await request(h.app).get(`/api/v2/scan/${res.body.scan_id}`).set(key());
      if (r.body.state === "failed" || r.body.state === "cancelled") throw new Error(`scan ${r.body.state}: ${r.body.error}`);
      return r.body.state === "completed";
    },
    { timeoutMs: 90_000, what: "scan" },
  );
  return res.body.scan_id as string;
}

async function findings(scanId: string, query = ""): Promise<F[]> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/findings?limit=500${query}`).set(key());
  expect(r.status).toBe(200);
  return r.body.findings;
}

async function sarif(scanId: string, query = ""): Promise<Sarif> {
  const r = await request(h.app).get(`/api/v2/scan/${scanId}/sarif${query}`).set(key());
  expect(r.status).toBe(200);
  return JSON.parse(r.text) as Sarif;
}

async function triage(scanId: string, findingId: string, patch: Record<string, string>) {
  const r = await request(h.app).put(`/api/v2/scan/${scanId}/finding/${findingId}`).set(key()).send(patch);
  expect(r.status).toBe(200);
}

const ruleIn = (log: Sarif, id: string) => log.runs.flatMap((r) => r.tool.driver.rules).find((r) => r.id === id);
const resultsOf = (log: Sarif) => log.runs.flatMap((r) => r.results);

/** What a rule must say when described from these findings as the analyzer reported them. */
function reportedRule(fs: F[]) {
  const [top] = [...fs].sort(
    (a, b) => RANK[a.severity]! - RANK[b.severity]! || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.start_line - b.start_line),
  );
  const f = top as F;
  return {
    level: LEVEL[f.severity],
    securitySeverity: SECURITY_SEVERITY[f.severity],
    help: f.remediation ?? undefined,
    precision: f.confidence === "HIGH" ? "high" : f.confidence === "LOW" ? "low" : "medium",
  };
}

const described = (r: SarifRule | undefined) => ({
  level: r?.defaultConfiguration?.level,
  securitySeverity: r?.properties["security-severity"],
  help: r?.help?.text,
  precision: r?.properties.precision,
});

beforeAll(async () => {
  h = await createApiHarness({ worker: true });
});
afterAll(() => h.close());

describe("SARIF rule metadata and triage", () => {
  let repo: string;
  let first: string;
  let before: F[];
  // A rule of our pack with two findings, and a shellcheck rule with two.
  let pack: F[];
  let shell: F[];

  beforeAll(async () => {
    repo = makeGitRepo({
      "src/db.js": fixture("vulnerable.js"),
      "src/more.js": 'const crypto = require("crypto");\nmodule.exports = (p) => crypto.createHash("md5").update(p).digest("hex");\n',
      "deploy/run.sh": "#!/bin/sh\nrm -rf $1/cache\nrm -rf $2/cache\n",
    });
    first = await scan(repo);
    before = await findings(first);
    pack = before.filter((f) => f.analyzer === "ast-grep" && f.rule_id === "js-weak-hash");
    const shellRules = [...new Set(before.filter((f) => f.analyzer === "shellcheck").map((f) => f.rule_id))];
    const rule = shellRules.find((r) => before.filter((f) => f.rule_id === r).length >= 2) as string;
    shell = before.filter((f) => f.analyzer === "shellcheck" && f.rule_id === rule);
    expect(pack).toHaveLength(2);
    expect(shell.length).toBeGreaterThanOrEqual(2);
  });

  it("takes our rule pack's rules from their definitions, whatever a reviewer sets on one finding", async () => {
    const definition = loadRules().find((r) => r.id === "js-weak-hash")!;
    const target = pack[0] as F;
    await triage(first, target.finding_id, { severity: "critical", remediation: "A reviewer's note on this one call.", confidence: "low" });
    const log = await sarif(first);
    expect(described(ruleIn(log, "js-weak-hash"))).toEqual({
      level: LEVEL[definition.severity],
      securitySeverity: SECURITY_SEVERITY[definition.severity],
      help: definition.remediation,
      precision: definition.confidence.toLowerCase(),
    });
    // The result itself shows the triage.
    const result = resultsOf(log).find((r) => r.properties.finding_id === target.finding_id);
    expect(result).toMatchObject({ level: "error", properties: { severity: "CRITICAL" } });
  });

  it("takes other analyzers' rules from what they reported at scan time, even when every finding was re-triaged", async () => {
    const expected = reportedRule(shell);
    for (const f of shell)
      await triage(first, f.finding_id, { severity: "critical", remediation: "Reviewer: quote it.", confidence: "low" });
    const rule = ruleIn(await sarif(first), shell[0]!.rule_id);
    expect(described(rule)).toEqual(expected);
    expect(rule?.help?.text).not.toBe("Reviewer: quote it.");
  });

  describe("on the next scans, with the decisions carried", () => {
    let second: string;
    beforeAll(async () => {
      second = await scan(repo);
    });

    it("still describes the rules as defined or reported", async () => {
      const now = await findings(second);
      // The decisions came along: every shellcheck finding of the rule is CRITICAL now.
      expect(now.filter((f) => f.rule_id === shell[0]!.rule_id).map((f) => f.severity)).toEqual(shell.map(() => "CRITICAL"));
      const log = await sarif(second);
      expect(described(ruleIn(log, shell[0]!.rule_id))).toEqual(reportedRule(shell));
      const definition = loadRules().find((r) => r.id === "js-weak-hash")!;
      expect(ruleIn(log, "js-weak-hash")?.help?.text).toBe(definition.remediation);
    });

    it("describes a rule whose findings are all fixed from the records, as reported when first found", async () => {
      commitFiles(repo, { "deploy/run.sh": "#!/bin/sh\necho done\n" }, "no more rm");
      const third = await scan(repo);
      const absent = await findings(third, "&baseline=absent");
      expect(absent.filter((f) => f.rule_id === shell[0]!.rule_id).length).toBe(shell.length);
      // Left out by default: the log is the commit's.
      const log = await sarif(third);
      expect(resultsOf(log).some((r) => r.baselineState === "absent" || r.ruleId === shell[0]!.rule_id)).toBe(false);
      const withAbsent = await sarif(third, "?include_absent=true");
      expect(
        resultsOf(withAbsent)
          .filter((r) => r.ruleId === shell[0]!.rule_id)
          .every((r) => r.baselineState === "absent"),
      ).toBe(true);
      expect(described(ruleIn(withAbsent, shell[0]!.rule_id))).toEqual(reportedRule(shell));
    });
  });

  it("keeps a finding a reviewer marked FIXED but the commit still has as an open result, its claim under review", async () => {
    const sqli = before.find((f) => f.rule_id.startsWith("js-sql-injection")) as F;
    await triage(first, sqli.finding_id, { status: "fixed", reason: "patched upstream" });
    const result = resultsOf(await sarif(first)).find((r) => r.properties.finding_id === sqli.finding_id);
    expect(result).toMatchObject({ baselineState: expect.not.stringMatching(/^absent$/), properties: { status: "FIXED" } });
    expect(result?.suppressions).toEqual([{ kind: "external", status: "underReview", justification: "patched upstream" }]);
  });
});

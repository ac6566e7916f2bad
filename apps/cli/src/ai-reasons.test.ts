// `ax findings` shows the AI label, its reasons and what the group's AI policy did, against the
// real API, PostgreSQL and Redis. The scan is stored as the worker stores one, with the review
// model's labels given, so what the table shows is exact.
import type { AnalyzerRun } from "@ax/contracts";
import { createScan, findOrCreateProject, markRunning, putAiPolicy, storeScanResults } from "@ax/db";
import { SEED_FINDING } from "@ax/testkit/api";
import { startCliHarness, type CliHarness } from "../test/cli-harness";

let h: CliHarness;
let scanId: string;
const RUNS: AnalyzerRun[] = [{ name: "ast-grep", version: "1", status: "completed", duration_ms: 1, findings: 2 }];
const REASONS = ["the value reaches executeQuery only as a bound parameter", "the file is a test"];

beforeAll(async () => {
  h = await startCliHarness({ worker: false });
  const db = h.api.stack.handle.db;
  const t = h.api.tenant;
  await putAiPolicy(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    policy: { autoCloseAt: 0.9, suggestAt: 0.8 },
    userId: t.user_id,
  });
  const project = await findOrCreateProject(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    gitUrl: "file:///cli-ai",
    name: "cli-ai",
  });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: "file:///cli-ai",
    branch: "main",
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(db, scan.id);
  const closed = { ...SEED_FINDING, fingerprint: "a".repeat(64) };
  const unsure = { ...SEED_FINDING, file: "src/other.js", start_line: 9, end_line: 9, fingerprint: "b".repeat(64) };
  await storeScanResults(db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: t.organization_id,
    findings: [closed, unsure],
    analyzers: RUNS,
    languages: ["javascript"],
    aiLabels: new Map([
      [closed.fingerprint, { class: "FALSE_POSITIVE", confidence: 0.96, model: "review-lr-test", reasons: REASONS }],
      [unsure.fingerprint, { class: "TRUE_POSITIVE", confidence: 0.55, model: "review-lr-test", reasons: ["line one\nline two"] }],
    ]),
  });
  scanId = scan.id;
});
afterAll(() => h.close());

it("shows the AI label and the policy's action in the table, and the reasons under each finding with --reasons", async () => {
  const plain = await h.ax(["findings", scanId]);
  expect(plain.code).toBe(0);
  const lines = plain.out.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^SEVERITY\s+STATUS\s+CWE\s+RULE\s+LOCATION\s+AI\s+FINDING ID$/);
  expect(lines.find((l) => l.includes("src/db.js:3"))).toMatch(/FALSE POSITIVE .* FP 0\.96 auto closed /);
  expect(lines.find((l) => l.includes("src/other.js:9"))).toMatch(/TO REVIEW .* TP 0\.55 needs review /);
  expect(plain.out).not.toContain("↳");

  const r = await h.ax(["findings", scanId, "--reasons"]);
  const withReasons = r.out.trimEnd().split("\n");
  const at = withReasons.findIndex((l) => l.includes("src/db.js:3"));
  expect(withReasons[at + 1]).toBe(`  ↳ ${REASONS.join("; ")}`);
  // A reason from the service never breaks the table's lines.
  const other = withReasons.findIndex((l) => l.includes("src/other.js:9"));
  expect(withReasons[other + 1]).toBe("  ↳ line one line two");
});

it("filters by the policy's action and keeps the reasons in JSON", async () => {
  const r = await h.ax(["findings", scanId, "--ai-action", "auto_closed", "--format", "json"]);
  expect(r.code).toBe(0);
  const findings = JSON.parse(r.out) as { file: string; ai: { reasons: string[]; action: string } }[];
  expect(findings.map((f) => [f.file, f.ai.action, f.ai.reasons])).toEqual([["src/db.js", "auto_closed", REASONS]]);
  const bad = await h.ax(["findings", scanId, "--ai-action", "closed"]);
  expect(bad.code).not.toBe(0);
  expect(bad.err).toMatch(/ai_action takes auto_closed, suggested, needs_review/);
});

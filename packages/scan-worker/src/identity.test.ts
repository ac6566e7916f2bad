// Finding identity and triage carry-over (docs/scanning.md "Finding identity and triage"), one
// test per case of the issue that reported them broken. Real PostgreSQL, real git repositories
// made here, the real analyzers; scans run through processScan as the worker runs them.
import fs from "node:fs";
import path from "node:path";
import { createScan, findOrCreateProject, updateFinding, type Finding } from "@ax/db";
import { createLogger } from "@ax/logger";
import { defaultAnalyzers, type Analyzer } from "@ax/scanner";
import { commitFiles, createTestStack, git, makeGitRepo, type TestStack } from "@ax/testkit";
import { processScan, type ScanDeps } from "./process-scan";

let stack: TestStack;
const logger = createLogger({ level: "error", format: "json", silent: process.env.AX_DEBUG !== "1" });

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());

interface Scanned {
  id: string;
  commit: string | null;
  reported: Finding[];
  fixed: Finding[];
  notices: unknown[];
}

async function scan(repo: string, branch: string | null = null, extra: Partial<ScanDeps> = {}): Promise<Scanned> {
  const db = stack.handle.db;
  const t = stack.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: repo, name: "p" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: repo,
    branch,
    idempotencyKey: null,
    requestHash: null,
  });
  expect(
    await processScan(
      { db, config: stack.config, logger, ...extra },
      { scan_id: scan.id, organization_id: scan.organization_id },
      { attempt: 1, maxAttempts: 1 },
    ),
  ).toBe("completed");
  const row = await db.selectFrom("scans").select(["commit_sha", "notices"]).where("id", "=", scan.id).executeTakeFirstOrThrow();
  const all = await db.selectFrom("findings").selectAll().where("scan_id", "=", scan.id).orderBy("file").orderBy("start_line").execute();
  return {
    id: scan.id,
    commit: row.commit_sha,
    reported: all.filter((f) => f.baseline_state !== "absent"),
    fixed: all.filter((f) => f.baseline_state === "absent"),
    notices: row.notices,
  };
}

async function triage(f: Finding, status: "TRUE POSITIVE" | "FALSE POSITIVE" | "ACCEPTED RISK") {
  const out = await updateFinding(stack.handle.db, {
    organizationId: f.organization_id,
    scanId: f.scan_id,
    findingId: f.id,
    patch: { status },
    userId: stack.tenant.user_id,
  });
  expect(out.kind).toBe("updated");
}

const at = (s: Scanned, rule: string, file: string, line: number) =>
  s.reported.find((f) => f.rule_id === rule && f.file === file && f.start_line === line);
const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("a rescan reports exactly its commit", () => {
  it("after a fix, the fixed finding is not among the scan's findings, only recorded as fixed", async () => {
    const repo = makeGitRepo({
      "h.js": lines(
        "const crypto = require('crypto');",
        "function h(x) {",
        "  return crypto.createHash('md5').update(x).digest('hex');",
        "}",
      ),
    });
    const first = await scan(repo);
    expect(first.reported.map((f) => f.rule_id)).toContain("js-weak-hash");
    for (let round = 0; round < 3; round++) {
      commitFiles(
        repo,
        {
          "h.js": lines(
            "const crypto = require('crypto');",
            "function h(x) {",
            "  return crypto.createHash('sha256').update(x).digest('hex');",
            "}",
          ),
        },
        "fix",
      );
      const fixed = await scan(repo);
      expect(fixed.commit).toBe(git(repo, "rev-parse", "HEAD"));
      expect(fixed.reported.filter((f) => f.rule_id === "js-weak-hash")).toEqual([]);
      if (round === 0)
        expect(fixed.fixed.map((f) => [f.rule_id, f.status, f.snippet.includes("md5")])).toEqual([["js-weak-hash", "FIXED", true]]);
      // Reintroduced: reported again, as a new finding (no decision was made on it).
      commitFiles(
        repo,
        {
          "h.js": lines(
            "const crypto = require('crypto');",
            "function h(x) {",
            "  return crypto.createHash('md5').update(x).digest('hex');",
            "}",
          ),
        },
        "regress",
      );
      const back = await scan(repo);
      expect(back.reported.filter((f) => f.rule_id === "js-weak-hash").map((f) => f.status)).toEqual(["TO REVIEW"]);
    }
  });

  it("a branch without a finding of main neither reports it nor calls it fixed, alone or concurrently", async () => {
    const redirect = lines(
      "function go(req, res) {",
      "  res.redirect(req.query.next);",
      "}",
      "function run(input) {",
      "  eval(input);",
      "}",
    );
    const repo = makeGitRepo({ "r.js": redirect });
    const main = await scan(repo);
    const open = main.reported.find((f) => f.snippet.includes("redirect"));
    expect(open).toBeDefined();
    await triage(open!, "TRUE POSITIVE");
    git(repo, "checkout", "-q", "-b", "no-redirect");
    commitFiles(repo, { "r.js": redirect.replace("  res.redirect(req.query.next);\n", "  res.send('ok');\n") }, "drop the redirect");
    git(repo, "checkout", "-q", "main");

    const branch = await scan(repo, "no-redirect");
    expect(branch.reported.some((f) => f.snippet.includes("redirect"))).toBe(false);
    // FIXED is per branch: the branch never had it.
    expect(branch.fixed).toEqual([]);
    const [again, concurrent] = await Promise.all([scan(repo), scan(repo, "no-redirect")]);
    expect(concurrent.reported.some((f) => f.snippet.includes("redirect"))).toBe(false);
    // The decision on main survives the branch's scans.
    expect(again.reported.find((f) => f.snippet.includes("redirect"))?.status).toBe("TRUE POSITIVE");
  });
});

describe("decisions belong to the project", () => {
  it("a decision made on an older scan is carried, not dropped", async () => {
    const repo = makeGitRepo({ "a.js": lines("function a(input) {", "  eval(input);", "}") });
    const old = await scan(repo);
    commitFiles(repo, { "b.js": lines("const v = 1;") }, "unrelated");
    await scan(repo);
    await triage(
      old.reported.find((f) => f.file === "a.js")!,
      "FALSE POSITIVE",
    );
    commitFiles(repo, { "c.js": lines("const w = 2;") }, "unrelated again");
    const next = await scan(repo);
    expect(next.reported.find((f) => f.file === "a.js")?.status).toBe("FALSE POSITIVE");
  });

  it("a decision made on a branch applies to main only when main has none of its own", async () => {
    const repo = makeGitRepo({
      "a.js": lines("function a(input) {", "  eval(input);", "}", "function b(s) {", "  return crypto.createHash('md5').update(s);", "}"),
    });
    const main = await scan(repo);
    await triage(
      main.reported.find((f) => f.snippet.includes("eval"))!,
      "TRUE POSITIVE",
    );
    git(repo, "checkout", "-q", "-b", "feature");
    commitFiles(repo, { "z.js": lines("const z = 0;") }, "feature work");
    git(repo, "checkout", "-q", "main");
    const feature = await scan(repo, "feature");
    // From main: the branch has no decision of its own yet.
    expect(feature.reported.find((f) => f.snippet.includes("eval"))?.status).toBe("TRUE POSITIVE");
    await triage(
      feature.reported.find((f) => f.snippet.includes("eval"))!,
      "FALSE POSITIVE",
    );
    await triage(
      feature.reported.find((f) => f.snippet.includes("md5"))!,
      "ACCEPTED RISK",
    );
    commitFiles(repo, { "y.js": lines("const y = 0;") }, "main work");
    const after = await scan(repo);
    // Main's own decision first; the branch's only where main has none.
    expect(after.reported.find((f) => f.snippet.includes("eval"))?.status).toBe("TRUE POSITIVE");
    expect(after.reported.find((f) => f.snippet.includes("md5"))?.status).toBe("ACCEPTED RISK");
  });

  it("an analyzer that fails once loses nothing: its findings are not fixed, the scan says so, and they come back triaged", async () => {
    let failing = false;
    const analyzers: Analyzer[] = defaultAnalyzers().map((a) =>
      a.name !== "ast-grep"
        ? a
        : {
            name: a.name,
            languages: a.languages,
            cacheable: a.cacheable,
            ...(a.concurrent !== undefined ? { concurrent: a.concurrent } : {}),
            version: () => a.version(),
            run: (ctx) => (failing ? Promise.reject(new Error("transient failure")) : a.run(ctx)),
          },
    );
    const repo = makeGitRepo({
      "h.js": lines(
        "const crypto = require('crypto');",
        "function h(x) {",
        "  return crypto.createHash('md5').update(x).digest('hex');",
        "}",
      ),
    });
    const first = await scan(repo, null, { analyzers });
    const weak = first.reported.find((f) => f.rule_id === "js-weak-hash")!;
    await triage(weak, "ACCEPTED RISK");
    failing = true;
    commitFiles(repo, { "n.js": lines("const n = 1;") }, "unrelated");
    const broken = await scan(repo, null, { analyzers });
    expect(broken.reported.some((f) => f.rule_id === "js-weak-hash")).toBe(false);
    expect(broken.fixed).toEqual([]);
    expect(broken.notices).toEqual([
      expect.objectContaining({ kind: "findings_not_verified", analyzer: "ast-grep", status: "failed", findings: 1 }),
    ]);
    failing = false;
    commitFiles(repo, { "m.js": lines("const m = 1;") }, "unrelated again");
    const back = await scan(repo, null, { analyzers });
    const again = back.reported.find((f) => f.rule_id === "js-weak-hash");
    expect(again).toMatchObject({ status: "ACCEPTED RISK", identity: weak.identity, baseline_state: "unchanged" });
    expect(back.notices).toEqual([]);
  });
});

describe("identity follows the code", () => {
  it("a renamed file keeps every decision and reports nothing fixed or new", async () => {
    const repo = makeGitRepo({
      "src/old.js": lines(
        "function a(input) {",
        "  eval(input);",
        "}",
        "function b(s) {",
        "  return crypto.createHash('md5').update(s);",
        "}",
      ),
    });
    const first = await scan(repo);
    expect(first.reported.length).toBeGreaterThanOrEqual(2);
    for (const f of first.reported) await triage(f, "TRUE POSITIVE");
    fs.mkdirSync(path.join(repo, "lib"));
    git(repo, "mv", "src/old.js", "lib/new.js");
    git(repo, "commit", "-q", "-m", "rename");
    const renamed = await scan(repo);
    expect(renamed.fixed).toEqual([]);
    expect(renamed.reported.map((f) => [f.file, f.status, f.baseline_state])).toEqual(
      first.reported.map(() => ["lib/new.js", "TRUE POSITIVE", "unchanged"]),
    );
  });

  it("removing the upper of two identical lines keeps the lower one's decision on it, and fixes the upper", async () => {
    const body = ["function run(input) {", "  eval(input);", "  log(1);", "  eval(input);", "  log(2);", "}"];
    const repo = makeGitRepo({ "e.js": lines(...body) });
    const first = await scan(repo);
    await triage(at(first, "js-eval", "e.js", 2) ?? first.reported.find((f) => f.start_line === 2)!, "FALSE POSITIVE");
    const lower = first.reported.find((f) => f.start_line === 4)!;
    await triage(lower, "TRUE POSITIVE");
    commitFiles(repo, { "e.js": lines(body[0]!, body[2]!, body[3]!, body[4]!, body[5]!) }, "drop the upper eval");
    const after = await scan(repo);
    const remaining = after.reported.filter((f) => f.rule_id === lower.rule_id);
    expect(remaining.map((f) => [f.start_line, f.status, f.identity])).toEqual([[3, "TRUE POSITIVE", lower.identity]]);
    expect(after.fixed.filter((f) => f.rule_id === lower.rule_id).map((f) => [f.start_line, f.status])).toEqual([[2, "FIXED"]]);
  });

  it("an identical line pasted above a triaged one is new, and the triaged one keeps its decision", async () => {
    const repo = makeGitRepo({
      "p.js": lines("function first(input) {", "  log(0);", "}", "function run(input) {", "  eval(input);", "}"),
    });
    const first = await scan(repo);
    const triaged = first.reported.find((f) => f.snippet.includes("eval"))!;
    await triage(triaged, "ACCEPTED RISK");
    commitFiles(
      repo,
      { "p.js": lines("function first(input) {", "  eval(input);", "  log(0);", "}", "function run(input) {", "  eval(input);", "}") },
      "paste above",
    );
    const after = await scan(repo);
    const evals = after.reported.filter((f) => f.rule_id === triaged.rule_id);
    expect(evals.map((f) => [f.start_line, f.status, f.baseline_state])).toEqual([
      [2, "TO REVIEW", "new"],
      [6, "ACCEPTED RISK", "unchanged"],
    ]);
    expect(evals[1]?.identity).toBe(triaged.identity);
  });

  it("a function moved to another file keeps its decision", async () => {
    const fn = ["function moved(input) {", "  const q = input.trim();", "  eval(q);", "  return q;", "}"];
    const repo = makeGitRepo({ "one.js": lines("const a = 1;", ...fn, "const b = 2;"), "two.js": lines("const c = 3;") });
    const first = await scan(repo);
    const triaged = first.reported.find((f) => f.snippet.includes("eval"))!;
    await triage(triaged, "FALSE POSITIVE");
    commitFiles(repo, { "one.js": lines("const a = 1;", "const b = 2;"), "two.js": lines("const c = 3;", "", ...fn) }, "move");
    const after = await scan(repo);
    expect(after.reported.find((f) => f.snippet.includes("eval"))).toMatchObject({
      file: "two.js",
      status: "FALSE POSITIVE",
      identity: triaged.identity,
    });
    expect(after.fixed).toEqual([]);
  });
});

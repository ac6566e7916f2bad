// Diff-aware scans (pull-request checks) against the labelled corpus of pr-corpus.ts: for each
// pull request, the introduced, fixed and suppressed sets must equal the ones worked out by
// hand. Real PostgreSQL, real git repositories made here, the real analyzers; scans run through
// processScan as the worker runs them.
import fs from "node:fs";
import path from "node:path";
import type { ScanDiff } from "@ax/contracts";
import { createScan, findOrCreateProject } from "@ax/db";
import { createLogger } from "@ax/logger";
import { commitFiles, createTestStack, git, makeGitRepo, type TestStack } from "@ax/testkit";
import { BASE_FILES, PR_CORPUS, type Change } from "../test/pr-corpus";
import { processScan } from "./process-scan";

let stack: TestStack;
const logger = createLogger({ level: "error", format: "json", silent: process.env.AX_DEBUG !== "1" });

beforeAll(async () => {
  stack = await createTestStack();
});
afterAll(() => stack.close());

function apply(repo: string, change: Change, message: string): void {
  if ("rename" in change && Array.isArray(change.rename)) {
    const [from, to] = change.rename as [string, string];
    fs.mkdirSync(path.dirname(path.join(repo, to)), { recursive: true });
    git(repo, "mv", from, to);
    git(repo, "commit", "-q", "-m", message);
    return;
  }
  const files = change as Record<string, string | null>;
  for (const [file, content] of Object.entries(files)) if (content === null) fs.rmSync(path.join(repo, file));
  commitFiles(repo, Object.fromEntries(Object.entries(files).filter((e): e is [string, string] => e[1] !== null)), message);
}

async function diffScan(repo: string, branch: string, baseline: string) {
  const db = stack.handle.db;
  const t = stack.tenant;
  const project = await findOrCreateProject(db, { organizationId: t.organization_id, groupId: t.group_id, gitUrl: repo, name: "pr" });
  const { scan } = await createScan(db, {
    organizationId: t.organization_id,
    groupId: t.group_id,
    projectId: project.id,
    createdBy: t.user_id,
    gitUri: repo,
    branch,
    baselineCommit: baseline,
    idempotencyKey: null,
    requestHash: null,
  });
  expect(
    await processScan(
      { db, config: stack.config, logger },
      { scan_id: scan.id, organization_id: scan.organization_id },
      { attempt: 1, maxAttempts: 1 },
    ),
  ).toBe("completed");
  const row = await db.selectFrom("scans").select(["diff", "commit_sha"]).where("id", "=", scan.id).executeTakeFirstOrThrow();
  const findings = await db
    .selectFrom("findings")
    .selectAll()
    .where("scan_id", "=", scan.id)
    .where("baseline_state", "!=", "absent")
    .execute();
  return { diff: row.diff as ScanDiff | null, commit: row.commit_sha, findings };
}

const where = (f: { file: string; start_line: number }) => `${f.file}:${f.start_line}`;
const set = (list: string[]) => [...new Set(list)].sort();

describe("the pull-request corpus", () => {
  test.each(PR_CORPUS.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const repo = makeGitRepo(BASE_FILES);
    const fork = git(repo, "rev-parse", "HEAD").trim();
    git(repo, "checkout", "-q", "-b", "pr");
    c.branch.forEach((change, i) => apply(repo, change, `pr ${i}`));
    git(repo, "checkout", "-q", "main");
    (c.mainAfterFork ?? []).forEach((change, i) => apply(repo, change, `main ${i}`));
    const mainHead = git(repo, "rev-parse", "HEAD").trim();

    const { diff, commit, findings } = await diffScan(repo, "pr", mainHead);
    expect(commit).toBe(git(repo, "rev-parse", "pr").trim());
    expect(diff).toMatchObject({ baseline_commit: mainHead, merge_base: fork });
    // Every analyzer completed on both commits: every finding is judged.
    expect(findings.filter((f) => f.introduced === null).map(where)).toEqual([]);
    expect(set(findings.filter((f) => f.introduced).map(where))).toEqual(set(c.introduced));
    expect(set(diff!.fixed.map(where))).toEqual(set(c.fixed));
    expect(diff!.fixed_total).toBe(diff!.fixed.length);
    expect(set(findings.filter((f) => f.suppression !== null).map(where))).toEqual(set(c.suppressed));
  });
});

// The real `ax` executable, run as a child process against a real PostgreSQL database.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";
import { authenticate, insertAiRequest, newId, openDatabase, upsertFeedback, type DbHandle } from "@ax/db";
import { tmpDir } from "@ax/testkit";
import { createTestDatabase, type TestDatabase } from "@ax/testkit";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
let database: TestDatabase;

function ax(...args: string[]) {
  const r = spawnSync(process.execPath, ["apps/cli/bin/ax.js", ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DATABASE_URL: database.url, LOG_LEVEL: "error" },
    encoding: "utf8",
  });
  return { code: r.status, out: r.stdout, err: r.stderr, json: () => JSON.parse(r.stdout) as Record<string, string> };
}

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe("ax admin", () => {
  it("migrates, then builds an organization, a user, a membership and a token that works", async () => {
    expect(ax("admin", "migrate", "--json").json()).toEqual({
      applied: [
        "0001_init",
        "0002_detection",
        "0003_ai",
        "0004_dataflow",
        "0005_webhooks",
        "0006_public_scan",
        "0007_finding_identity",
        "0008_project_state",
        "0009_finding_list_rank",
        "0010_scan_diff",
        "0011_refuted_matches",
        "0012_ai_reasons_policy",
        "0013_ai_learning",
      ],
    });
    expect(ax("admin", "migrate").out).toContain("up to date");
    const org = ax("admin", "create-org", "Initech", "--json").json();
    expect(org.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    const user = ax("admin", "create-user", "--email", "peter@initech.test", "--name", "Peter Gibbons", "--idp", "okta", "--json").json();
    expect(user).toMatchObject({ email: "peter@initech.test", identity_provider: "okta", is_instance_admin: false });
    expect(ax("admin", "add-member", org.organization_id!, user.user_id!, "--role", "admin", "--json").json()).toEqual({
      organization_id: org.organization_id,
      user_id: user.user_id,
      role: "admin",
    });
    const token = ax("admin", "create-token", user.user_id!, "--name", "laptop", "--expires-days", "7", "--json").json();
    expect(token.token).toMatch(/^axk_/);

    const handle: DbHandle = await openDatabase({ url: database.url, dataDir: "/nonexistent" });
    try {
      const principal = await authenticate(handle.db, token.token!);
      expect(principal?.user.display_name).toBe("Peter Gibbons");
      expect(principal?.memberships).toEqual([{ organization_id: org.organization_id, name: "Initech", role: "admin" }]);
    } finally {
      await handle.close();
    }
  });

  it("bootstraps everything in one call and prints the ids and the token", () => {
    const r = ax("admin", "bootstrap", "--org", "Umbrella", "--email", "alice@umbrella.test", "--name", "Alice", "--idp", "google");
    expect(r.code).toBe(0);
    expect(Object.keys(r.json()).sort()).toEqual(["group_id", "organization_id", "token", "user_id"]);
  });

  it.each([
    [["admin", "add-member", "x", "y", "--role", "king"], /--role must be one of/, 2],
    [["admin", "create-user", "--email", "nope", "--name", "N", "--idp", "x"], /email address/, 2],
    [["admin", "create-user", "--name", "N"], /--email is required/, 2],
    [["admin", "frobnicate"], /Unknown admin command/, 2],
    [["admin", "create-token", "00000000-0000-4000-8000-000000000000"], /No user/, 1],
    [["admin", "migrate", "--bogus"], /Unknown option/, 2],
  ])("ax %j fails clearly", (args, message, code) => {
    const r = ax(...args);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(message);
  });

  it("exports votes on review answers as labeled examples for ai:train", async () => {
    const boot = ax("admin", "bootstrap", "--org", "Votes", "--email", "v@votes.test", "--name", "Vera", "--idp", "github").json();
    const handle: DbHandle = await openDatabase({ url: database.url, dataDir: tmpDir() });
    try {
      const ids = [newId(), newId(), newId()];
      const input = (code: string) => ({ code, cwe_id: "CWE-89", file: "a.java", line: "7" });
      // Confirmed TRUE_POSITIVE → 1; rejected TRUE_POSITIVE → 0; rejected FALSE_POSITIVE → 1.
      const cases: [string, string, boolean][] = [
        ["TRUE_POSITIVE", "q1", true],
        ["TRUE_POSITIVE", "q2", false],
        ["FALSE_POSITIVE", "q3", false],
      ];
      for (const [i, [cls, code, vote]] of cases.entries()) {
        await insertAiRequest(handle.db, {
          id: ids[i] as string,
          organizationId: boot.organization_id as string,
          groupId: null,
          userId: boot.user_id as string,
          kind: "review",
          model: "m",
          class: cls,
          input: input(code),
        });
        await upsertFeedback(handle.db, {
          requestId: ids[i] as string,
          userId: boot.user_id as string,
          organizationId: boot.organization_id as string,
          groupId: boot.group_id as string,
          feedback: vote,
          relayStatus: "disabled",
          relayError: null,
        });
      }
      const out = path.join(tmpDir(), "votes.jsonl");
      const res = ax("admin", "export-feedback", "--out", out, "--org", boot.organization_id as string, "--json");
      expect(res.code).toBe(0);
      expect(res.json()).toEqual({ file: out, examples: 3, votes: 3 });
      const rows = readFileSync(out, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { code: string; label: number; group: string; source: string });
      expect(rows.map((r) => [r.code, r.label]).sort()).toEqual([
        ["q1", 1],
        ["q2", 0],
        ["q3", 1],
      ]);
      expect(rows.every((r) => r.source === "feedback" && r.group.startsWith("feedback/"))).toBe(true);
    } finally {
      await handle.close();
    }
  });
});

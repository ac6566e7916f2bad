// The real `ax` binary against the real API over HTTP on 127.0.0.1 (see apps/cli/test/cli-harness.ts):
// login and logout, the settings' precedence, groups, help, and the error paths.
import fs from "node:fs";
import path from "node:path";
import { addMember, createToken, createUser } from "@ax/db";
import { tmpDir } from "@ax/testkit";
import { closedPort, startCliHarness, type AxResult, type CliHarness } from "../test/cli-harness";

let h: CliHarness;
const results: AxResult[] = [];
const NO_ENV = { AX_URL: undefined, AX_TOKEN: undefined };

async function ax(args: string[], opts: Parameters<CliHarness["ax"]>[1] = {}): Promise<AxResult> {
  const r = await h.ax(args, opts);
  results.push(r);
  return r;
}

beforeAll(async () => {
  h = await startCliHarness();
});
afterAll(async () => {
  await h.close();
});

describe("ax login / logout", () => {
  it("checks the token, stores it with the URL in a 0600 file, and later commands use it", async () => {
    const home = tmpDir("ax-home-");
    const login = await ax(["login", "--url", `${h.url}/api/v2/`], { home, env: NO_ENV, input: `${h.api.tenant.token}\n` });
    expect(login.code).toBe(0);
    expect(login.out).toContain(`Logged in to ${h.url} as Ada Owner`);
    expect(login.out).toContain("Acme (owner)");
    const file = path.join(home, ".config", "ax", "config.json");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({ url: h.url, token: h.api.tenant.token });

    const list = await ax(["groups", "list"], { home, env: NO_ENV });
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^GROUP ID\s+NAME\s+CREATED\n[0-9a-f-]{36}\s+default\s/);

    // The environment wins over the file: a bad AX_TOKEN is refused though the file's is good…
    const badToken = await ax(["groups", "list"], { home, env: { AX_URL: undefined, AX_TOKEN: "axk_not_a_real_token" } });
    expect(badToken.code).toBe(4);
    expect(badToken.err).toContain("401 Unauthorized");
    expect(badToken.err).toContain(`Run "ax login"`);
    // …and AX_URL sends it elsewhere.
    const port = await closedPort();
    const elsewhere = await ax(["groups", "list"], { home, env: { AX_URL: `http://127.0.0.1:${port}`, AX_TOKEN: undefined } });
    expect(elsewhere.code).toBe(5);
    expect(elsewhere.err).toContain(`Cannot reach the ax service at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(elsewhere.err).toContain("AX_URL");

    const logout = await ax(["logout"], { home, env: NO_ENV });
    expect(logout.code).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    const after = await ax(["groups", "list"], { home, env: NO_ENV });
    expect(after.code).toBe(4);
    expect(after.err).toMatch(/No ax service configured: run "ax login --url URL" or set AX_URL/);
  });

  it("takes the token from --token, and honours XDG_CONFIG_HOME", async () => {
    const home = tmpDir("ax-home-");
    const xdg = tmpDir("ax-xdg-");
    const r = await ax(["login", "--url", h.url, "--token", h.api.tenant.token], { home, env: { ...NO_ENV, XDG_CONFIG_HOME: xdg } });
    expect(r.code).toBe(0);
    expect(fs.statSync(path.join(xdg, "ax", "config.json")).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(home, ".config"))).toBe(false);
  });

  it("refuses a token the service does not know, and stores nothing", async () => {
    const home = tmpDir("ax-home-");
    const r = await ax(["login", "--url", h.url], { home, env: NO_ENV, input: "axk_wrong\n" });
    expect(r.code).toBe(4);
    expect(r.err).toContain("401 Unauthorized");
    expect(fs.existsSync(path.join(home, ".config", "ax", "config.json"))).toBe(false);
    const empty = await ax(["login", "--url", h.url], { home, env: NO_ENV, input: "" });
    expect(empty.code).toBe(2);
    expect(empty.err).toContain("Give the token with --token, on standard input");
  });
});

describe("ax groups", () => {
  it("creates, lists and deletes groups, confirming the hard delete", async () => {
    const created = await ax(["groups", "create", "payments", "--json"]);
    expect(created.code).toBe(0);
    const group = JSON.parse(created.out) as { group_id: string; name: string };
    expect(group.name).toBe("payments");
    expect((await ax(["groups", "list"])).out).toMatch(new RegExp(`${group.group_id}\\s+payments`));

    const again = await ax(["groups", "create", "payments"]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("409 Conflict: A group with this name already exists");

    const unconfirmed = await ax(["groups", "delete", group.group_id]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain("pass --yes");
    const deleted = await ax(["groups", "delete", group.group_id, "--yes"]);
    expect(deleted.code).toBe(0);
    expect(deleted.out).toBe(`Deleted group ${group.group_id} with 0 project(s), 0 scan(s) and 0 finding(s).\n`);
    expect((await ax(["groups", "list", "--json"])).out).not.toContain(group.group_id);

    const gone = await ax(["groups", "delete", group.group_id, "--yes"]);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain("404 Not Found: Group not found.");
  });

  it("asks which organization when the caller has several, and takes --org by name", async () => {
    const db = h.api.stack.handle.db;
    const other = await h.api.otherTenant();
    const user = await createUser(db, { email: "two-orgs@acme.test", displayName: "Tess Two", identityProvider: "okta" });
    await addMember(db, h.api.tenant.organization_id, user.id, "admin");
    await addMember(db, other.organization_id, user.id, "viewer");
    const token = (await createToken(db, { userId: user.id, name: "cli", expiresInDays: 1 })).token;

    const ambiguous = await ax(["groups", "list"], { env: { AX_TOKEN: token } });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toMatch(/several organizations; choose one with --org: .*Acme/);
    const byName = await ax(["groups", "list", "--org", "acme", "--json"], { env: { AX_TOKEN: token } });
    expect(byName.code).toBe(0);
    expect((JSON.parse(byName.out) as { organization_id: string }[]).every((g) => g.organization_id === h.api.tenant.organization_id)).toBe(
      true,
    );
    const forbidden = await ax(["groups", "create", "nope", "--org", other.organization_id], { env: { AX_TOKEN: token } });
    expect(forbidden.code).toBe(1);
    expect(forbidden.err).toMatch(/^ax: 403 Forbidden/);
  });
});

describe("help and usage errors", () => {
  const commands = [
    ["login"],
    ["logout"],
    ["scan"],
    ["findings"],
    ["triage"],
    ["review"],
    ["chat"],
    ["groups"],
    ["groups", "list"],
    ["groups", "create"],
    ["groups", "delete"],
    ["admin"],
  ];

  it.each(commands)("ax %s --help explains the command", async (...command) => {
    const r = await ax([...command, "--help"], { env: NO_ENV });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^ax ${command[0]} `));
    expect(r.out).toContain("ax ");
    expect(r.err).toBe("");
  });

  it("lists every command, ax admin included", async () => {
    const r = await ax(["--help"]);
    expect(r.code).toBe(0);
    for (const c of ["login", "logout", "scan", "findings", "triage", "review", "chat", "groups", "admin"])
      expect(r.out).toMatch(new RegExp(`^  ax ${c} `, "m"));
    expect((await ax(["help", "triage"])).out).toMatch(/^ax triage/);
    expect((await ax([])).code).toBe(2);
  });

  it.each([
    [["frobnicate"], /Unknown command "frobnicate"/],
    [["scan"], /GIT_URI is required/],
    [["findings"], /SCAN_ID is required/],
    [["findings", "x", "--format", "xml"], /--format takes table, json, sarif/],
    [["triage", "scan-id"], /FINDING_ID is required/],
    [["triage", "scan-id", "finding-id"], /Give --status, --reason or both/],
    [["review", "--line", "3"], /--file is required/],
    [["groups", "create"], /NAME is required/],
    [["groups", "rename", "x"], /Unknown groups command "rename"/],
    [["scan", "repo", "--fail-on", "severe"], /--fail-on takes one of critical, high, medium, low, info/],
    [["scan", "repo", "--bogus"], /Unknown option '--bogus'/],
    [["findings", "a", "b"], /Unexpected argument "b"/],
  ])("ax %j is a usage error (exit 2)", async (args, message) => {
    const r = await ax(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.out).toBe("");
  });

  it("never writes colour codes when the output is not a terminal", () => {
    expect(results.length).toBeGreaterThan(20);
    for (const r of results) expect(`${r.out}${r.err}`).not.toContain("\x1b[");
  });
});

import { parseArgs } from "node:util";
import { loadConfig } from "@ax/config";
import { writeFile } from "node:fs/promises";
import { voteToExample } from "@ax/ai/review";
import { UsageError } from "./errors";
import {
  addMember,
  bootstrap,
  createOrganization,
  createToken,
  createUser,
  getOrganization,
  getUser,
  isId,
  migrate,
  openDatabase,
  reviewVoteExamples,
  type DbHandle,
  type Role,
} from "@ax/db";

export const ADMIN_HELP = `ax admin — operator commands (they read the same environment as the service)

  ax admin migrate
  ax admin create-org NAME
  ax admin create-user --email E --name N --idp P [--instance-admin]
  ax admin add-member ORG_ID USER_ID --role owner|admin|member|viewer
  ax admin create-token USER_ID [--name N] [--expires-days D]
  ax admin bootstrap --org NAME --email E --name N --idp P
  ax admin export-feedback --out FILE.jsonl [--org ORG_ID]
      votes on review answers as labeled examples: npm run ai:train -- --feedback FILE.jsonl

Every command takes --json for machine-readable output.
Without DATABASE_URL they use the embedded database under DATA_DIR; stop \`npm start\` first,
since the embedded database admits one process at a time.`;

const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

type Out = (s: string) => void;

function print(out: Out, json: boolean, value: Record<string, unknown>, human: string) {
  out(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

function need(value: string | undefined, flag: string): string {
  if (!value || !value.trim()) throw new UsageError(`${flag} is required.`, ADMIN_HELP);
  return value.trim();
}

function emailOf(value: string | undefined): string {
  const email = need(value, "--email");
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError("--email must be an email address.");
  return email;
}

/** Opens the service's database; every command but `migrate` first brings the schema up to date. */
async function withDb<T>(fn: (h: DbHandle) => Promise<T>, opts: { migrateFirst: boolean } = { migrateFirst: true }): Promise<T> {
  const config = loadConfig();
  const handle = await openDatabase({ url: config.database.url, dataDir: config.database.dataDir });
  try {
    if (opts.migrateFirst) await migrate(handle);
    return await fn(handle);
  } finally {
    await handle.close();
  }
}

function parseAdminArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: "boolean", default: false },
        email: { type: "string" },
        name: { type: "string" },
        idp: { type: "string" },
        org: { type: "string" },
        role: { type: "string" },
        "instance-admin": { type: "boolean", default: false },
        "expires-days": { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message, ADMIN_HELP);
  }
}

/** What a command gets: its positionals, its options, and where to print. */
interface Run {
  pos: string[];
  v: ReturnType<typeof parseAdminArgs>["values"];
  out: Out;
  json: boolean;
  /** --expires-days, else the deployment's default; checked when a command asks for it. */
  expiryDays: () => number;
}

async function runMigrate({ out, json }: Run): Promise<void> {
  const applied = await withDb((h) => migrate(h), { migrateFirst: false });
  print(out, json, { applied }, applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
}

async function runCreateOrg({ pos, out, json }: Run): Promise<void> {
  const name = need(pos[0], "NAME");
  const { organization, group } = await withDb((h) => createOrganization(h.db, name));
  const value = { organization_id: organization.id, name: organization.name, group_id: group.id };
  print(out, json, value, `Created organization "${organization.name}": ${organization.id} (default group ${group.id})`);
}

async function runCreateUser({ v, out, json }: Run): Promise<void> {
  const input = {
    email: emailOf(v.email),
    displayName: need(v.name, "--name"),
    identityProvider: need(v.idp, "--idp"),
    isInstanceAdmin: v["instance-admin"] ?? false,
  };
  const user = await withDb((h) => createUser(h.db, input));
  const value = {
    user_id: user.id,
    email: user.email,
    display_name: user.display_name,
    identity_provider: user.identity_provider,
    is_instance_admin: user.is_instance_admin,
  };
  print(out, json, value, `Created user ${user.email}: ${user.id}`);
}

async function runAddMember({ pos, v, out, json }: Run): Promise<void> {
  const [orgId, userId] = [need(pos[0], "ORG_ID"), need(pos[1], "USER_ID")];
  const role = need(v.role, "--role") as Role;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}.`);
  await withDb(async (h) => {
    if (!isId(orgId) || !(await getOrganization(h.db, orgId))) throw new Error(`No organization ${orgId}.`);
    if (!isId(userId) || !(await getUser(h.db, userId))) throw new Error(`No user ${userId}.`);
    await addMember(h.db, orgId, userId, role);
  });
  print(out, json, { organization_id: orgId, user_id: userId, role }, `User ${userId} is now ${role} of ${orgId}`);
}

async function runCreateToken({ pos, v, out, json, expiryDays }: Run): Promise<void> {
  const userId = need(pos[0], "USER_ID");
  const days = expiryDays();
  const created = await withDb(async (h) => {
    if (!isId(userId) || !(await getUser(h.db, userId))) throw new Error(`No user ${userId}.`);
    return createToken(h.db, { userId, name: v.name?.trim() || "cli", expiresInDays: days });
  });
  const value = { token_id: created.record.id, token: created.token, expires_at: created.record.expires_at.toISOString() };
  print(out, json, value, created.token);
}

async function runBootstrap({ v, out, expiryDays }: Run): Promise<void> {
  const input = {
    orgName: need(v.org, "--org"),
    email: emailOf(v.email),
    displayName: need(v.name, "--name"),
    identityProvider: need(v.idp, "--idp"),
    instanceAdmin: v["instance-admin"] ?? false,
    expiresInDays: expiryDays(),
  };
  const result = await withDb((h) => bootstrap(h.db, input));
  print(out, true, { ...result }, "");
}

async function runExportFeedback({ v, out, json }: Run): Promise<void> {
  const file = need(v.out, "--out");
  const org = v.org?.trim();
  if (org !== undefined && !isId(org)) throw new UsageError("--org must be an organization id.");
  const votes = await withDb((h) => reviewVoteExamples(h.db, org));
  const examples = votes.map(voteToExample).filter((e) => e !== null);
  await writeFile(file, examples.map((e) => JSON.stringify(e)).join("\n") + (examples.length ? "\n" : ""), { mode: 0o600 });
  const value = { file, examples: examples.length, votes: votes.length };
  print(out, json, value, `Wrote ${examples.length} labeled examples from ${votes.length} votes to ${file}`);
}

const COMMANDS: Record<string, (run: Run) => Promise<void>> = {
  migrate: runMigrate,
  "create-org": runCreateOrg,
  "create-user": runCreateUser,
  "add-member": runAddMember,
  "create-token": runCreateToken,
  bootstrap: runBootstrap,
  "export-feedback": runExportFeedback,
};

export async function adminCommand(argv: string[], out: Out): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h") {
    out(`${ADMIN_HELP}\n`);
    return command ? 0 : 2;
  }
  const { values: v, positionals: pos } = parseAdminArgs(rest);
  if (v.help) {
    out(`${ADMIN_HELP}\n`);
    return 0;
  }
  const expiryDays = () => {
    if (v["expires-days"] === undefined) return loadConfig().tokens.defaultExpiryDays;
    const n = Number(v["expires-days"]);
    if (!Number.isInteger(n) || n < 1 || n > 3650) throw new UsageError("--expires-days must be a whole number from 1 to 3650.");
    return n;
  };
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(`Unknown admin command "${command}".`, ADMIN_HELP);
  await run({ pos, v, out, json: v.json ?? false, expiryDays });
  return 0;
}

import readline from "node:readline/promises";
import { createGroup, deleteGroup, listGroups, resolveOrganization } from "../api";
import { parseCommand, required, showHelp } from "../args";
import { CliError, UsageError } from "../errors";
import { connect } from "../context";
import type { Io } from "../io";
import { colorsFor, table } from "../render";

export const GROUPS_HELP = `ax groups — the groups of your organization (scans belong to a project in a group)

Usage:
  ax groups list [--org O] [--json]
  ax groups create NAME [--org O] [--json]          (admin or owner)
  ax groups delete GROUP_ID [--org O] [--yes]       (admin or owner)

delete is a hard delete: the group's projects, scans and findings go with it. It asks for
confirmation on a terminal; elsewhere pass --yes.

Options:
  --org O     organization id or name (needed when you belong to several)
  --json      print JSON
  --yes       delete without asking`;

const OPTIONS = { org: { type: "string" }, json: { type: "boolean" }, yes: { type: "boolean" } } as const;

export async function groupsCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    io.out(`${GROUPS_HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  if (!["list", "create", "delete"].includes(sub)) throw new UsageError(`Unknown groups command "${sub}".`, GROUPS_HELP);
  const { values: v, positionals } = parseCommand(rest, OPTIONS, GROUPS_HELP, sub === "list" ? 0 : 1);
  if (v.help) return showHelp(io, GROUPS_HELP);
  const arg = sub === "list" ? undefined : required(positionals[0], sub === "create" ? "NAME" : "GROUP_ID", GROUPS_HELP);
  const c = await connect(io);
  const orgId = await resolveOrganization(c, v.org);
  const print = (value: unknown, human: string) => io.out(v.json ? `${JSON.stringify(value)}\n` : `${human}\n`);

  if (sub === "list") {
    const groups = await listGroups(c, orgId);
    const p = colorsFor(io);
    print(
      groups,
      table(
        ["GROUP ID", "NAME", "CREATED"],
        groups.map((g) => [g.group_id, g.name, g.created_at?.slice(0, 10) ?? ""]),
        p,
      ),
    );
    return 0;
  }
  if (sub === "create") {
    const group = await createGroup(c, orgId, arg!);
    print(group, `Created group "${group.name}": ${group.group_id}`);
    return 0;
  }
  if (!v.yes) await confirmDelete(io, arg!);
  const result = await deleteGroup(c, orgId, arg!);
  const { projects, scans, findings } = result.deleted;
  print(result, `Deleted group ${result.group_id} with ${projects} project(s), ${scans} scan(s) and ${findings} finding(s).`);
  return 0;
}

async function confirmDelete(io: Io, groupId: string): Promise<void> {
  if (!io.stdinIsTTY) throw new UsageError("Deleting a group is permanent: pass --yes to confirm.", GROUPS_HELP);
  const rl = readline.createInterface({ input: io.stdin, output: io.stdout });
  try {
    const answer = await rl.question(`Delete group ${groupId} with all its projects, scans and findings? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError("Nothing deleted.");
  } finally {
    rl.close();
  }
}

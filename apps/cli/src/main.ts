import { ConfigError } from "@ax/config";
import { CliError, EXIT, UsageError } from "./errors";
import { processIo, type Io } from "./io";

type Command = (argv: string[], io: Io) => Promise<number>;

/** Loaded on use, so that `ax scan` does not pay for the database driver `ax admin` needs. */
const COMMANDS: Record<string, { usage: string; load: () => Promise<Command> }> = {
  login: {
    usage: "login [--url URL] [--token T]          check a token and store it with the URL",
    load: async () => (await import("./commands/login")).loginCommand,
  },
  logout: {
    usage: "logout                                  forget the stored URL and token",
    load: async () => (await import("./commands/login")).logoutCommand,
  },
  scan: {
    usage: "scan GIT_URI [--wait] [--fail-on SEV]    start a scan; follow it; gate CI on it",
    load: async () => (await import("./commands/scan")).scanCommand,
  },
  findings: {
    usage: "findings SCAN_ID [--format table|json|sarif]  a scan's findings, filtered",
    load: async () => (await import("./commands/findings")).findingsCommand,
  },
  triage: {
    usage: "triage SCAN_ID FINDING_ID --status S     set a finding's review status",
    load: async () => (await import("./commands/triage")).triageCommand,
  },
  review: {
    usage: "review --file F --line L [--cwe CWE-n]   is this reported weakness real? (AI)",
    load: async () => (await import("./commands/review")).reviewCommand,
  },
  chat: {
    usage: 'chat ["QUESTION"]                        the security assistant, streamed',
    load: async () => (await import("./commands/chat")).chatCommand,
  },
  groups: {
    usage: "groups list|create NAME|delete ID        your organization's groups",
    load: async () => (await import("./commands/groups")).groupsCommand,
  },
  admin: {
    usage: "admin <command>                          operator commands against the service's database",
    load: async () => {
      const { adminCommand } = await import("./admin");
      return (argv, io) => adminCommand(argv, io.out);
    },
  },
};

const HELP = `ax — code scanning service command line

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ax ${c.usage}`)
  .join("\n")}

"ax COMMAND --help" explains a command. Settings: AX_URL and AX_TOKEN, else the file
"ax login" writes (~/.config/ax/config.json). Exit codes: 0 ok, 1 failure, 2 usage,
3 --fail-on gate, 4 not logged in or token refused, 5 service unreachable.
Reference: docs/cli.md`;

/** Entry point; returns the exit code (see EXIT). */
export async function run(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === "--help" || name === "-h" || name === "help") {
      const topic = name === "help" ? rest[0] : undefined;
      if (topic && COMMANDS[topic]) return await (await COMMANDS[topic].load())(["--help"], io);
      io.out(`${HELP}\n`);
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    return await (
      await command.load()
    )(rest, io);
  } catch (e) {
    return report(e, io);
  }
}

function report(e: unknown, io: Io): number {
  if (e instanceof UsageError) {
    io.err(`ax: ${e.message}\n${e.help ? `\n${e.help}\n` : 'Run "ax --help" for usage.\n'}`);
    return EXIT.usage;
  }
  if (e instanceof CliError) {
    io.err(`ax: ${e.message}\n`);
    return e.exitCode;
  }
  // ax admin: the environment needs fixing.
  if (e instanceof ConfigError) {
    io.err(`ax: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  io.err(`ax: ${(e as Error).message}\n`);
  return EXIT.failure;
}

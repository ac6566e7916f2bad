import { ConfigError } from "@ax/config";
import { adminCommand, UsageError } from "./admin";

const HELP = `ax — code scanning service command line

Usage:
  ax admin <command> [options]     operator commands against the service's database

Run "ax admin --help" for the admin commands.`;

/** Entry point; returns the exit code (0 ok, 1 failure, 2 usage). */
export async function run(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s), err: (s: string) => void = (s) => process.stderr.write(s)): Promise<number> {
  const [group, ...rest] = argv;
  try {
    if (group === "admin") return await adminCommand(rest, out);
    if (group === undefined || group === "--help" || group === "-h" || group === "help") {
      out(`${HELP}\n`);
      return group === undefined ? 2 : 0;
    }
    throw new UsageError(`Unknown command "${group}".`);
  } catch (e) {
    if (e instanceof UsageError) {
      err(`ax: ${e.message}\n${e.help ? `\n${e.help}\n` : "Run \"ax --help\" for usage.\n"}`);
      return 2;
    }
    if (e instanceof ConfigError) {
      err(`ax: ${e.message}\n`);
      return 2;
    }
    err(`ax: ${(e as Error).message}\n`);
    return 1;
  }
}

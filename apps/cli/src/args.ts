import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./errors";
import type { Io } from "./io";

const HELP_OPTION = { help: { type: "boolean", short: "h" } } as const;

/** node:util parseArgs with `--help` on every command and usage errors that show the command's help. */
type Options = NonNullable<ParseArgsConfig["options"]>;

type Parsed<T extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T & typeof HELP_OPTION; allowPositionals: true; strict: true }>
>;

export function parseCommand<T extends Options>(args: string[], options: T, help: string, maxPositionals: number): Parsed<T> {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({ args, options: { ...options, ...HELP_OPTION }, allowPositionals: true, strict: true }) as Parsed<T>;
  } catch (e) {
    throw new UsageError((e as Error).message, help);
  }
  const extra = parsed.positionals[maxPositionals];
  if (!(parsed.values as { help?: boolean }).help && extra !== undefined) throw new UsageError(`Unexpected argument "${extra}".`, help);
  return parsed;
}

export function required(value: string | undefined, name: string, help: string): string {
  if (value === undefined || !value.trim()) throw new UsageError(`${name} is required.`, help);
  return value.trim();
}

export function showHelp(io: Io, help: string): number {
  io.out(`${help}\n`);
  return 0;
}

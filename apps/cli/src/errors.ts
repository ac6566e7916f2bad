/** Exit codes of `ax`, documented in docs/cli.md; CI scripts branch on them. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** `--fail-on`: open findings at or above the given severity remain. */
  gate: 3,
  /** No token, or the service refused it. */
  auth: 4,
  /** The service could not be reached. */
  unreachable: 5,
} as const;

/** Bad command line: the message, then the command's help. Exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly help?: string,
  ) {
    super(message);
  }
}

/** A failure to report as it is, without a stack, with the exit code it maps to. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/** An error answer of the service. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
    exitCode: number = EXIT.failure,
  ) {
    super(message, exitCode);
  }
}

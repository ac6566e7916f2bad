/**
 * The scanner's error family. The worker maps these to scan outcomes: a ScanInputError is
 * permanent (BullMQ `UnrecoverableError`: retrying cannot help), a ScanTimeoutError ends the
 * scan as failed with a time-limit message, and a ScanAbortedError means the caller
 * cancelled. Messages are written for the person who submitted the scan: they never carry
 * git's raw stderr, paths of the worker or environment values.
 */

/** Permanent failure caused by the input (URL, branch, repository content). Don't retry. */
export class ScanInputError extends Error {
  override readonly name = "ScanInputError";
  readonly permanent = true;
}

/** A clone or analyzer ran past its time limit (wall clock or stalled output). */
export class ScanTimeoutError extends Error {
  override readonly name = "ScanTimeoutError";
}

/** The caller's AbortSignal fired. Named "AbortError" like the DOM error, so generic checks work. */
export class ScanAbortedError extends Error {
  override readonly name = "AbortError";
  constructor(message = "The scan was cancelled.") {
    super(message);
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/** Throws ScanAbortedError when the signal has fired; call between steps so cancellation is prompt. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ScanAbortedError();
}

/**
 * Turns git's failure output into errors a scan submitter can act on. Only failures that a
 * retry cannot fix become ScanInputError; anything else (network resets, resolver hiccups,
 * server 5xx) is rethrown so the job is retried. Git's own text is not copied into messages:
 * it can contain server-provided "remote:" lines.
 */
import { GitPluginError } from "simple-git";
import { ScanAbortedError, ScanInputError, ScanTimeoutError } from "../errors";
import { formatDuration } from "../format";

export interface CloneFailureContext {
  branch: string | undefined;
  /** Which of our own limits fired, if any: decides between timeout, size and cancellation. */
  reason: "timeout" | "size" | "aborted" | null;
  sizeMessage: string;
  timeoutMs: number;
}

const NOT_FOUND = [
  /repository '.*' not found/i,
  /repository '.*' does not exist/i, // a local path (ALLOW_INSECURE_GIT_URLS)
  /does not appear to be a git repository/i,
  /could not read username/i, // a private repository: we never have credentials
  /authentication failed/i,
  /the requested url returned error: (401|403|404|410)\b/i,
];

/** git could fetch the tree but not write it out: an invalid path, a name or depth the file system refuses. */
export class CheckoutError extends Error {}

export function mapCloneError(err: unknown, ctx: CloneFailureContext): Error {
  if (ctx.reason === "size") return new ScanInputError(ctx.sizeMessage);
  if (ctx.reason === "aborted") return new ScanAbortedError();
  if (ctx.reason === "timeout" || (err instanceof GitPluginError && err.plugin === "timeout")) {
    return new ScanTimeoutError(`Cloning the repository took longer than the limit of ${formatDuration(ctx.timeoutMs)}.`);
  }
  const text = err instanceof Error ? err.message : String(err);
  if (err instanceof CheckoutError || /checkout failed|invalid path '|unable to create file|file name too long|filename too long/i.test(text)) {
    // Another try would fail the same way: the tree itself cannot be written out here.
    return new ScanInputError("The repository's files could not be checked out: it contains a path that is invalid or too long (for example a '..' or '.git' entry, or directories nested beyond the file system's limit).");
  }
  const branch = /remote branch (.+?) not found in upstream|couldn't find remote ref refs\/heads\/(\S+)/i.exec(text);
  if (branch) return new ScanInputError(`Branch "${ctx.branch ?? branch[1] ?? branch[2]}" was not found in the repository.`);
  // A fetch of the remote's HEAD finds nothing when the repository has no commits (or its
  // HEAD names a branch that does not exist): either way there is nothing to scan.
  if (/couldn't find remote ref HEAD\b/i.test(text)) return new ScanInputError("The repository is empty (it has no commits).");
  if (/the requested url returned error: 30\d\b/i.test(text) || /redirect/i.test(text)) {
    return new ScanInputError("The repository URL redirects elsewhere; redirects are not followed. Use the final URL.");
  }
  if (NOT_FOUND.some((re) => re.test(text))) {
    return new ScanInputError("The repository was not found or is not publicly accessible.");
  }
  if (/transport '.*' not allowed/i.test(text)) {
    return new ScanInputError("The repository URL uses a protocol that is not allowed.");
  }
  return err instanceof Error ? err : new Error(text);
}

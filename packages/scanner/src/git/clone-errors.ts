/**
 * Turns git's failure output into errors a scan submitter can act on. Only failures that a
 * retry cannot fix become ScanInputError; anything else (network resets, resolver hiccups,
 * server 5xx) is rethrown so the job is retried. Git's own text is not copied into messages:
 * it can contain server-provided "remote:" lines, paths of the worker and the URL.
 *
 * A host that does not resolve or refuses the connection, a server that cannot send the objects
 * its refs name (missing or corrupt), a branch that is not there, an empty repository and one
 * past the size limit are the repository's doing: each is one sentence, and no retry.
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

/**
 * The server's repository lacks objects its refs name, or holds corrupt ones: git's
 * pack-objects dies on the server side ("possible repository corruption"), or says which
 * object it could not read. Not "early EOF" alone: a dropped connection says that too.
 */
const CORRUPT = [
  /possible repository corruption/i,
  /\bis corrupt\b/i,
  /\bbad (?:tree |commit |blob |tag )?object\b/i,
  /unable to read [0-9a-f]{40}/i,
  /did not receive expected object/i,
  /upload-pack: not our ref/i,
];

/** Name resolution and connection failures as curl reports them through git. */
const UNRESOLVED = /could not resolve host/i;
const UNREACHABLE = [
  /failed to connect to/i,
  /couldn't connect to server/i,
  /connection refused/i,
  /connection timed out/i,
  /no route to host/i,
];
const BAD_CERTIFICATE = /ssl certificate problem|server certificate verification failed|no alternative certificate subject name/i;

/** git could fetch the tree but not write it out: an invalid path, a name or depth the file system refuses. */
export class CheckoutError extends Error {}

export function mapCloneError(err: unknown, ctx: CloneFailureContext): Error {
  if (ctx.reason === "size") return new ScanInputError(ctx.sizeMessage);
  if (ctx.reason === "aborted") return new ScanAbortedError();
  if (ctx.reason === "timeout" || (err instanceof GitPluginError && err.plugin === "timeout")) {
    return new ScanTimeoutError(`Cloning the repository took longer than the limit of ${formatDuration(ctx.timeoutMs)}.`);
  }
  const text = err instanceof Error ? err.message : String(err);
  if (
    err instanceof CheckoutError ||
    /checkout failed|invalid path '|unable to create file|file name too long|filename too long/i.test(text)
  ) {
    // Another try would fail the same way: the tree itself cannot be written out here.
    return new ScanInputError(
      "The repository's files could not be checked out: it contains a path that is invalid or too long (for example a '..' or '.git' entry, or directories " +
        "nested beyond the file system's limit).",
    );
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
  if (CORRUPT.some((re) => re.test(text))) {
    return new ScanInputError(
      "The repository could not be fetched: the server's copy is missing objects or has corrupt ones (its owner can check it with `git fsck`).",
    );
  }
  if (UNRESOLVED.test(text)) return new ScanInputError("The repository's host name could not be resolved.");
  if (UNREACHABLE.some((re) => re.test(text)))
    return new ScanInputError("The repository's host could not be reached (the connection was refused or timed out).");
  if (BAD_CERTIFICATE.test(text)) return new ScanInputError("The repository's host did not present a valid TLS certificate.");
  if (/transport '.*' not allowed/i.test(text)) {
    return new ScanInputError("The repository URL uses a protocol that is not allowed.");
  }
  return err instanceof Error ? err : new Error(text);
}

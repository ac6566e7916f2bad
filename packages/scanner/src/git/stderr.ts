/**
 * What of a failed git command's stderr is kept. A fetch run with --progress prints a line per
 * percent per phase, its own and the server's ("remote: Counting objects: 1% (3/302)"), so a
 * failed clone of a large repository carries kilobytes of them before the one line that says
 * why. Only the lines that are not progress are kept, the last of them, for clone-errors.ts to
 * classify; the text is still never shown to the submitter.
 */

/** "Title: 12% (3/302)…", "Title: 302, done.", "Total 302 (delta 0)…", with or without "remote: ". */
const PROGRESS = /^(?:remote: *)?(?:[A-Z][a-z]+(?: [a-z]+)*: +\d+(?:% \(\d+\/\d+\))?(?:[,. ]|$)|Total \d+ \(delta \d+\))/;
const MAX_LINES = 40;
const MAX_CHARS = 4096;

/** stderr without progress lines and the terminal escapes git adds to them, bounded, ending with the last line. */
export function gitErrorText(stderr: string): string {
  const lines = stderr
    .split(/[\r\n]+/)
    // eslint-disable-next-line no-control-regex
    .map((line) => line.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "").trimEnd())
    .filter((line) => line.trim() !== "" && !PROGRESS.test(line));
  const text = lines.slice(-MAX_LINES).join("\n");
  return text.length > MAX_CHARS ? text.slice(-MAX_CHARS) : text;
}

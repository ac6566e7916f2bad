/**
 * A unified diff (as `git apply` and `patch -p1` read it) for one replacement of a byte
 * range, with three lines of context: how a finding's mechanical fix is shown and exported.
 */
const CONTEXT = 3;

export function replacementDiff(path: string, before: Buffer, startByte: number, endByte: number, replacement: string): string | null {
  if (startByte < 0 || endByte < startByte || endByte > before.length) return null;
  const after = Buffer.concat([before.subarray(0, startByte), Buffer.from(replacement, "utf8"), before.subarray(endByte)]);
  if (after.equals(before)) return null;
  const oldLines = splitLines(before.toString("utf8"));
  const newLines = splitLines(after.toString("utf8"));
  // The changed region: common prefix and suffix lines are context.
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix++;
  }
  const start = Math.max(0, prefix - CONTEXT);
  const oldEnd = Math.min(oldLines.length, oldLines.length - suffix + CONTEXT);
  const newEnd = Math.min(newLines.length, newLines.length - suffix + CONTEXT);
  const lines: string[] = [];
  for (let i = start; i < prefix; i++) lines.push(` ${oldLines[i]}`);
  for (let i = prefix; i < oldLines.length - suffix; i++) lines.push(`-${oldLines[i]}`);
  for (let i = prefix; i < newLines.length - suffix; i++) lines.push(`+${newLines[i]}`);
  for (let i = oldLines.length - suffix; i < oldEnd; i++) lines.push(` ${oldLines[i]}`);
  const oldCount = oldEnd - start;
  const newCount = newEnd - start;
  const header = `@@ -${range(start, oldCount)} +${range(start, newCount)} @@`;
  const noNewline = (buf: Buffer, end: number, total: number) => end === total && buf.length > 0 && buf[buf.length - 1] !== 0x0a;
  const body: string[] = [];
  for (const line of lines) body.push(line);
  // Mark a last line without a newline the way diff does, so `git apply` accepts it.
  if (noNewline(before, oldEnd, oldLines.length) || noNewline(after, newEnd, newLines.length)) {
    return withNoNewlineMarkers(path, header, lines, before, after, oldEnd === oldLines.length, newEnd === newLines.length);
  }
  return `--- a/${path}\n+++ b/${path}\n${header}\n${body.join("\n")}\n`;
}

function range(start: number, count: number): string {
  return count === 0 ? `${start},0` : `${start + 1},${count}`;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function withNoNewlineMarkers(
  path: string,
  header: string,
  lines: string[],
  before: Buffer,
  after: Buffer,
  oldAtEnd: boolean,
  newAtEnd: boolean,
): string {
  const oldMissing = oldAtEnd && before[before.length - 1] !== 0x0a;
  const newMissing = newAtEnd && after[after.length - 1] !== 0x0a;
  const out: string[] = [];
  const lastOld = lines
    .map((l, i) => (l[0] === " " || l[0] === "-" ? i : -1))
    .filter((i) => i >= 0)
    .pop();
  const lastNew = lines
    .map((l, i) => (l[0] === " " || l[0] === "+" ? i : -1))
    .filter((i) => i >= 0)
    .pop();
  lines.forEach((line, i) => {
    out.push(line);
    const marker = "\\ No newline at end of file";
    if (line[0] === " " && i === lastOld && i === lastNew && (oldMissing || newMissing)) out.push(marker);
    else if (line[0] === "-" && i === lastOld && oldMissing) out.push(marker);
    else if (line[0] === "+" && i === lastNew && newMissing) out.push(marker);
  });
  return `--- a/${path}\n+++ b/${path}\n${header}\n${out.join("\n")}\n`;
}

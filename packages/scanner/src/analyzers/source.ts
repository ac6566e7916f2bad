/**
 * Reads checkout files for the adapters whose tools report only a line (cppcheck, shellcheck,
 * old bandit, SARIF without snippets): the snippet, the end column of a whole-line finding,
 * and byte offsets for fixes come from the file itself. Bounded and cached per run; a path
 * that is not a regular file inside the checkout (a link, a device, something gone) reads as
 * absent rather than being followed.
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cap, MAX_SNIPPET, repoPath } from "./normalize";

const MAX_READ_BYTES = 4 * 1024 * 1024;

export class SourceFiles {
  private readonly cache = new Map<string, Promise<SourceFile | null>>();

  constructor(private readonly dir: string) {}

  /** The file, or null when it cannot or must not be read. `file` is repo-relative POSIX. */
  get(file: string): Promise<SourceFile | null> {
    let hit = this.cache.get(file);
    if (!hit) {
      hit = this.read(file);
      this.cache.set(file, hit);
    }
    return hit;
  }

  private async read(file: string): Promise<SourceFile | null> {
    if (repoPath(file) !== file) return null;
    const full = join(this.dir, file);
    try {
      const info = await lstat(full);
      if (!info.isFile() || info.size > MAX_READ_BYTES) return null;
      return new SourceFile(await readFile(full));
    } catch {
      return null;
    }
  }
}

export class SourceFile {
  readonly text: string;
  readonly lines: string[];
  private lineStarts?: number[];

  constructor(readonly bytes: Buffer) {
    this.text = bytes.toString("utf8");
    this.lines = this.text.split(/\r?\n/);
  }

  /** Lines start..end (1-based, inclusive), capped like every snippet. */
  snippet(start: number, end = start): string {
    const from = Math.max(1, start);
    const to = Math.min(this.lines.length, Math.max(from, end), from + 200);
    return cap(this.lines.slice(from - 1, to).join("\n"), MAX_SNIPPET);
  }

  /** 1-based exclusive end column of a whole-line finding: just past the line's last character. */
  lineEndColumn(line: number): number {
    return [...(this.lines[line - 1] ?? "")].length + 1;
  }

  /**
   * The byte offset of a 1-based line and 1-based column counted in characters (code points),
   * or null when the position is outside the file. A column one past the end of the line is
   * the line's end (exclusive ranges).
   */
  byteOffset(line: number, column: number): number | null {
    if (!this.lineStarts) {
      this.lineStarts = [0];
      for (let i = 0; i < this.bytes.length; i++) if (this.bytes[i] === 0x0a) this.lineStarts.push(i + 1);
    }
    const start = this.lineStarts[line - 1];
    const lineText = this.lines[line - 1];
    if (start === undefined || lineText === undefined || column < 1) return null;
    const chars = [...lineText];
    if (column - 1 > chars.length) return null;
    return start + Buffer.byteLength(chars.slice(0, column - 1).join(""), "utf8");
  }
}

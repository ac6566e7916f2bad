/**
 * Some tools stop at, or silently skip, a file that is not valid UTF-8 (flawfinder aborts the
 * whole run; ast-grep ignores the file). Such files are passed as copies in the scratch
 * directory with each invalid byte replaced by `?` — same lines, columns and byte offsets —
 * and findings on a copy are mapped back to the file.
 */
import { mkdir, open, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { repoPath } from "./normalize";
import type { AnalyzerContext } from "./types";

/**
 * The argument for each file: the file itself when it is UTF-8, else a sanitized copy in
 * scratchDir. `toRepo` maps a copy's path (as flawfinder prints it) back to the file.
 */
export async function utf8Inputs(ctx: AnalyzerContext): Promise<{ args: string[]; toRepo: (printed: string) => string | null }> {
  const copies = new Map<string, string>();
  const args: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const file of ctx.files) {
    const bytes = await readSmall(join(ctx.dir, file));
    let valid = true;
    try {
      if (bytes) decoder.decode(bytes);
    } catch {
      valid = false;
    }
    if (valid || !bytes) {
      args.push(file);
      continue;
    }
    const dir = join(ctx.scratchDir, "flawfinder-utf8", String(copies.size));
    await mkdir(dir, { recursive: true });
    const copy = join(dir, basename(file));
    await writeFile(copy, sanitizeUtf8(bytes));
    copies.set(copy, file);
    args.push(copy);
  }
  return { args, toRepo: (printed) => copies.get(printed) ?? repoPath(printed) };
}

async function readSmall(path: string): Promise<Buffer | null> {
  const handle = await open(path, "r").catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > 8 * 1024 * 1024) return null;
    const buf = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buf, 0, info.size, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Valid UTF-8 sequences kept, every other byte replaced by `?`: lines and byte columns stay put. */
export function sanitizeUtf8(bytes: Buffer): Buffer {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const out = Buffer.from(bytes);
  let i = 0;
  while (i < out.length) {
    const b = out[i] as number;
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= out.length;
    for (let k = 1; ok && k < len; k++) ok = ((out[i + k] as number) & 0xc0) === 0x80;
    // Overlong forms, surrogates and code points past U+10FFFF have the right shape but are invalid.
    if (ok && len > 1) {
      try {
        strict.decode(out.subarray(i, i + len));
      } catch {
        ok = false;
      }
    }
    if (ok) i += len;
    else out[i++] = 0x3f;
  }
  return out;
}

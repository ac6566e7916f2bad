/**
 * Reads git's `--progress` output while cloning. The received-bytes figure lets a clone that
 * is already past the size limit stop during the transfer instead of filling the disk first;
 * the checkout walk afterwards is still the authoritative check (packs are compressed).
 */
const UNITS: Record<string, number> = { byte: 1, bytes: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };
const RECEIVING = /Receiving objects:[^\r\n]*?,\s*(\d+(?:\.\d+)?)\s*(bytes?|KiB|MiB|GiB)/gi;

/** The largest received-bytes figure in a chunk of progress output, or null. */
export function receivedBytes(text: string): number | null {
  let max: number | null = null;
  for (const m of text.matchAll(RECEIVING)) {
    const value = Number(m[1]) * (UNITS[(m[2] ?? "").toLowerCase()] ?? 1);
    if (max === null || value > max) max = value;
  }
  return max;
}

/** Calls onBytes with each received-bytes figure seen on the stream. */
export function watchReceivedBytes(stderr: NodeJS.ReadableStream, onBytes: (bytes: number) => void): void {
  // Progress lines end in \r and can be split across chunks; keep the tail of the last one.
  let carry = "";
  stderr.on("data", (chunk: Buffer | string) => {
    const text = carry + chunk.toString();
    carry = text.slice(-200);
    const bytes = receivedBytes(text);
    if (bytes !== null) onBytes(bytes);
  });
}

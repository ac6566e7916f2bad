/**
 * A scan that reuses nothing, for rescan-property.test.ts: run as a process of its own
 * (`node --import tsx rescan-fresh-scan.ts '<json>'`), it clones the branch into a new
 * directory without a kept repository, runs the analyzers without any cache, and prints the
 * commit and the findings as JSON. Its own process, because the dataflow thread keeps lowered
 * files and interpretations per process: a scan in the test's process would share them with
 * the scans it is the reference for.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkoutRepository, runAnalyzers } from "@ax/scanner";

export interface FreshScanInput {
  gitUri: string;
  branch?: string;
  timeoutMs: number;
  maxRepoBytes: number;
  analyzerTimeoutMs: number;
  maxOutputBytes: number;
}

const input = JSON.parse(process.argv[2] ?? "{}") as FreshScanInput;
const dir = await mkdtemp(join(tmpdir(), "ax-fresh-scan-"));
try {
  const dest = join(dir, "src");
  const cloned = await checkoutRepository({
    gitUri: input.gitUri,
    ...(input.branch ? { branch: input.branch } : {}),
    dest,
    allowInsecure: true,
    timeoutMs: input.timeoutMs,
    maxRepoBytes: input.maxRepoBytes,
  });
  const result = await runAnalyzers({ dir: dest, timeoutMs: input.analyzerTimeoutMs, maxOutputBytes: input.maxOutputBytes });
  const out = JSON.stringify({
    commit: cloned.commit,
    analyzers: result.analyzers.map((a) => [a.name, a.status]),
    findings: result.findings,
  });
  await new Promise<void>((resolve) => process.stdout.write(out, () => resolve()));
} finally {
  await rm(dir, { recursive: true, force: true });
}
// The dataflow thread may still be winding down; nothing else is pending.
process.exit(0);

/**
 * The "by hand" side of the scan bench: each analyzer of the worker's registry called
 * directly on a checkout, one after another, no cache, no postprocessing, no database.
 * The CLI tools (bandit, flawfinder, cppcheck, shellcheck) are started by their adapters
 * exactly as the worker starts them (same arguments, chunks and environment); the in-process
 * ones (ast-grep rules, dataflow, secrets) are called the same way. Prints JSON.
 *
 *   node --import tsx bench/perf/by-hand.ts <checkout>
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultAnalyzers, filesFor, selectFiles } from "@ax/scanner";

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error("usage: by-hand.ts <checkout>");
  const t0 = performance.now();
  const selection = await selectFiles(dir);
  const selectMs = performance.now() - t0;
  const out: { name: string; ms: number; files: number; findings: number }[] = [];
  for (const analyzer of defaultAnalyzers()) {
    const files = filesFor(selection, analyzer.languages);
    if (files.length === 0 || (await analyzer.version()) === null) continue;
    const scratchDir = mkdtempSync(join(tmpdir(), "ax-perf-hand-"));
    try {
      const started = performance.now();
      const findings = await analyzer.run({
        dir,
        languages: selection.languages,
        timeoutMs: 30 * 60_000,
        maxOutputBytes: 1 << 30,
        signal: new AbortController().signal,
        scratchDir,
        files,
      });
      out.push({ name: analyzer.name, ms: Math.round(performance.now() - started), files: files.length, findings: findings.length });
    } finally {
      rmSync(scratchDir, { recursive: true, force: true });
    }
  }
  process.stdout.write(JSON.stringify({ selectMs: Math.round(selectMs), analyzers: out }));
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});

/**
 * How much the taint analysis adds to a scan: a repository of at least 100,000 lines
 * assembled from Juliet Java test cases (the datasets in DATASETS_DIR, default
 * ../shared/datasets), scanned by the product's runAnalyzers with the worker's analyzers,
 * with and without `dataflow`, alternating, three times each, on this machine in one run.
 * Writes the figures into docs/dataflow.md between its markers.
 *
 *   npm run bench:dataflow [-- --lines 100000 --runs 3]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { tmpdir, cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultAnalyzers, runAnalyzers } from "@ax/scanner";
import { JULIET_JAVA_ARCHIVE, requireDatasets } from "../detection/datasets";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const targetLines = arg("lines", 100_000);
const runs = arg("runs", 3);

function listJava(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJava(full));
    else if (entry.name.endsWith(".java")) out.push(full);
  }
  return out.sort();
}

async function timeScan(dir: string, withDataflow: boolean): Promise<{ ms: number; dataflowMs: number; findings: number }> {
  const started = performance.now();
  const result = await runAnalyzers({
    dir,
    analyzers: defaultAnalyzers({ dataflow: withDataflow }),
    timeoutMs: 30 * 60_000,
    maxOutputBytes: 200 * 1024 * 1024,
    threads: 2,
  });
  const ms = performance.now() - started;
  return { ms, dataflowMs: result.analyzers.find((a) => a.name === "dataflow")?.duration_ms ?? 0, findings: result.findings.length };
}

/**
 * One timed scan in a fresh process: the analysis thread keeps lowered files and the last
 * analysis's interpretations, so a second scan of the same files in one process measures
 * that reuse, not what a first scan costs.
 */
function timeScanInChild(dir: string, warm: string, withDataflow: boolean): { ms: number; dataflowMs: number; findings: number } {
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), "--child", dir, warm, String(withDataflow)],
    { cwd: repoRoot, encoding: "utf8", maxBuffer: 1 << 20 },
  );
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as { ms: number; dataflowMs: number; findings: number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function main(): Promise<void> {
  const datasets = requireDatasets("bench:dataflow", [JULIET_JAVA_ARCHIVE]);
  const scratch = mkdtempSync(join(tmpdir(), "ax-bench-dataflow-"));
  try {
    execFileSync("tar", ["-xzf", join(datasets, JULIET_JAVA_ARCHIVE), "-C", scratch, "./src"]);
    const repo = join(scratch, "repo");
    let lines = 0;
    let files = 0;
    const candidates = [...listJava(join(scratch, "src/testcasesupport")), ...listJava(join(scratch, "src/testcases"))];
    // Every 7th file, so that the repository mixes CWEs and flow variants.
    for (const [i, file] of candidates.entries()) {
      if (lines >= targetLines) break;
      if (i >= 40 && i % 7 !== 0) continue;
      const rel = file.slice(join(scratch, "src").length + 1);
      mkdirSync(dirname(join(repo, rel)), { recursive: true });
      copyFileSync(file, join(repo, rel));
      lines += readFileSync(file, "utf8").split("\n").length;
      files++;
    }
    process.stderr.write(`repository: ${files} Java files, ${lines} lines\n`);
    // Each run's warm-up repository: other Juliet files (every 7th from the 4th on), about a
    // third of the size, so that the engine's code is compiled and warm as in a worker that has
    // scanned before, while nothing of the measured files is in the thread's caches.
    const warm = join(scratch, "warm");
    let warmLines = 0;
    for (const [i, file] of candidates.entries()) {
      if (warmLines >= targetLines / 3) break;
      if (i < 40 || i % 7 !== 3) continue;
      const rel = file.slice(join(scratch, "src").length + 1);
      mkdirSync(dirname(join(warm, rel)), { recursive: true });
      copyFileSync(file, join(warm, rel));
      warmLines += readFileSync(file, "utf8").split("\n").length;
    }
    const without: number[] = [];
    const withDf: number[] = [];
    const dfOnly: number[] = [];
    let findings = { without: 0, with: 0 };
    for (let r = 0; r < runs; r++) {
      const a = timeScanInChild(repo, warm, false);
      const b = timeScanInChild(repo, warm, true);
      without.push(a.ms);
      withDf.push(b.ms);
      dfOnly.push(b.dataflowMs);
      findings = { without: a.findings, with: b.findings };
      process.stderr.write(
        `run ${r + 1}: pattern-only ${(a.ms / 1000).toFixed(2)} s, with dataflow ${(b.ms / 1000).toFixed(2)} s (dataflow ` +
          `${(b.dataflowMs / 1000).toFixed(2)} s)\n`,
      );
    }
    const ratio = median(withDf) / median(without);
    const text = [
      `Generated ${new Date().toISOString().slice(0, 10)} by \`npm run bench:dataflow\` (Node ${process.version}, ${cpus().length} cores): a repository of ` +
        `${files} Java files, ${lines.toLocaleString("en")} lines (every 7th Juliet Java file), scanned by \`runAnalyzers\` with the worker's analyzers; ` +
        `median of ${runs} alternating runs, each in a process of its own after a warm-up scan of other Juliet files (a third of the size: it starts the ` +
        `analysis thread, as a worker process does once, and compiles the engine's code), so that no run reuses what an earlier one analysed (a ` +
        `worker's rescan would: see docs/performance.md).`,
      "",
      "| Scan | Median time | Findings |",
      "|---|--:|--:|",
      `| Pattern only (all analyzers but dataflow) | ${(median(without) / 1000).toFixed(2)} s | ${findings.without} |`,
      `| With dataflow | ${(median(withDf) / 1000).toFixed(2)} s | ${findings.with} |`,
      `| of which the dataflow analyzer | ${(median(dfOnly) / 1000).toFixed(2)} s | |`,
      "",
      `Ratio with/without: **${ratio.toFixed(2)}×** (target ≤ 2×: **${ratio <= 2 ? "met" : "not met"}**).`,
    ].join("\n");
    const doc = join(repoRoot, "docs/dataflow.md");
    const current = readFileSync(doc, "utf8");
    const start = "<!-- bench:dataflow:start -->";
    const end = "<!-- bench:dataflow:end -->";
    const block = `${start}\n<!-- Generated by npm run bench:dataflow. Do not edit by hand. -->\n\n${text}\n${end}`;
    writeFileSync(
      doc,
      current.includes(start)
        ? current.replace(new RegExp(`${start}[\\s\\S]*${end}`), block)
        : `${current.trimEnd()}\n\n## Speed\n\n${block}\n`,
    );
    process.stdout.write(`${text}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const child = args.indexOf("--child");
if (child >= 0) {
  const [dir, warm, withDataflow] = args.slice(child + 1);
  if (!dir || !warm) throw new Error("usage: --child <repo> <warm-up repo> <true|false>");
  await timeScan(warm, true); // grammar registration, JIT, the analysis thread
  process.stdout.write(`${JSON.stringify(await timeScan(dir, withDataflow === "true"))}\n`);
  process.exit(0);
} else await main();

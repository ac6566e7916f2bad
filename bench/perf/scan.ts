/**
 * Scan pipeline: a large mixed repository scanned end to end (POST /scan → completed, API and
 * worker as separate processes), beside the same work by hand in the same run (a plain
 * `git clone` plus each analyzer run directly on the checkout); then the same commit again,
 * and a commit changing 1% of the files.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildLargeRepo, changeFraction } from "./corpus";
import { fmt, machine, machineLine, verdict, writeSection } from "./report";
import {
  api,
  createBenchStack,
  repoRoot,
  scanPhases,
  startApiProc,
  startWorkerProc,
  waitScan,
  type BenchStack,
  type Machine,
  type ScanView,
} from "./stack";

const s = (ms: number) => `${fmt(ms / 1000, 2)} s`;

interface HandRun {
  cloneMs: number;
  selectMs: number;
  analyzers: { name: string; ms: number; files: number; findings: number }[];
}

function byHand(uri: string, scratch: string): HandRun {
  const checkout = join(scratch, `hand-${Date.now()}`);
  const t0 = performance.now();
  execFileSync("git", ["clone", "-q", "--depth=1", "--single-branch", "--no-tags", uri, checkout], { stdio: "ignore" });
  const cloneMs = performance.now() - t0;
  const out = execFileSync(process.execPath, ["--import", "tsx", "bench/perf/by-hand.ts", checkout], {
    cwd: repoRoot,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  rmSync(checkout, { recursive: true, force: true });
  return { cloneMs, ...(JSON.parse(out) as Omit<HandRun, "cloneMs">) };
}

async function scanOnce(base: string, token: string, uri: string, groupId?: string): Promise<{ ms: number; view: ScanView; id: string }> {
  const t0 = performance.now();
  const { scan_id } = await api<{ scan_id: string }>(base, token, "POST", groupId ? `/scan?group_id=${groupId}` : "/scan", {
    git_uri: uri,
  });
  const view = await waitScan(base, token, scan_id);
  const ms = performance.now() - t0;
  if (view.state !== "completed") throw new Error(`scan ${scan_id} ended ${view.state}: ${view.error ?? ""}`);
  return { ms, view, id: scan_id };
}

/** Every finding of a scan as "rule file:start-end:col-col snippet", sorted: what a fresh scan must reproduce. */
async function findingKeys(base: string, token: string, scanId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | null = null;
  do {
    const page: {
      findings: {
        rule_id: string;
        file: string;
        start_line: number;
        end_line: number;
        start_column: number;
        end_column: number;
        snippet: string;
      }[];
      next_cursor: string | null;
    } = await api(base, token, "GET", `/scan/${scanId}/findings?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    for (const f of page.findings)
      keys.push(`${f.rule_id} ${f.file}:${f.start_line}-${f.end_line}:${f.start_column}-${f.end_column} ${f.snippet}`);
    cursor = page.next_cursor;
  } while (cursor);
  return keys.sort();
}

export async function benchScan(opts: { lines: number }): Promise<void> {
  const before = machine();
  const scratch = mkdtempSync(join(tmpdir(), "ax-perf-scan-"));
  const stack = await createBenchStack();
  const procs: { stop(): Promise<void> }[] = [];
  try {
    const corpus = buildLargeRepo(scratch, opts.lines);
    const uri = `file://${corpus.dir}`;
    process.stderr.write(`corpus: ${corpus.files} files, ${corpus.lines} lines ${JSON.stringify(corpus.byLanguage)}\n`);
    const apiProc = await startApiProc(stack);
    procs.push(apiProc);
    const workerLog = join(scratch, "worker.log");
    const worker = startWorkerProc(
      stack,
      // info: the worker logs each scan's phase timings with its completion.
      { WORKER_CONCURRENCY: "1", WORKSPACE_DIR: join(scratch, "workspaces"), LOG_LEVEL: "info" },
      process.env.BENCH_WORKER_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`] : [],
      workerLog,
    );
    procs.push(worker);

    // Warm the page cache for both sides alike: the by-hand run reads every file first.
    byHand(uri, scratch);
    const hand = byHand(uri, scratch);
    const handSum = hand.cloneMs + hand.selectMs + hand.analyzers.reduce((t, a) => t + a.ms, 0);
    process.stderr.write(
      `by hand: clone ${s(hand.cloneMs)} + ${hand.analyzers.map((a) => `${a.name} ${s(a.ms)}`).join(" + ")} = ${s(handSum)}\n`,
    );
    const runs = await timeScans(stack, apiProc.base, uri, corpus.dir);
    const peak = worker.peakRssMiB();
    const apiPeak = apiProc.peakRssMiB();
    const after = machine();
    const text = renderScan({ before, after, corpus, uri, hand, handSum, runs, phases: scanPhases(workerLog), peak, apiPeak });
    writeSection("scan", text);
  } finally {
    for (const p of procs) await p.stop();
    await stack.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The three timed scans (first, same commit, 1% of files changed), and the check of the
 * rescan against ground truth: a fresh scan of the same commit, whose findings must be the same.
 */
async function timeScans(stack: BenchStack, base: string, uri: string, dir: string) {
  const token = stack.tenant.token;
  const first = await scanOnce(base, token, uri);
  process.stderr.write(`first scan: ${s(first.ms)} (${JSON.stringify(first.view.counts)})\n`);
  const same = await scanOnce(base, token, uri);
  process.stderr.write(`same commit: ${s(same.ms)}\n`);
  const changed = changeFraction(dir, 0.01, "perf-bench change");
  const pct = await scanOnce(base, token, uri);
  process.stderr.write(`1% changed (${changed} files): ${s(pct.ms)}\n`);
  // Ground truth for what the rescan timed: the same commit scanned as a new project (another
  // group: no kept clone, no cached results), whose findings must be the same.
  const { group_id: freshGroup } = await api<{ group_id: string }>(
    base,
    token,
    "POST",
    `/organization/${stack.tenant.organization_id}/group`,
    { name: "perf-fresh" },
  );
  const fresh = await scanOnce(base, token, uri, freshGroup);
  const [rescanned, truth] = await Promise.all([findingKeys(base, token, pct.id), findingKeys(base, token, fresh.id)]);
  const differ = rescanned.filter((k) => !truth.includes(k)).length + truth.filter((k) => !rescanned.includes(k)).length;
  if (differ > 0 || pct.view.commit !== fresh.view.commit)
    throw new Error(`the 1% rescan's findings differ from a fresh scan of ${fresh.view.commit ?? "?"} (${differ} differ)`);
  process.stderr.write(`fresh scan of the same commit: ${s(fresh.ms)}, ${truth.length} findings, identical\n`);
  return { first, same, changed, pct, fresh, truth };
}

type ScanRuns = Awaited<ReturnType<typeof timeScans>>;

function renderScan(r: {
  before: Machine;
  after: Machine;
  corpus: ReturnType<typeof buildLargeRepo>;
  uri: string;
  hand: ReturnType<typeof byHand>;
  handSum: number;
  runs: ScanRuns;
  phases: ReturnType<typeof scanPhases>;
  peak: number;
  apiPeak: number;
}): string {
  const { before, after, corpus, uri, hand, handSum, peak, apiPeak, phases } = r;
  const { first, same, changed, pct, fresh, truth } = r.runs;
  const phaseText = (id: string) => phaseLine(phases.get(id));
  const ratio = first.ms / handSum;
  const sameRatio = same.ms / first.ms;
  const pctRatio = pct.ms / first.ms;
  const text = [
    `Generated ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:perf -- scan\`. ${machineLine(before, after)}`,
    "",
    `Repository: ${fmt(corpus.files)} files, ${fmt(corpus.lines)} lines — ` +
      `${Object.entries(corpus.byLanguage)
        .map(([l, v]) => `${l} ${fmt(v.files)} files / ${fmt(v.lines)} lines`)
        .join(", ")}` +
      ` (Java and C from the Juliet suites, Python from the interpreter's standard library, JavaScript from ` +
      `unminified library sources in node_modules, shell from the system's scripts; ` +
      `\`bench/perf/corpus.ts\`), one commit in a git repository under /tmp, scanned as \`` +
      `${uri.replace(/ax-perf-scan-[^/]+/, "ax-perf-scan-…")}\`.`,
    "",
    "End to end: `POST /api/v2/scan` until `GET /api/v2/scan/{id}` says completed (polled every 100 ms), " +
      "with the API (`apps/api/src/main.ts`) and one worker process (`apps/worker/src/main.ts`, " +
      "`WORKER_CONCURRENCY=1`, auto-triage on as by default) on a fresh database, so the first scan finds " +
      "an empty analysis cache.",
    "",
    `By hand, in the same run (after one warm-up of the same, so both sides read from the page cache): ` +
      `\`git clone --depth=1 --single-branch --no-tags ${"file://…"}\` (${s(hand.cloneMs)}), file selection (${s(hand.selectMs)}), then each analyzer ` +
      `called directly on the checkout, one after another (\`bench/perf/by-hand.ts\`: the CLI tools started ` +
      `by their adapters with the worker's arguments, the in-process ones called directly): ` +
      `${hand.analyzers.map((a) => `${a.name} ${s(a.ms)}`).join(", ")}. Sum: **${s(handSum)}**.`,
    "",
    "| Run | Time | Baseline | Ratio | Target | |",
    "|---|--:|--:|--:|--:|---|",
    `| First scan, end to end | ${s(first.ms)} | by-hand sum ${s(handSum)} | ${fmt(ratio, 2)}× | ≤ 1.25× | ${verdict(ratio <= 1.25)} |`,
    `| Rescan, same commit | ${s(same.ms)} | first scan ${s(first.ms)} | ${fmt(sameRatio * 100)}% | ≤ 10% | ${verdict(sameRatio <= 0.1)} |`,
    `| Rescan, ${changed} files (1%) changed | ${s(pct.ms)} | first scan ${s(first.ms)} | ${fmt(pctRatio * 100)}% | ≤ 20% | ${verdict(pctRatio <= 0.2)} |`,
    `| Worker peak RSS (VmHWM, all three scans) | ${fmt(peak)} MiB | | | ≤ 1024 MiB | ${verdict(peak <= 1024)} |`,
    "",
    "Where the time goes, per phase, as the worker logs it (`phases_ms` of its `scan completed` line; " +
      "reuse is asking the remote for its commit and reading the stored analysis when nothing needs " +
      "cloning, clone includes listing the blobs, analyze the file selection, all analyzers and " +
      "postprocessing, triage the review model's labels, store the database transaction):",
    "",
    `- first scan: ${phaseText(first.id)}`,
    `- same commit: ${phaseText(same.id)}`,
    `- 1% changed: ${phaseText(pct.id)}`,
    "",
    `Analyzer durations the worker recorded — first scan: ${analyzerRows(first.view)}. Same commit: ` +
      `${analyzerRows(same.view) || "(results reused)"}. 1% changed: ${analyzerRows(pct.view)}.`,
    "",
    `Findings: first ${first.view.counts?.total ?? "?"}, same commit ${same.view.counts?.total ?? "?"}, ` +
      `1% changed ${pct.view.counts?.total ?? "?"}. API peak RSS meanwhile ${fmt(apiPeak)} MiB.`,
    "",
    `Checked against ground truth: the 1% rescan's ${truth.length} findings (rule, file, lines, columns, ` +
      `snippet) are identical to those of a fresh scan of the same commit as a new project in another ` +
      `group, without a kept clone or cached results (${s(fresh.ms)}); the bench fails otherwise.`,
  ].join("\n");
  return text;
}

/** A scan's phases as the worker logged them, in the order they run. */
function phaseLine(p: Record<string, number> | undefined): string {
  return p
    ? ["reuse", "clone", "analyze", "triage", "cleanup", "store"]
        .filter((k) => p[`${k}_ms`] !== undefined)
        .map((k) => `${k} ${s(p[`${k}_ms`] ?? 0)}`)
        .join(", ")
    : "(not logged)";
}

function analyzerRows(v: ScanView): string {
  return (v.analyzers ?? [])
    .map((a) => `${a.name} ${s(a.duration_ms)}${a.cached_files ? ` (${a.cached_files}/${a.files} files cached)` : ""}`)
    .join(", ");
}

/**
 * Scale-out: scans per minute with 1, 2 and 4 worker processes (WORKER_CONCURRENCY=1 each) on
 * a queue of small repositories. Each round uses a new organization, so neither the analysis
 * cache nor the previous scan of a project makes a later round cheaper.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { SCAN_QUEUE } from "@ax/contracts";
import { buildLargeRepo, buildSmallRepos, git } from "./corpus";
import { fmt, machine, machineLine, verdict, writeSection } from "./report";
import { api, createBenchStack, newTenant, REDIS_URL, startApiProc, startWorkerProc, waitScan, type Proc } from "./stack";

export async function benchScale(opts: { repos: number }): Promise<void> {
  const before = machine();
  const scratch = mkdtempSync(join(tmpdir(), "ax-perf-scale-"));
  const stack = await createBenchStack();
  const procs: { stop(): Promise<void> }[] = [];
  const queue = new Queue(SCAN_QUEUE, { connection: { url: REDIS_URL }, prefix: stack.prefix });
  try {
    const large = buildLargeRepo(scratch, 20_000);
    const repos = buildSmallRepos(scratch, opts.repos, large.dir);
    const lines = repos.map((r) => git(r, "ls-files").split("\n").length);
    process.stderr.write(`${repos.length} small repositories, ${lines.reduce((a, b) => a + b, 0) / repos.length} files each on average\n`);
    const apiProc = await startApiProc(stack);
    procs.push(apiProc);
    const rows: { workers: number; ms: number; perMin: number; peak: number }[] = [];
    for (const workers of [1, 2, 4]) {
      const tenant = await newTenant(stack.handle);
      const ws: Proc[] = [];
      for (let i = 0; i < workers; i++)
        ws.push(startWorkerProc(stack, { WORKER_CONCURRENCY: "1", WORKSPACE_DIR: join(scratch, `ws-${workers}-${i}`) }));
      procs.push(...ws);
      // Every worker connected and waiting before the clock starts.
      for (let t = 0; (await queue.getWorkersCount()) < workers; t++) {
        if (t > 600) throw new Error("workers did not connect");
        await new Promise((r) => setTimeout(r, 100));
      }
      const t0 = performance.now();
      const ids = await Promise.all(
        repos.map((r) => api<{ scan_id: string }>(apiProc.base, tenant.token, "POST", "/scan", { git_uri: `file://${r}` })),
      );
      const views = await Promise.all(ids.map((s) => waitScan(apiProc.base, tenant.token, s.scan_id)));
      const ms = performance.now() - t0;
      const failed = views.filter((v) => v.state !== "completed");
      if (failed.length) throw new Error(`${failed.length} scans did not complete: ${failed[0]?.error ?? ""}`);
      const peak = Math.max(...ws.map((w) => w.peakRssMiB()));
      for (const w of ws) await w.stop();
      rows.push({ workers, ms, perMin: (repos.length / ms) * 60_000, peak });
      process.stderr.write(
        `${workers} worker(s): ${repos.length} scans in ${fmt(ms / 1000, 1)} s = ${fmt((repos.length / ms) * 60_000, 1)}/min\n`,
      );
    }
    const after = machine();
    const one = rows[0]?.perMin ?? 1;
    const four = rows[2]?.perMin ?? 0;
    const text = [
      `Generated ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:perf -- scale\`. ${machineLine(before, after)}`,
      "",
      `Queue: ${repos.length} small repositories (about ${Math.round(lines.reduce((a, b) => a + b, 0) / repos.length)} files each: two Java, ` +
        `two C, two Python, two JavaScript and two shell files from the corpus of the scan bench, and a ` +
        `README), all posted at once through the API; the clock runs from the first POST to the last scan ` +
        `completed. Each round starts its worker processes (\`apps/worker/src/main.ts\`, ` +
        `\`WORKER_CONCURRENCY=1\`) first and waits until all are connected to the queue, and uses a new ` +
        `organization, so the analysis cache starts empty every round.`,
      "",
      "| Worker processes | Time for the queue | Scans per minute | Speed-up vs 1 | Peak RSS per worker |",
      "|--:|--:|--:|--:|--:|",
      ...rows.map(
        (r) => `| ${r.workers} | ${fmt(r.ms / 1000, 1)} s | ${fmt(r.perMin, 1)} | ${fmt(r.perMin / one, 2)}× | ${fmt(r.peak)} MiB |`,
      ),
      "",
      `Target: 4 workers ≥ 3× one worker where cores allow — measured ${fmt(four / one, 2)}× on ` +
        `${before.nproc} cores: ` +
        `${
          before.nproc >= 4
            ? verdict(four / one >= 3)
            : `not reachable here (${before.nproc} cores: a scan is CPU-bound, so more processes than cores only ` +
              `share them; the bound is about ${before.nproc}× minus the API's and PostgreSQL's share)`
        }.`,
    ].join("\n");
    writeSection("scale", text);
  } finally {
    for (const p of procs) await p.stop();
    await queue.close();
    await stack.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

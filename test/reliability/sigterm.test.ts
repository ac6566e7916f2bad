// Fault: SIGTERM to a worker process while an analyzer is running, repeated AX_FAULT_REPEAT
// times. Real worker processes, PostgreSQL, Redis and git; the long-running analyzer is an
// operator-style SARIF tool (a node script and a child of its own) that would sleep for a
// minute, longer than the worker's shutdown deadline.
import fs from "node:fs";
import { SCAN_QUEUE } from "@ax/contracts";
import { commitFiles, makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";
import { expectSameAsReference, installStateAudit, scanOutcome, waitForEnd } from "./support/audit";
import { Fleet, submitScan } from "./support/fleet";
import { pidsWithMarker } from "./support/processes";
import { Tally, budgetMs, repeatCount, report, sleep } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
const SHUTDOWN_TIMEOUT_MS = 4_000;
/** Process teardown after the deadline's own work (exit hooks, runtime shutdown). */
const EXIT_SLACK_MS = 1_000;
const LONG_MS = 60_000;
const SHORT_MS = 300;

let h: ApiHarness;
let tools: ProbeTools;
let repo: string;
let fleet: Fleet;

beforeAll(async () => {
  h = await createApiHarness();
  await installStateAudit(h.stack.handle.db);
  tools = probeTools(SHORT_MS);
  repo = makeGitRepo(pythonFiles());
  fleet = new Fleet(h.stack.config, tools, h.deps.queue, { env: { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) } });
});

afterAll(async () => {
  await fleet.stop();
  await h.close();
  for (const dir of [tools.dir, repo]) fs.rmSync(dir, { recursive: true, force: true });
});

const submit = () => submitScan(h.app, h.tenant.token, repo);
const exitCodes: Record<string, number> = {};
let lastUncleanLog = "";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

it(
  `SIGTERM while an analyzer runs: the worker exits by its deadline, leaves no analyzer process, and the scan is handed back and ends once (${N}×)`,
  async () => {
    const db = h.stack.handle.db;
    await Promise.all([fleet.start(), fleet.start()].map((w) => w.process.ready));
    const refId = await submit();
    expect(await waitForEnd(db, refId)).toBe("completed");
    const ref = await scanOutcome(db, refId);

    const tally = new Tally(N);
    const exitMs: number[] = [];
    const handBackMs: number[] = [];
    let orphans = 0;
    let workspacesLeft = 0;
    while (tally.more) {
      await tally.run(async () => {
        tools.setSlowMs(LONG_MS);
        // A new commit each time: a scan of a commit already analysed reuses that analysis
        // (result-reuse.ts) and would never start the analyzer this fault needs.
        commitFiles(repo, { "round.txt": `${Date.now()}\n` }, "another round");
        const id = await submit();
        // The probe tool's child sleeping its minute under the holder's marker: mid-analysis.
        const victim = await waitFor(
          async () => {
            const w = await fleet.holder(id);
            return w && pidsWithMarker(w.marker, String(LONG_MS)).length > 0 ? w : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 50, what: "the long analyzer to run" },
        );
        fleet.kill(victim, "SIGTERM");
        const sigtermAt = Date.now();
        // The re-run, wherever it happens, is quick; the running tool already read its minute.
        tools.setSlowMs(SHORT_MS);
        const exit = await victim.process.exited;
        const tookMs = exit.at - sigtermAt;
        exitMs.push(tookMs);
        const code = String(exit.code ?? exit.signal);
        exitCodes[code] = (exitCodes[code] ?? 0) + 1;
        if (exit.code !== 0) lastUncleanLog = victim.process.tail().split("\n").slice(-2).join(" | ");
        // SIGKILL is delivered asynchronously: a process may take a moment to die.
        let left = pidsWithMarker(victim.marker);
        if (left.length) left = await sleep(500).then(() => pidsWithMarker(victim.marker));
        orphans += left.length;
        workspacesLeft += fs.readdirSync(victim.workspace).length;
        fleet.start();

        await waitFor(
          async () => ((await db.selectFrom("scans").select("attempts").where("id", "=", id).executeTakeFirst())?.attempts ?? 0) >= 2,
          {
            timeoutMs: 30_000,
            intervalMs: 50,
            what: "another worker to take the scan over",
          },
        ).catch(async (err: Error) => {
          const job = await h.deps.queue.queue(SCAN_QUEUE).getJob(id);
          const row = await db.selectFrom("scans").select(["state", "attempts", "phase", "error"]).where("id", "=", id).executeTakeFirst();
          throw new Error(
            `${err.message}: job ${job ? await job.getState() : "missing"}, scan ${JSON.stringify(row)} ${fleet.describe(4)}`,
          );
        });
        handBackMs.push(Date.now() - sigtermAt);
        expect(await waitForEnd(db, id)).toBe("completed");
        const o = await scanOutcome(db, id);
        const problems: string[] = [];
        if (tookMs > SHUTDOWN_TIMEOUT_MS + EXIT_SLACK_MS) problems.push(`exited ${tookMs} ms after SIGTERM`);
        if (left.length) problems.push(`${left.length} analyzer processes left running (pids ${left.join(", ")})`);
        if (problems.length) throw new Error(problems.join("; "));
        expectSameAsReference(o, ref.keys, 2);
      });
    }

    report(
      "sigterm",
      `${tally.figure} workers given SIGTERM mid-analyzer exited by the deadline (SHUTDOWN_TIMEOUT_MS ` +
        `${SHUTDOWN_TIMEOUT_MS} ms + ${EXIT_SLACK_MS} ms; median ${median(exitMs)} ms, max ` +
        `${Math.max(...exitMs)} ms; exit codes ${JSON.stringify(exitCodes)}) ` +
        `with ${orphans} analyzer processes left, and their scans were taken over by another worker (median ` +
        `${median(handBackMs)} ms after SIGTERM, WORKER_LOCK_MS 2000) and ended exactly once; ` +
        `${workspacesLeft} workspace directories left behind by the stopped workers (a worker's start-up ` +
        `sweep removes them once older than the scan time limit)`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
  },
  budgetMs(N, 20_000),
);

it("SIGTERM while an analyzer runs: the worker force-closes at its own deadline and exits 0, not by the hard deadline with 1", () => {
  // main.ts gives RunningWorker.close() SHUTDOWN_TIMEOUT_MS - 2000; a close that overruns it
  // (BullMQ's close(true) after close() only returns the pending close) meets the hard timer,
  // which logs "shutdown deadline passed" and exits 1 without closing anything.
  expect({ exitCodes, lastUncleanLog }).toEqual({ exitCodes: { "0": N }, lastUncleanLog: "" });
});

// Fault: a worker process killed with SIGKILL in the middle of a scan, repeated
// AX_FAULT_REPEAT times. Real worker processes, PostgreSQL, Redis, git and analyzers; the
// extra analyzer is an operator-style SARIF tool (a node script) that keeps each scan busy
// for a while so the kill lands in cloning, analyzing or storing.
import fs from "node:fs";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";
import { expectSameAsReference, installStateAudit, scanOutcome, waitForEnd } from "./support/audit";
import { Fleet, submitScan } from "./support/fleet";
import { killPids, pidsWithMarker } from "./support/processes";
import { Tally, budgetMs, repeatCount, report, sleep } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
const TARGETS = ["cloning", "analyzing", "storing"] as const;
let h: ApiHarness;
let tools: ProbeTools;
let repo: string;
let fleet: Fleet;

beforeAll(async () => {
  h = await createApiHarness();
  await installStateAudit(h.stack.handle.db);
  tools = probeTools(1500);
  repo = makeGitRepo(pythonFiles());
  // No analysis cache: every re-run analyzes from scratch, as after a crash on a cold cache.
  fleet = new Fleet(h.stack.config, tools, h.deps.queue, { env: { ANALYSIS_CACHE: "false" } });
});

afterAll(async () => {
  await fleet.stop();
  await h.close();
  for (const dir of [tools.dir, repo]) fs.rmSync(dir, { recursive: true, force: true });
});

const submit = () => submitScan(h.app, h.tenant.token, repo);

it(
  `re-runs a scan whose worker was SIGKILLed mid-scan: it ends exactly once with the undisturbed finding set (${N}×)`,
  async () => {
    const db = h.stack.handle.db;
    await Promise.all([fleet.start(), fleet.start()].map((w) => w.process.ready));

    const refId = await submit();
    expect(await waitForEnd(db, refId)).toBe("completed");
    const ref = await scanOutcome(db, refId);
    expectSameAsReference(ref, ref.keys, 1);
    expect(ref.findings).toBeGreaterThan(10);
    const refRow = await db.selectFrom("scans").select(["started_at", "finished_at"]).where("id", "=", refId).executeTakeFirstOrThrow();
    const refMs = new Date(refRow.finished_at!).getTime() - new Date(refRow.started_at!).getTime();

    const tally = new Tally(N);
    const phases: Record<string, number> = {};
    const scanIds: string[] = [];
    let orphans = 0;
    let workspacesLeft = 0;
    while (tally.more) {
      await tally.run(async () => {
        const id = await submit();
        scanIds.push(id);
        await waitFor(
          async () => (await db.selectFrom("scans").select("state").where("id", "=", id).executeTakeFirst())?.state === "running",
          {
            timeoutMs: 30_000,
            intervalMs: 20,
            what: "the scan to start",
          },
        );
        // Each phase in turn: cloning (at once), analyzing (a random moment), storing (as soon
        // as it begins: the kill then lands inside the results' transaction).
        const target = TARGETS[(tally.done + tally.missed) % TARGETS.length];
        if (target === "analyzing") await sleep(Math.random() * refMs * 0.8);
        if (target === "storing") {
          await waitFor(
            async () => {
              const row = await db.selectFrom("scans").select(["state", "phase"]).where("id", "=", id).executeTakeFirst();
              return row?.state !== "running" || row.phase === "storing";
            },
            { timeoutMs: 30_000, intervalMs: 0, what: "the scan to start storing" },
          );
        }
        const victim = await fleet.holder(id);
        if (!victim) {
          // The scan ended before the kill could land (its store finished while we looked): no
          // mid-scan kill happened, so, as for a kill after the commit below, it counts neither
          // way once its result is checked, and the loop tries again.
          const now = await db.selectFrom("scans").select("state").where("id", "=", id).executeTakeFirst();
          if (now?.state !== "completed") throw new Error("no worker of ours holds the job");
          expectSameAsReference(await scanOutcome(db, id), ref.keys, 1);
          return "missed";
        }
        const before = await db.selectFrom("scans").select(["state", "phase"]).where("id", "=", id).executeTakeFirstOrThrow();
        fleet.kill(victim, "SIGKILL");
        const killedAt = Date.now();
        await victim.process.exited;
        // Analyzer processes run in their own process group; a SIGKILLed worker cannot stop them.
        const left = pidsWithMarker(victim.marker);
        orphans += left.length;
        killPids(left);
        workspacesLeft += fs.readdirSync(victim.workspace).length;
        fleet.start();

        expect(await waitForEnd(db, id)).toBe("completed");
        const o = await scanOutcome(db, id);
        // Killed after the results were committed (before BullMQ heard of it): not re-run, and
        // not a mid-scan kill either, so it does not count towards N.
        const endedBeforeKill = o.finishedAt !== null && o.finishedAt.getTime() <= killedAt;
        expectSameAsReference(o, ref.keys, endedBeforeKill ? 1 : 2);
        if (endedBeforeKill) return "missed";
        const phase = before.phase ?? "starting";
        phases[phase] = (phases[phase] ?? 0) + 1;
      });
    }

    // Nothing runs a scan again later (a second stalled-job recovery, the reconciler).
    await sleep(4_000);
    let late = 0;
    for (const id of scanIds) {
      const o = await scanOutcome(db, id);
      if (o.endings !== 1 || o.state !== "completed") late++;
    }
    const where = Object.entries(phases)
      .map(([p, n]) => `${p} ${n}`)
      .join(", ");
    report(
      "sigkill",
      `${tally.figure} scans ended exactly once with the undisturbed finding set (${ref.findings} findings, no duplicates; killed during ${where}); ` +
        `${late} changed state afterwards; ${tally.missed} kills landed after the scan ended (not counted); ` +
        `${orphans} analyzer processes outlived their SIGKILLed worker (killed by the test); ` +
        `${workspacesLeft} workspace directories left behind (a worker's start-up sweep removes them once older than the scan time limit)`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
    expect(late).toBe(0);
  },
  budgetMs(N, 25_000),
);

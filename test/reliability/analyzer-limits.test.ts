// Fault: analyzers that hang (and ignore SIGTERM, as does a child of theirs) or flood their
// output or diagnostics, repeated AX_FAULT_REPEAT times. They are operator-style SARIF tools
// (node scripts) next to the real ast-grep, bandit and secrets analyzers; real PostgreSQL,
// Redis, git and worker (in process).
import fs from "node:fs";
import type { AnalyzerRun } from "@ax/contracts";
import { makeGitRepo, waitFor } from "@ax/testkit";
import { startWorker } from "@ax/scan-worker";
import { createApiHarness, type ApiHarness } from "@ax/testkit/api";
import { expectSameAsReference, installStateAudit, scanOutcome, waitForEnd } from "./support/audit";
import { submitScan } from "./support/fleet";
import { pidsWithMarker } from "./support/processes";
import { Tally, budgetMs, repeatCount, report } from "./support/report";
import { probeTools, pythonFiles, type ProbeTools } from "./support/tools";

const N = repeatCount();
const TIMEOUT_MS = 3_000;
/** Small next to the 64 MiB default, big enough for the real analyzers on this repository. */
const MAX_OUTPUT = 1024 * 1024;

let h: ApiHarness;
let tools: ProbeTools;
let marker: string;
let repo: string;

beforeAll(async () => {
  tools = probeTools();
  marker = tools.marker();
  h = await createApiHarness({
    env: {
      ANALYZER_TIMEOUT_MS: String(TIMEOUT_MS),
      ANALYZER_MAX_OUTPUT_BYTES: String(MAX_OUTPUT),
      SARIF_TOOLS: tools.config(marker, ["hang", "flood", "flood-stderr"]),
      WORKER_CONCURRENCY: "1",
    },
  });
  await installStateAudit(h.stack.handle.db);
  repo = makeGitRepo(pythonFiles());
});

afterAll(async () => {
  await h.close();
  for (const dir of [tools.dir, repo]) fs.rmSync(dir, { recursive: true, force: true });
});

const byName = (runs: AnalyzerRun[]) => Object.fromEntries(runs.map((r) => [r.name, r]));

it(
  `a hung analyzer is killed at ANALYZER_TIMEOUT_MS and flooding ones at their output caps; the scan completes with the others' findings (${N}×)`,
  async () => {
    const db = h.stack.handle.db;
    // The undisturbed finding set: the same limits, without the misbehaving tools.
    const plain = await startWorker({
      config: { ...h.stack.config, scan: { ...h.stack.config.scan, sarifTools: "[]" } },
      db,
      logger: h.deps.logger,
    });
    const refId = await submitScan(h.app, h.tenant.token, repo);
    expect(await waitForEnd(db, refId)).toBe("completed");
    await plain.close();
    const ref = await scanOutcome(db, refId);
    const refRow = await db.selectFrom("scans").select("analyzers").where("id", "=", refId).executeTakeFirstOrThrow();
    const good = (refRow.analyzers as unknown as AnalyzerRun[]).filter((a) => a.status === "completed").map((a) => a.name);
    expect(good).toEqual(expect.arrayContaining(["ast-grep", "bandit", "secrets"]));

    await h.startWorker();
    const tally = new Tally(N);
    const aliveAtEnd: number[] = [];
    const durations: number[] = [];
    let notices: Record<string, string> = {};
    while (tally.more) {
      await tally.run(async () => {
        const id = await submitScan(h.app, h.tenant.token, repo);
        expect(await waitForEnd(db, id)).toBe("completed");
        aliveAtEnd.push(pidsWithMarker(marker).length);
        // The hung tool and its child ignore SIGTERM: the runner's SIGKILL follows 2 s later.
        const left = await waitFor(async () => (pidsWithMarker(marker).length === 0 ? "none" : undefined), {
          timeoutMs: 5_000,
          intervalMs: 100,
          what: "probe processes to be gone",
        }).catch(() => pidsWithMarker(marker));
        const row = await db
          .selectFrom("scans")
          .select(["analyzers", "started_at", "finished_at"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        durations.push(new Date(row.finished_at!).getTime() - new Date(row.started_at!).getTime());
        const runs = byName(row.analyzers as unknown as AnalyzerRun[]);
        notices = Object.fromEntries(
          ["probe-hang", "probe-flood", "probe-flood-stderr"].map((n) => [n, `${runs[n]?.status}: ${runs[n]?.notice}`]),
        );
        const problems: string[] = [];
        if (left !== "none") problems.push(`probe processes still alive 5 s after the scan: ${String(left)}`);
        const expectRun = (name: string, status: string, notice: RegExp) => {
          const r = runs[name];
          if (r?.status !== status || !notice.test(r.notice ?? "")) problems.push(`${name} ${r?.status ?? "missing"}: ${r?.notice ?? ""}`);
        };
        expectRun("probe-hang", "timeout", /did not finish within 3 s/);
        expectRun("probe-flood", "failed", /more than 1 MiB of output/);
        expectRun("probe-flood-stderr", "failed", /diagnostics/);
        for (const name of good)
          if (runs[name]?.status !== "completed") problems.push(`${name} ${runs[name]?.status}: ${runs[name]?.notice ?? ""}`);
        if (problems.length) throw new Error(problems.join("; "));
        expectSameAsReference(await scanOutcome(db, id), ref.keys, 1);
      });
    }

    report(
      "analyzer-limits",
      `${tally.figure} scans with a hung analyzer (killed at ANALYZER_TIMEOUT_MS ${TIMEOUT_MS} ms) and two flooding ` +
        `ones (ANALYZER_MAX_OUTPUT_BYTES ${MAX_OUTPUT}, 1 MiB of diagnostics) completed with the other ` +
        `analyzers' ${ref.findings} findings and recorded ${JSON.stringify(notices)}; ` +
        `scan time max ${Math.max(...durations)} ms; probe processes still alive when the scan ended: up to ` +
        `${Math.max(...aliveAtEnd)} (SIGKILL follows SIGTERM ` +
        `by 2 s), 5 s later: none, in ${tally.ok} of ${tally.done}`,
    );
    expect(tally.failures).toEqual([]);
    expect(tally.ok).toBe(N);
  },
  budgetMs(N, 20_000),
);

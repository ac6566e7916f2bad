/**
 * API throughput: autocannon (50 connections) against the API process and, alternating in the
 * same run, against a bare Express "hello" process — the baseline every figure is a ratio of.
 */
import autocannon from "autocannon";
import { sql } from "kysely";
import { createScan, findOrCreateProject, markRunning, storeScanResults } from "@ax/db";
import type { NormalizedFinding } from "@ax/contracts";
import { cpuBetween, cpuSnapshot, type CpuClasses, type CpuUse } from "./cpu";
import { pgbenchCeiling } from "./pgbench";
import { fmt, machine, machineLine, verdict, writeSection } from "./report";
import { BENCH_ENV, createBenchStack, freePort, median, startApiProc, startProc, waitHttp, type BenchStack, type Machine } from "./stack";

const CONNECTIONS = 50;
const CPU_COLUMNS = ["API", "PostgreSQL", "Redis", "load generator", "everything else"];
const SEEDED = 1_200;

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpu: CpuUse;
}

async function load(url: string, opts: Partial<autocannon.Options>, seconds: number, classes: CpuClasses): Promise<Load> {
  const before = cpuSnapshot(classes);
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...opts });
  const cpu = cpuBetween(before, cpuSnapshot(classes));
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, cpu };
}

/** CPU milliseconds per request of one class: cores busy × 1000 / requests per second. */
const msPerRequest = (l: Load[], name: string) => median(l.map((x) => ((x.cpu.cores[name] ?? 0) * 1000) / Math.max(1, x.rps)));

export function seedFinding(i: number): NormalizedFinding {
  const sev = ["CRITICAL", "HIGH", "MEDIUM", "LOW"][i % 4] as NormalizedFinding["severity"];
  return {
    analyzer: "ast-grep",
    rule_id: "js-sql-injection",
    title: "SQL injection",
    message: `Query built from input (${i})`,
    cwe_id: "CWE-89",
    cwe_name: "SQL Injection",
    owasp: "A03:2021-Injection",
    file: `src/module${i % 97}/db${i}.js`,
    start_line: 1 + (i % 400),
    end_line: 1 + (i % 400),
    start_column: 1,
    end_column: 20,
    snippet: "db.query('select * from t where id = ' + id)",
    severity: sev,
    confidence: "HIGH",
    likelihood: "MEDIUM",
    impact: "HIGH",
    remediation: "Use parameters",
    fingerprint: i.toString(16).padStart(64, "0"),
    raw: {},
  };
}

export async function benchApi(opts: { seconds: number; rounds: number; only?: string }): Promise<void> {
  const before = machine();
  const stack = await createBenchStack();
  const procs: { stop(): Promise<void> }[] = [];
  try {
    const { scan, findingIds } = await seedScan(stack);
    const apiProc = await startApiProc(stack);
    procs.push(apiProc);
    const helloPort = await freePort();
    const hello = startProc("bench/perf/hello.ts", { NODE_ENV: "production", PORT: String(helloPort) }, "hello");
    procs.push(hello);
    const helloUrl = `http://127.0.0.1:${helloPort}/`;
    await waitHttp(helloUrl);

    const cases = apiCases(stack.tenant.token, scan.id, findingIds);
    // --only <text>: just the endpoints whose name contains it (for profiling; writes no doc).
    if (opts.only) cases.splice(0, cases.length, ...cases.filter((c) => c.name.includes(opts.only ?? "")));
    // CPU time by process during each run: the API, the bare server, PostgreSQL (every
    // backend), Redis and this process, which is the load generator (autocannon runs here).
    const classes: CpuClasses = {
      pids: { API: apiProc.pid, "bare Express": hello.pid, "load generator": process.pid },
      comms: { PostgreSQL: /^postgres/, Redis: /^redis-server/ },
    };
    const results = await runCases(cases, { api: apiProc.base, hello: helloUrl }, classes, opts);
    const peak = apiProc.peakRssMiB();
    // The database's own ceiling, after the API runs so that it cannot warm or cool them.
    const ceiling = await pgbenchCeiling(stack.dbUrl, { clients: 10, seconds: opts.seconds });
    const history = await sql<{ n: string }>`select count(*)::text as n from finding_history where source = 'review'`.execute(
      stack.handle.db,
    );
    const after = machine();
    const text = renderApi({ rows: summarize(results), before, after, ceiling, peak, historyRows: history.rows[0]?.n, opts });
    if (opts.only) process.stdout.write(`${text}\n`);
    else writeSection("api", text);
  } finally {
    for (const p of procs) await p.stop();
    await stack.close();
  }
}

/** One scan of SEEDED findings, stored through @ax/db, with planner statistics gathered. */
async function seedScan(stack: BenchStack) {
  const { tenant, handle } = stack;
  const project = await findOrCreateProject(handle.db, {
    organizationId: tenant.organization_id,
    groupId: tenant.group_id,
    gitUrl: "https://example.test/bench/seeded",
    name: "seeded",
  });
  const { scan } = await createScan(handle.db, {
    organizationId: tenant.organization_id,
    groupId: tenant.group_id,
    projectId: project.id,
    createdBy: tenant.user_id,
    gitUri: "https://example.test/bench/seeded",
    branch: null,
    idempotencyKey: null,
    requestHash: null,
  });
  await markRunning(handle.db, scan.id);
  await storeScanResults(handle.db, {
    scanId: scan.id,
    projectId: project.id,
    organizationId: tenant.organization_id,
    findings: Array.from({ length: SEEDED }, (_, i) => seedFinding(i)),
    analyzers: [],
    languages: ["javascript"],
  });
  const findingIds = (await handle.db.selectFrom("findings").select("id").where("scan_id", "=", scan.id).execute()).map((f) => f.id);
  // Planner statistics, as autovacuum would gather them on a live database. A freshly filled
  // table has none: the page query then reads and sorts every finding of the scan (1.3 ms in
  // PostgreSQL) instead of walking findings_list_idx (0.08 ms).
  await sql`analyze`.execute(handle.db);
  process.stderr.write(`seeded scan ${scan.id} with ${findingIds.length} findings\n`);

  return { scan, findingIds };
}

type ApiCase = { name: string; method: string; path: string; opts: Partial<autocannon.Options> };

/** The endpoints measured; the PUT changes a different finding's status on every request. */
function apiCases(token: string, scanId: string, findingIds: readonly string[]): ApiCase[] {
  const headers = { "X-AX-KEY": token, "content-type": "application/json" };
  const statuses = ["TRUE POSITIVE", "FALSE POSITIVE", "ACCEPTED RISK", "TO REVIEW"];
  let n = 0;
  const cases: ApiCase[] = [
    {
      name: "PUT /api/v2/scan/{id}/finding/{fid}",
      method: "PUT",
      path: "/api/v2/scan/{id}/finding/{fid}",
      opts: {
        method: "PUT",
        headers,
        requests: [
          {
            setupRequest: (req) => {
              const i = n++;
              // Each request changes the status of one of 1,200 findings, so every one writes
              // (row update + history row).
              return {
                ...req,
                method: "PUT",
                path: `/api/v2/scan/${scanId}/finding/${findingIds[i % findingIds.length]}`,
                body: JSON.stringify({ status: statuses[Math.floor(i / findingIds.length) % statuses.length] }),
              };
            },
          },
        ],
      },
    },
    {
      name: "GET /api/v2/scan/{id}/findings?limit=100",
      method: "GET",
      path: `/api/v2/scan/${scanId}/findings?limit=100`,
      opts: { headers },
    },
    {
      name: "POST /api/v2/scan (enqueue only)",
      method: "POST",
      path: "/api/v2/scan",
      opts: { method: "POST", headers, body: JSON.stringify({ git_uri: "file:///tmp/ax-bench-perf-not-cloned/repo.git" }) },
    },
    { name: "GET /api/v2/health", method: "GET", path: "/api/v2/health", opts: {} },
    // Authentication and nothing else: the floor under every authenticated endpoint.
    { name: "GET /api/v2/profile (token check only)", method: "GET", path: "/api/v2/profile", opts: { headers } },
  ];

  return cases;
}

type CaseLoads = { name: string; api: Load[]; hello: Load[] };

/** Warms both servers, then loads each endpoint and, right before it, the bare server, for each round. */
async function runCases(
  cases: readonly ApiCase[],
  base: { api: string; hello: string },
  classes: CpuClasses,
  opts: { seconds: number; rounds: number },
): Promise<CaseLoads[]> {
  const helloUrl = base.hello;
  // Warm-up: JIT, pools, caches of both servers.
  await load(helloUrl, {}, 2, classes);
  for (const c of cases)
    await load(base.api + (c.path.includes("{") ? "/api/v2/health" : c.path), c.opts.requests ? {} : c.opts, 2, classes);

  const results: CaseLoads[] = cases.map((c) => ({ name: c.name, api: [], hello: [] }));
  for (let round = 0; round < opts.rounds; round++) {
    for (const [i, c] of cases.entries()) {
      const h = await load(helloUrl, {}, opts.seconds, classes);
      const a = await load(base.api + (c.path.includes("{") ? "/" : c.path), c.opts, opts.seconds, classes);
      results[i]?.hello.push(h);
      results[i]?.api.push(a);
      process.stderr.write(
        `${c.name}: ${fmt(a.rps)} rps p50 ${a.p50} ms p99 ${a.p99} ms (non-2xx ${a.non2xx}, errors ${a.errors}); hello ${fmt(h.rps)} rps\n`,
      );
    }
  }
  return results;
}

type ApiRow = ReturnType<typeof summarize>[number];

/** Medians over the rounds of each endpoint's runs. */
function summarize(results: readonly CaseLoads[]) {
  const rows = results.map((r) => {
    const rps = median(r.api.map((x) => x.rps));
    const base = median(r.hello.map((x) => x.rps));
    const cpu = Object.fromEntries(CPU_COLUMNS.map((k) => [k, msPerRequest(r.api, k)]));
    const bareCpu = msPerRequest(r.hello, "bare Express") + msPerRequest(r.hello, "load generator");
    return {
      name: r.name,
      rps,
      base,
      ratio: rps / base,
      p50: median(r.api.map((x) => x.p50)),
      p99: median(r.api.map((x) => x.p99)),
      bp99: median(r.hello.map((x) => x.p99)),
      non2xx: r.api.reduce((s, x) => s + x.non2xx, 0),
      errors: r.api.reduce((s, x) => s + x.errors, 0),
      cpu,
      bareCpu,
    };
  });
  return rows;
}

function renderApi(r: {
  rows: ApiRow[];
  before: Machine;
  after: Machine;
  ceiling: Awaited<ReturnType<typeof pgbenchCeiling>>;
  peak: number;
  historyRows: string | undefined;
  opts: { seconds: number; rounds: number };
}): string {
  const { rows, before, after, ceiling, peak, opts } = r;
  const put = rows[0];
  const page = rows[1];
  const text = [
    `Generated ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:perf -- api\`. ${machineLine(before, after)}`,
    "",
    `The API runs as its own process (\`node --import tsx apps/api/src/main.ts\`, what \`npm run ` +
      `start:api\` runs) on a fresh PostgreSQL database and its own Redis queue prefix, seeded through ` +
      `\`@ax/db\` (one scan with ${fmt(SEEDED)} findings). No worker runs, so \`POST /scan\` only records ` +
      `and enqueues. The baseline is a bare Express 5 process answering \`{"hello":"world"}\` ` +
      `(\`bench/perf/hello.ts\`), loaded for ${opts.seconds} s right before each API run. autocannon, ` +
      `${CONNECTIONS} connections, ${opts.seconds} s per run, ${opts.rounds} round(s), medians shown.`,
    "",
    `Environment of the API process: ${Object.entries(BENCH_ENV)
      .map(([k, v]) => `\`${k}=${v}\``)
      .join(", ")} — the rate limits and the in-flight limit are raised because one token from one IP would otherwise be measuring 429s.`,
    "",
    "| Endpoint | API req/s | Bare Express req/s | Ratio | API p50 | API p99 | Bare p99 | non-2xx |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
    ...rows.map(
      (r) =>
        `| \`${r.name}\` | ${fmt(r.rps)} | ${fmt(r.base)} | ${fmt(r.ratio * 100)}% | ${r.p50} ms | ${r.p99} ms | ${r.bp99} ms | ${r.non2xx + r.errors} |`,
    ),
    "",
    "CPU time per request, by process (from /proc, over each run; medians): where each request's cost " +
      'lands on the two shared cores. "Everything else" is the machine\'s other busy time meanwhile (the ' +
      "kernel's softirq work for loopback traffic, other users' processes). The last column is the bare " +
      "Express server's own total: its process plus the load generator.",
    "",
    `| Endpoint | ${CPU_COLUMNS.join(" | ")} | Total | Bare Express total |`,
    `|---|${CPU_COLUMNS.map(() => "--:").join("|")}|--:|--:|`,
    ...rows.map(
      (r) =>
        `| \`${r.name}\` | ${CPU_COLUMNS.map((k) => `${fmt(r.cpu[k] ?? 0, 2)} ms`).join(" | ")} | ${fmt(
          Object.values(r.cpu).reduce((a, b) => a + b, 0),
          2,
        )} ms | ${fmt(r.bareCpu, 2)} ms |`,
    ),
    "",
    ceilingParagraph(ceiling, put, before.nproc),
    "",
    `The PUT runs changed the status of a finding each time (${r.historyRows ?? "?"} history rows written). ` +
      `API process peak RSS (VmHWM) over the whole run: **${fmt(peak)} MiB**.`,
    "",
    "| Target | Measured | |",
    "|---|--:|---|",
    put ? `| PUT finding ≥ 40% of bare Express req/s | ${fmt(put.ratio * 100)}% | ${verdict(put.ratio >= 0.4)} |` : "",
    put ? `| PUT finding p99 ≤ 50 ms | ${put.p99} ms | ${verdict(put.p99 <= 50)} |` : "",
    page ? `| findings page p99 ≤ 100 ms | ${page.p99} ms | ${verdict(page.p99 <= 100)} |` : "",
  ].join("\n");
  return text;
}

/** PostgreSQL's own ceiling (pgbench), set against what a PUT costs. */
function ceilingParagraph(ceiling: Awaited<ReturnType<typeof pgbenchCeiling>>, put: ApiRow | undefined, nproc: number): string {
  return ceiling
    ? `PostgreSQL's own ceiling in the same run (\`pgbench -n -c ${ceiling.clients} -j 2 -T ` +
        `${ceiling.seconds}\` against the bench's database, scale 1): **${fmt(ceiling.writeTps)}` +
        ` transactions/s** with \`-N\` (BEGIN; UPDATE a row; SELECT it; INSERT a history row; END — the shape ` +
        `of the PUT's transaction, from a C client), costing ` +
        `${fmt(ceiling.writeCpuMs, 2)} ms of the machine's CPU per transaction (PostgreSQL and pgbench ` +
        `together; the API idle meanwhile); ${fmt(ceiling.selectTps)}/s with \`-S\` (one primary-key SELECT).` +
        `${
          put
            ? ` 40% of the bare server's rate is ${fmt(put.base * 0.4)} PUTs/s; ${nproc} cores give each of ` +
              `them at most **${fmt((nproc * 1000) / (put.base * 0.4), 2)} ms of CPU** across all processes. ` +
              `A PUT costs ` +
              `${fmt(
                Object.values(put.cpu).reduce((a, b) => a + b, 0),
                2,
              )}` +
              ` ms now (table above), ${fmt(put.cpu.PostgreSQL ?? 0, 2)} ms of it in PostgreSQL; pgbench's ` +
              `transaction of the same shape costs ${fmt(ceiling.writeCpuMs, 2)} ms and the bare Express request ` +
              `${fmt(put.bareCpu, 2)} ms.`
            : ""
        }`
    : "pgbench is not installed: PostgreSQL's own ceiling was not measured.";
}

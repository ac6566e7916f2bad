/**
 * Performance benchmarks (docs/performance.md). Sub-commands:
 *
 *   npm run bench:perf -- api   [--seconds 8 --rounds 2]   API req/s and latency beside bare Express
 *   npm run bench:perf -- scan  [--lines 100000]            scan end to end vs clone + analyzers by hand; rescans
 *   npm run bench:perf -- scale [--repos 24]                scans per minute with 1, 2 and 4 worker processes
 *   npm run bench:perf -- all
 *
 * Each writes its section of docs/performance.md. Everything runs on 127.0.0.1 against the
 * local PostgreSQL (a fresh database) and Redis (a fresh key prefix), both removed afterwards.
 */
import { requireDatasets } from "../detection/datasets";
import { benchApi } from "./api";
import { CORPUS_DATASETS } from "./corpus";

const args = process.argv.slice(2);
const num = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const str = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const what = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ?? "all";

async function main(): Promise<void> {
  // Before any bench runs: the scan and scale benches build their repositories from Juliet.
  if (what === "scan" || what === "scale" || what === "all")
    requireDatasets(what === "all" ? "bench:perf" : `bench:${what}`, CORPUS_DATASETS);
  if (what === "api" || what === "all")
    await benchApi({ seconds: num("seconds", 8), rounds: num("rounds", 2), ...(str("only") ? { only: str("only") } : {}) });
  if (what === "scan" || what === "all") await (await import("./scan")).benchScan({ lines: num("lines", 100_000) });
  if (what === "scale" || what === "all") await (await import("./scale")).benchScale({ repos: num("repos", 24) });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);

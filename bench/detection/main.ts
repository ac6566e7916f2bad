/**
 * `npm run bench:detection` — measures what the scanner detects on labeled data and writes
 * docs/detection.md and docs/detection.json.
 *
 *   node --import tsx bench/detection/main.ts [--suite java,castle,juliet-c,labeled,peer,apps,apps-held] [--c-sample N|all]
 *        [--cwe 78,89] [--out DIR] [--keep] [--peer-misses FILE]
 *
 * DATASETS_DIR (default <repo>/../shared/datasets) holds the archives; they are unpacked into
 * a temporary folder outside the repository and removed afterwards (--keep leaves them).
 * With --suite or --cwe (a partial run) the docs are only written when --out is given.
 * --peer-misses FILE (peer suite) writes the development set's missed labels and false alarms
 * (JSON, or markdown for a .md FILE); the held-out source is never listed.
 * apps-held (the blind labelled applications) reports figures only, never a missed line.
 */
import { runLabeled } from "./labeled-suite";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadRules, RULE_PACK_VERSION } from "@ax/rules";
import { CASTLE_FILE, JULIET_C_ARCHIVE, JULIET_JAVA_ARCHIVE, PEER_ARCHIVE, requireDatasets } from "./datasets";
import { runPeer } from "./peer-suite";
import { HELD_APPS_DIR, runApps, withoutLines } from "./apps-suite";
import { runCastle, runJulietC, runJulietJava, type BenchReport } from "./suites";
import { writeReport } from "./report";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

interface Args {
  suites: Set<string>;
  cSample: number | "all";
  cwes: number[] | null;
  out: string | null;
  keep: boolean;
  partial: boolean;
  peerMisses: string | null;
}

const ALL_SUITES = ["java", "castle", "juliet-c", "labeled", "peer", "apps", "apps-held"];
/** Test cases per Juliet C/C++ CWE folder (deterministic sample, see suites.ts). */
export const DEFAULT_C_SAMPLE = 100;

function parseArgs(argv: string[]): Args {
  const args: Args = {
    suites: new Set(ALL_SUITES),
    cSample: DEFAULT_C_SAMPLE,
    cwes: null,
    out: null,
    keep: false,
    partial: false,
    peerMisses: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--suite") {
      args.suites = new Set(
        value()
          .split(",")
          .map((s) => s.trim()),
      );
      for (const s of args.suites) if (!ALL_SUITES.includes(s)) throw new Error(`unknown suite ${s} (${ALL_SUITES.join(", ")})`);
      args.partial = args.suites.size < ALL_SUITES.length;
    } else if (a === "--c-sample") {
      const v = value();
      args.cSample = v === "all" ? "all" : Number(v);
      if (args.cSample !== "all" && !(Number.isInteger(args.cSample) && args.cSample > 0))
        throw new Error("--c-sample takes a positive integer or 'all'");
    } else if (a === "--cwe") {
      args.cwes = value()
        .split(",")
        .map((s) => Number(s.replace(/^CWE-?/i, "")));
      args.partial = true;
    } else if (a === "--out") args.out = resolve(value());
    else if (a === "--keep") args.keep = true;
    else if (a === "--peer-misses") args.peerMisses = resolve(value());
    else if (a === "--help" || a === "-h") {
      process.stdout.write(
        "usage: bench/detection/main.ts [--suite java,castle,juliet-c,labeled,peer,apps,apps-held] [--c-sample N|all] [--cwe 78,89] [--out DIR] [--keep] " +
          "[--peer-misses FILE]\n",
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (args.peerMisses && !args.suites.has("peer")) throw new Error("--peer-misses needs the peer suite");
  return args;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // The labeled suite is committed (taint-cases/); the others read the datasets.
  const needed = { java: JULIET_JAVA_ARCHIVE, castle: CASTLE_FILE, "juliet-c": JULIET_C_ARCHIVE, peer: PEER_ARCHIVE } as Record<
    string,
    string
  >;
  const datasets = requireDatasets(
    "bench:detection",
    [...args.suites].flatMap((s) => (needed[s] ? [needed[s]] : [])),
  );
  const scratch = await mkdtemp(join(tmpdir(), "ax-bench-detection-"));
  const started = performance.now();
  const javaRules = loadRules().filter((r) => r.language === "Java");
  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    command: `npm run bench:detection${args.cSample !== DEFAULT_C_SAMPLE ? ` -- --c-sample ${args.cSample}` : ""}`,
    rulePackVersion: RULE_PACK_VERSION,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    runtimeMs: 0,
    java: null,
    castle: null,
    julietC: null,
  };
  log(`datasets: ${datasets}; scratch: ${scratch}`);
  try {
    if (args.suites.has("java")) report.java = await runJulietJava({ datasets, scratch, rules: javaRules, cwes: args.cwes, log });
    if (args.suites.has("castle")) report.castle = await runCastle({ datasets, scratch, log });
    if (args.suites.has("juliet-c")) report.julietC = await runJulietC({ datasets, scratch, sample: args.cSample, cwes: args.cwes, log });
    if (args.suites.has("labeled")) report.labeled = await runLabeled({ scratch, log });
    if (args.suites.has("peer")) report.peer = await runPeer({ datasets, scratch, log, missesOut: args.peerMisses });
    if (args.suites.has("apps")) report.apps = await runApps({ scratch, log });
    // Held out: counts only, in the docs, the JSON and on the console (apps-report.ts).
    if (args.suites.has("apps-held"))
      report.appsHeld = (await runApps({ scratch: join(scratch, "held"), log, dir: HELD_APPS_DIR })).map(withoutLines);
  } finally {
    if (!args.keep) await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
    else log(`kept ${scratch}`);
  }
  report.runtimeMs = Math.round(performance.now() - started);
  const outDir = args.out ?? (args.partial ? null : join(repoRoot, "docs"));
  const summary = await writeReport(report, outDir);
  process.stdout.write(summary);
  if (outDir) log(`wrote ${join(outDir, "detection.md")} and detection.json`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:detection failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

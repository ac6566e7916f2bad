/**
 * The peer-labelled suite: unpack peer-labelled.tar.gz, scan each source's folder as one
 * repository (so the findings' paths, prefixed with the folder, are the label paths), score
 * (peer.ts). find-sec-bugs is held out: its results leave this file only as per-language
 * aggregates (no file, line or rule), and the misses list refuses it.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { AnalyzerRun, NormalizedFinding } from "@ax/contracts";
import { PEER_ARCHIVE, sha256File, unpack } from "./datasets";
import { addCounts, countBy, countOutcomes, kindGroup, parsePeerLabels, peerLanguage, scorePeerLabels, type LabelOutcome } from "./peer";
import { HELD_OUT_SOURCE, type PeerCounts, type PeerLabel } from "./peer";
import { writePeerMisses } from "./peer-misses";
import { scopeCwes } from "./peer-scope";
import { scanTree } from "./scan";
import { nearDuplicates } from "./peer-dedup";

export { HELD_OUT_SOURCE };
export const DEV_SOURCES = ["sonar-java", "sonar-python", "sonarjs", "bandit"] as const;
/** find-sec-bugs lines come from bytecode: a finding may start up to this many lines before. */
export const HELD_OUT_LINE_SLACK = 2;

export const peerLineSlack = (source: string): number => (source === HELD_OUT_SOURCE ? HELD_OUT_LINE_SLACK : 0);

/** What a scan of one source reported. */
export interface PeerScanInfo {
  /** Findings counted (all the scan reports: refuted ones excluded). */
  findings: number;
  /** Findings the taint analysis refuted (not reported, not counted). */
  refuted: number;
  /** Counted findings the taint analysis found no path for (reported, labelled unconfirmed). */
  unconfirmed: number;
  /** Counted findings in no labelled file. */
  outsideLabelledFiles: number;
  scanMs: number;
  analyzers: AnalyzerRun[];
}

export interface PeerDevSource extends PeerScanInfo {
  source: string;
  /** What refuting changed: scored again with the refuted matches counted as findings. */
  refutation: { falseAlarmsRemoved: number; labelsLost: number };
  files: number;
  total: PeerCounts;
  byLanguage: Record<string, PeerCounts>;
  byKind: Record<string, PeerCounts>;
  /** Per rule of the peer (development sources only). */
  byRule: Record<string, PeerCounts>;
}

export interface PeerHeldOut {
  source: string;
  /** Aggregates only: recall, false alarms and counts per language. */
  byLanguage: Record<string, PeerCounts & { findings: number; refuted: number }>;
  total: PeerCounts;
  findings: number;
  refuted: number;
  scanMs: number;
  /** Held-out files left out as near-duplicates of development files (peer-dedup.ts). */
  nearDuplicateFiles?: number;
}

export interface PeerSuiteResult {
  dataset: { file: string; sha256: string; version: string };
  lineSlack: Record<string, number>;
  /** Language → CWEs some analyzer of ours can report there (in-scope labels), catalog plus reported. */
  scope: Record<string, number[]>;
  development: {
    sources: PeerDevSource[];
    byLanguage: Record<string, PeerCounts>;
    byKind: Record<string, PeerCounts>;
    pooled: PeerCounts;
  };
  heldOut: PeerHeldOut | null;
  totalMs: number;
}

/** Reported findings: the scan's output minus what the taint analysis refuted. */
export function isRefuted(f: NormalizedFinding): boolean {
  return (f.dataflow?.status as string | undefined) === "refuted";
}

export interface SourceScan {
  counted: NormalizedFinding[];
  refuted: NormalizedFinding[];
  info: PeerScanInfo;
  refutedByLanguage: Record<string, number>;
}

/** Scans one source's folder (`root/source`) as a repository; the findings' paths start with the folder. */
export async function scanSource(root: string, source: string, labelled: ReadonlySet<string>): Promise<SourceScan> {
  const scan = await scanTree(join(root, source));
  const all = [...scan.findings, ...scan.refuted].map((f) => ({ ...f, file: `${source}/${f.file}` }));
  const counted = all.filter((f) => !isRefuted(f));
  const refutedByLanguage: Record<string, number> = {};
  for (const f of all) if (isRefuted(f)) refutedByLanguage[peerLanguage(f.file)] = (refutedByLanguage[peerLanguage(f.file)] ?? 0) + 1;
  return {
    counted,
    refuted: all.filter(isRefuted),
    refutedByLanguage,
    info: {
      findings: counted.length,
      refuted: all.length - counted.length,
      unconfirmed: counted.filter((f) => f.dataflow?.status === "unconfirmed").length,
      outsideLabelledFiles: counted.filter((f) => !labelled.has(f.file)).length,
      scanMs: scan.durationMs,
      analyzers: scan.analyzers,
    },
  };
}

/** The held-out aggregate: per language, never per file or rule. */
export function heldOutAggregate(
  outcomes: readonly LabelOutcome[],
  counted: readonly NormalizedFinding[],
  info: PeerScanInfo,
  refutedByLanguage: Record<string, number>,
): PeerHeldOut {
  const byLanguage: PeerHeldOut["byLanguage"] = {};
  for (const [language, counts] of Object.entries(countBy(outcomes, (o) => o.label.language))) {
    byLanguage[language] = {
      ...counts,
      findings: counted.filter((f) => peerLanguage(f.file) === language).length,
      refuted: refutedByLanguage[language] ?? 0,
    };
  }
  return {
    source: HELD_OUT_SOURCE,
    byLanguage,
    total: countOutcomes(outcomes),
    findings: info.findings,
    refuted: info.refuted,
    scanMs: info.scanMs,
  };
}

function devSource(source: string, outcomes: LabelOutcome[], info: PeerScanInfo, unrefuted: LabelOutcome[]): PeerDevSource {
  const now = countOutcomes(outcomes);
  const before = countOutcomes(unrefuted);
  return {
    source,
    refutation: { falseAlarmsRemoved: before.falseAlarms - now.falseAlarms, labelsLost: before.found - now.found },
    files: new Set(outcomes.map((o) => o.label.file)).size,
    ...info,
    total: countOutcomes(outcomes),
    byLanguage: countBy(outcomes, (o) => o.label.language),
    byKind: countBy(outcomes, (o) => kindGroup(o.label)),
    byRule: countBy(outcomes, (o) => o.label.rule),
  };
}

export async function runPeer(opts: {
  datasets: string;
  scratch: string;
  log: (m: string) => void;
  missesOut?: string | null;
}): Promise<PeerSuiteResult> {
  const started = performance.now();
  const archive = join(opts.datasets, PEER_ARCHIVE);
  const root = join(opts.scratch, "peer");
  opts.log(`peer: unpacking ${PEER_ARCHIVE}`);
  await unpack(archive, root);
  const labels = parsePeerLabels(await readFile(join(root, "labels.jsonl"), "utf8"));
  const bySource = new Map<string, PeerLabel[]>();
  for (const l of labels) bySource.set(l.source, [...(bySource.get(l.source) ?? []), l]);

  const scans = new Map<string, SourceScan>();
  for (const source of [...DEV_SOURCES, HELD_OUT_SOURCE]) {
    if (!bySource.has(source) || !existsSync(join(root, source))) continue;
    opts.log(`peer: scanning ${source === HELD_OUT_SOURCE ? "the held-out source" : source}`);
    const labelled = new Set((bySource.get(source) ?? []).map((l) => l.file));
    scans.set(source, await scanSource(root, source, labelled));
  }
  const scope = scopeCwes([...scans.values()].flatMap((s) => s.counted));
  const scoreOpts = { lineSlack: peerLineSlack, scope: (lang: string) => scope.get(lang) ?? new Set<number>() };

  const dev: PeerDevSource[] = [];
  const devOutcomes: LabelOutcome[] = [];
  for (const source of DEV_SOURCES) {
    const scan = scans.get(source);
    if (!scan) continue;
    const outcomes = scorePeerLabels(bySource.get(source) ?? [], scan.counted, scoreOpts);
    devOutcomes.push(...outcomes);
    const unrefuted = scorePeerLabels(bySource.get(source) ?? [], [...scan.counted, ...scan.refuted], scoreOpts);
    dev.push(devSource(source, outcomes, scan.info, unrefuted));
    const t = dev[dev.length - 1]?.total;
    if (t) opts.log(`peer ${source}: found ${t.found}/${t.vulnerable}, false alarms ${t.falseAlarms}/${t.safe}`);
  }
  const held = scans.get(HELD_OUT_SOURCE);
  // Held-out files that nearly copy a development file are left out of its score (peer-dedup.ts).
  const heldLabels = bySource.get(HELD_OUT_SOURCE) ?? [];
  const devFiles = [...new Set(DEV_SOURCES.flatMap((s) => (bySource.get(s) ?? []).map((l) => l.file)))];
  const duplicates = held ? await nearDuplicates(root, [...new Set(heldLabels.map((l) => l.file))], devFiles) : new Set<string>();
  const heldOut = held
    ? {
        ...heldOutAggregate(
          scorePeerLabels(
            heldLabels.filter((l) => !duplicates.has(l.file)),
            held.counted.filter((f) => !duplicates.has(f.file)),
            scoreOpts,
          ),
          held.counted.filter((f) => !duplicates.has(f.file)),
          held.info,
          held.refutedByLanguage,
        ),
        nearDuplicateFiles: duplicates.size,
      }
    : null;
  if (opts.missesOut)
    await writePeerMisses(
      opts.missesOut,
      devOutcomes,
      [...scans].flatMap(([s, x]) => (s === HELD_OUT_SOURCE ? [] : x.counted)),
    );

  return {
    dataset: {
      file: basename(archive),
      sha256: await sha256File(archive),
      version: "peer-labelled (find-sec-bugs, sonar-java, sonar-python, SonarJS, bandit test samples)",
    },
    lineSlack: { [HELD_OUT_SOURCE]: HELD_OUT_LINE_SLACK },
    scope: Object.fromEntries([...scope].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort((a, b) => a - b)])),
    development: {
      sources: dev,
      byLanguage: countBy(devOutcomes, (o) => o.label.language),
      byKind: countBy(devOutcomes, (o) => kindGroup(o.label)),
      pooled: addCounts(dev.map((d) => d.total)),
    },
    heldOut,
    totalMs: Math.round(performance.now() - started),
  };
}

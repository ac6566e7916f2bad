/**
 * Examples from the peer-labelled dataset (../shared/datasets/peer-labelled.tar.gz): each source
 * scanned as the detection benchmark scans it (bench/detection/peer-suite.ts scanSource: refuted
 * findings are not reported, so not examples), each reported finding labelled by the peer's
 * labels it matches (peer.ts matchesLabel: same file, a CWE accepted for the label's rule, a
 * place that fits the label's kind, find-sec-bugs with its line slack):
 *
 * - the most specific labels it matches decide (a line before a method or class, those before
 *   a whole file): all `vulnerable` → 1, all `safe` → 0 (a safe file record covers the file),
 *   both → left out (conflict); no label → left out (unknown: an unmarked line is not safe).
 * - A vulnerable file record whose places are known (line labels of the same rule in the file,
 *   or bandit's `lines`) only counts them: bandit's lines become line labels, and a sonar
 *   fixture's record of N issues adds nothing to its N marked lines.
 *
 * find-sec-bugs is held out: its examples are derived for ai:eval's test side, and only
 * aggregate counts of it ever leave this file (no file, line, rule or code is logged).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { RelatedIndex, fsSourceReader } from "@ax/ai/review";
import { PEER_ARCHIVE, unpack } from "../../bench/detection/datasets";
import { isScored, matchesLabel, parsePeerLabel, type PeerKind, type PeerLabel } from "../../bench/detection/peer";
import { nearDuplicates } from "../../bench/detection/peer-dedup";
import { DEV_SOURCES, HELD_OUT_SOURCE, peerLineSlack, scanSource } from "../../bench/detection/peer-suite";
import { exampleOf } from "./example-of";
import type { ExampleSource, LabeledExample } from "./examples";
import { maskPath } from "./strip";

export type PeerVerdict = 0 | 1 | "unknown" | "conflict";

const RANK: Readonly<Record<PeerKind, number>> = { line: 0, method: 1, class: 2, file: 3 };

/** The label of one reported finding from the labels of its source (see the file comment). */
export function peerVerdict(labels: readonly PeerLabel[], f: NormalizedFinding, lineSlack = 0): PeerVerdict {
  const matched = labels.filter((l) => l.file === f.file && isScored(l) && matchesLabel(l, f, lineSlack));
  if (matched.length === 0) return "unknown";
  const best = Math.min(...matched.map((l) => RANK[l.kind]));
  const top = matched.filter((l) => RANK[l.kind] === best);
  const vulnerable = top.some((l) => l.vulnerable);
  const safe = top.some((l) => !l.vulnerable);
  return vulnerable && safe ? "conflict" : vulnerable ? 1 : 0;
}

/**
 * labels.jsonl text → the labels the verdicts use: bandit's `lines` of a vulnerable file record
 * as line labels, and vulnerable file records whose rule has line labels in the file dropped.
 */
export function preciseLabels(text: string): PeerLabel[] {
  const out: PeerLabel[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const record = JSON.parse(line) as { lines?: unknown };
    const label = parsePeerLabel(record, `labels.jsonl:${i + 1}`);
    const lines = Array.isArray(record.lines) ? record.lines.filter((n): n is number => Number.isInteger(n) && n > 0) : [];
    if (label.kind === "file" && label.vulnerable && lines.length > 0)
      out.push(...lines.map((n) => ({ ...label, kind: "line" as const, line: n, endLine: null })));
    else out.push(label);
  });
  const located = new Set(out.filter((l) => l.kind !== "file").map((l) => `${l.file}\n${l.rule}`));
  return out.filter((l) => !(l.kind === "file" && l.vulnerable && located.has(`${l.file}\n${l.rule}`)));
}

export interface VerdictCounts {
  truePositives: number;
  falsePositives: number;
  unknown: number;
  conflict: number;
}

export function emptyVerdicts(): VerdictCounts {
  return { truePositives: 0, falsePositives: 0, unknown: 0, conflict: 0 };
}

/** Labels the findings, counting every verdict; `group` names a finding's split unit. */
export async function labelledExamples(
  findings: readonly NormalizedFinding[],
  verdict: (f: NormalizedFinding) => PeerVerdict,
  opts: { source: ExampleSource; related: RelatedIndex; group: (f: NormalizedFinding) => string; refuted?: boolean },
): Promise<{ examples: LabeledExample[]; counts: VerdictCounts }> {
  const counts = emptyVerdicts();
  const examples: LabeledExample[] = [];
  for (const f of findings) {
    const v = verdict(f);
    if (v === "unknown" || v === "conflict" || !f.cwe_id) {
      counts[v === "conflict" ? "conflict" : "unknown"]++;
      continue;
    }
    counts[v === 1 ? "truePositives" : "falsePositives"]++;
    const e = await exampleOf(f, { source: opts.source, group: opts.group(f), label: v, related: opts.related });
    examples.push(opts.refuted ? { ...e, refuted: true } : e);
  }
  return { examples, counts };
}

export interface PeerDerived {
  examples: LabeledExample[];
  counts: Record<string, VerdictCounts>;
  /** Held-out files left out as near-duplicates of development files (as the benchmark does). */
  heldOutNearDuplicates: number;
}

/** Unpacks the archive under `scratch`, scans each source and labels its findings. */
export async function derivePeer(opts: { datasets: string; scratch: string; log: (m: string) => void }): Promise<PeerDerived> {
  const root = join(opts.scratch, "peer");
  opts.log(`peer: unpacking ${PEER_ARCHIVE}`);
  await unpack(join(opts.datasets, PEER_ARCHIVE), root);
  const labels = preciseLabels(await readFile(join(root, "labels.jsonl"), "utf8"));
  const related = new RelatedIndex(fsSourceReader(root));
  const out: PeerDerived = { examples: [], counts: {}, heldOutNearDuplicates: 0 };
  for (const source of [...DEV_SOURCES, HELD_OUT_SOURCE]) {
    const own = labels.filter((l) => l.source === source);
    if (own.length === 0 || !existsSync(join(root, source))) continue;
    opts.log(`peer: scanning ${source === HELD_OUT_SOURCE ? "the held-out source" : source}`);
    const scanned = await scanSource(root, source, new Set(own.map((l) => l.file)));
    const refuted = scanned.refuted;
    let counted = scanned.counted;
    if (source === HELD_OUT_SOURCE) {
      const devFiles = [...new Set(labels.filter((l) => l.source !== HELD_OUT_SOURCE).map((l) => l.file))];
      const dup = await nearDuplicates(root, [...new Set(own.map((l) => l.file))], devFiles);
      out.heldOutNearDuplicates = dup.size;
      counted = counted.filter((f) => !dup.has(f.file));
    }
    const slack = peerLineSlack(source);
    const { examples, counts } = await labelledExamples(counted, (f) => peerVerdict(own, f, slack), {
      source: source as ExampleSource,
      related,
      group: (f) => maskPath(f.file),
    });
    out.examples.push(...examples);
    out.counts[source] = counts;
    if (source === HELD_OUT_SOURCE) continue;
    // Refuted matches of development sources: training examples only (never tested on).
    const refutedExamples = await labelledExamples(refuted, (f) => peerVerdict(own, f, slack), {
      source: source as ExampleSource,
      related,
      group: (f) => maskPath(f.file),
      refuted: true,
    });
    out.examples.push(...refutedExamples.examples);
    opts.log(`${source}: ${refutedExamples.examples.length} refuted matches labelled (training only)`);
  }
  return out;
}

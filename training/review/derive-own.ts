/**
 * Examples from our own labelled code, scanned as the detection benchmark scans it:
 *
 * - `own-apps`: the applications of bench/detection/apps/ (never apps-held/), labelled by
 *   their labels.json through the peer matching (derive-peer.ts peerVerdict): a finding on a
 *   vulnerable line is 1, on a safe line 0, elsewhere left out.
 * - `own-twins`: the vulnerable / safe handler twins of bench/detection/taint-cases/, labelled
 *   by their header as the benchmark scores them (labeled.ts): a finding in a case's file with
 *   a CWE accepted for the case's CWE is 1 in a vulnerable case, 0 in a safe one. A pair of
 *   twins is one group (they share their code; they never land on two sides of the split).
 */
import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { NormalizedFinding } from "@ax/contracts";
import { RelatedIndex, fsSourceReader } from "@ax/ai/review";
import { APPS_DIR, scanApp } from "../../bench/detection/apps-suite";
import { acceptedCwes, cweNumber } from "../../bench/detection/cwe";
import { loadLabeledCases, type LabeledCase } from "../../bench/detection/labeled";
import { CASES_DIR, LABELED_LANGUAGES } from "../../bench/detection/labeled-suite";
import { scanTree } from "../../bench/detection/scan";
import { labelledExamples, peerVerdict, type PeerVerdict, type VerdictCounts } from "./derive-peer";
import type { LabeledExample } from "./examples";
import { maskPath } from "./strip";

export interface OwnDerived {
  examples: LabeledExample[];
  counts: Record<string, VerdictCounts>;
}

function addInto(into: Record<string, VerdictCounts>, key: string, c: VerdictCounts): void {
  const t = (into[key] ??= { truePositives: 0, falsePositives: 0, unknown: 0, conflict: 0 });
  t.truePositives += c.truePositives;
  t.falsePositives += c.falsePositives;
  t.unknown += c.unknown;
  t.conflict += c.conflict;
}

/** A twin case's verdict on a finding: the case's label when the finding is in its file with an accepted CWE. */
export function twinVerdict(cases: readonly LabeledCase[], f: NormalizedFinding): PeerVerdict {
  const c = cases.find((x) => x.file === f.file);
  const cwe = cweNumber(f.cwe_id);
  if (!c || cwe === null || !acceptedCwes(c.cwe).includes(cwe)) return "unknown";
  return c.vulnerable ? 1 : 0;
}

/** `sql_flask_search_vuln.py` and `sql_flask_search_safe.py` → one group. */
export function twinGroup(language: string, file: string): string {
  return `own-twins/${language}/${file.replace(/_(vuln|safe)(\.\w+)$/, "$2")}`;
}

/** The scan's reported findings, labelled, and its refuted matches as training-only examples (their counts are not logged). */
async function reportedAndRefuted(
  scan: { findings: readonly NormalizedFinding[]; refuted: readonly NormalizedFinding[] },
  verdict: (f: NormalizedFinding) => PeerVerdict,
  opts: { source: "own-apps" | "own-twins"; related: RelatedIndex; group: (f: NormalizedFinding) => string },
): Promise<{ examples: LabeledExample[]; counts: VerdictCounts }> {
  const reported = await labelledExamples(scan.findings, verdict, opts);
  const refuted = await labelledExamples(scan.refuted, verdict, { ...opts, refuted: true });
  return { examples: [...reported.examples, ...refuted.examples], counts: reported.counts };
}

export async function deriveOwn(opts: { scratch: string; log: (m: string) => void }): Promise<OwnDerived> {
  const out: OwnDerived = { examples: [], counts: {} };
  const apps = (await readdir(APPS_DIR, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  for (const app of apps.sort()) {
    opts.log(`own-apps: scanning ${app}`);
    const { root, labels, scan } = await scanApp(app, APPS_DIR, opts.scratch);
    const related = new RelatedIndex(fsSourceReader(root));
    const group = (f: NormalizedFinding) => `own-apps/${app}/${maskPath(f.file)}`;
    const { examples, counts } = await reportedAndRefuted(scan, (f) => peerVerdict(labels, f), { source: "own-apps", related, group });
    out.examples.push(...examples);
    addInto(out.counts, "own-apps", counts);
  }
  for (const language of LABELED_LANGUAGES) {
    const root = join(opts.scratch, "own-twins", language);
    await mkdir(root, { recursive: true });
    await cp(join(CASES_DIR, language), root, { recursive: true });
    const cases = await loadLabeledCases(root);
    opts.log(`own-twins: scanning ${cases.length} ${language} cases`);
    const scan = await scanTree(root);
    const related = new RelatedIndex(fsSourceReader(root));
    const group = (f: NormalizedFinding) => maskPath(twinGroup(language, f.file));
    const { examples, counts } = await reportedAndRefuted(scan, (f) => twinVerdict(cases, f), { source: "own-twins", related, group });
    out.examples.push(...examples);
    addInto(out.counts, "own-twins", counts);
  }
  return out;
}

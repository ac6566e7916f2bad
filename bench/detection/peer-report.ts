/** The peer-labelled sections of docs/detection.md (report.ts calls these). */
import { NEAR_DUPLICATE_JACCARD } from "./peer-dedup";
import type { PeerCounts } from "./peer";
import { DEV_SOURCES, HELD_OUT_SOURCE, type PeerSuiteResult } from "./peer-suite";
import { pct, runsLine, secs } from "./report-format";

const HEAD =
  "| Vulnerable labels | Found | Recall | In-scope labels | In-scope recall | Safe labels | False alarms | False-alarm rate | No CWE (not scored) |";
const RULE = "|--:|--:|--:|--:|--:|--:|--:|--:|--:|";

function cells(c: PeerCounts): string {
  return (
    `${c.vulnerable} | ${c.found} | ${pct(c.recall)} | ${c.inScopeVulnerable} | ${pct(c.inScopeRecall)} | ` +
    `${c.safe} | ${c.falseAlarms} | ${c.safe > 0 ? pct(c.falseAlarmRate) : "–"} | ${c.unscored} |`
  );
}

/** "recall X% (f/v), in scope Y%, false alarms Z% (a/s)". */
export function peerHeadline(c: PeerCounts, bold = true): string {
  const b = bold ? "**" : "";
  return (
    `recall ${b}${pct(c.recall)}${b} (${c.found}/${c.vulnerable} vulnerable labels), in scope ${pct(c.inScopeRecall)} ` +
    `(${c.inScopeFound}/${c.inScopeVulnerable}); false alarms ${b}${pct(c.falseAlarmRate)}${b} (${c.falseAlarms}/${c.safe} safe labels)`
  );
}

export function peerSummaryLines(p: PeerSuiteResult): string[] {
  const lines = [
    `| Peer-labelled samples, development set (${DEV_SOURCES.join(", ")}: the peers' own test expectations) | ` +
      `${peerHeadline(p.development.pooled)} |`,
  ];
  if (p.heldOut)
    lines.push(
      `| Peer-labelled samples, held out (${HELD_OUT_SOURCE}: Java, Kotlin, JSP; aggregate only) | ${peerHeadline(p.heldOut.total)} |`,
    );
  return lines;
}

function scoringText(p: PeerSuiteResult): string[] {
  const slack = p.lineSlack[HELD_OUT_SOURCE] ?? 0;
  return [
    "Each source's folder is scanned as one repository through `runAnalyzers`, so a finding's path is its " +
      "label's path. Every finding the scan reports counts: the scanner's output after deduplication and the " +
      "taint analysis's verdicts (unconfirmed pattern findings are reported, so they count); findings the " +
      "taint analysis refuted are not reported and are counted apart.",
    "",
    "- A finding **matches** a label when it is in the label's file and its CWE is accepted for one of the " +
      "label's CWEs (itself, a direct parent or child, as for Juliet). Line labels: the finding's line range " +
      `includes the line (for ${HELD_OUT_SOURCE}, whose lines come from bytecode, a finding starting up to ` +
      `${slack} lines before also counts: a multi-line statement). Method/class labels: the finding starts ` +
      "within the method or class (anywhere in the file when the label has no line). File labels: anywhere in the file. A safe file record with rule `*` (bandit: " +
      "an asserted total of 0) matches any finding in the file.",
    "- A vulnerable label is **found** when a finding matches it; a safe label is a **false alarm** when one " +
      "does. Recall = found / vulnerable labels; false-alarm rate = false alarms / safe labels. Labels without a " +
      "CWE are counted apart and not scored. Line, method/class and file labels all count (a sonar fixture has " +
      "its line labels and one file record per rule); the table by kind separates them.",
    "- **In scope**: some analyzer of ours can report an accepted CWE in the label's language (the rule pack, " +
      "the taint analysis's sinks, bandit's checks, the secrets detector, or a CWE the scan reported in that " +
      "language). Many peer rules are audit checks outside our scope (hotspots, configuration, regex " +
      "complexity), so both figures are given.",
    "- A `safe` label asserts only that the peer's rule stays silent there; lines without a label are not " +
      "scored. These are development figures: the fixtures may be looked at while tuning rules.",
    "",
  ];
}

function devTables(p: PeerSuiteResult): string[] {
  const d = p.development;
  const lines = ["| Source | Language | " + HEAD.slice(2), "|---|---|" + RULE.slice(1)];
  for (const s of d.sources) {
    const langs = Object.entries(s.byLanguage);
    for (const [lang, c] of langs) lines.push(`| ${s.source} | ${lang} | ${cells(c)}`);
    if (langs.length > 1) lines.push(`| ${s.source} | all | ${cells(s.total)}`);
  }
  lines.push(`| **Development set** | **all** | ${cells(d.pooled)}`, "");
  lines.push("By language (development sources pooled):", "", "| Language | " + HEAD.slice(2), "|---|" + RULE.slice(1));
  for (const [lang, c] of Object.entries(d.byLanguage)) lines.push(`| ${lang} | ${cells(c)}`);
  lines.push("", "By label kind (development sources pooled):", "", "| Kind | " + HEAD.slice(2), "|---|" + RULE.slice(1));
  for (const [kind, c] of Object.entries(d.byKind)) lines.push(`| ${kind} | ${cells(c)}`);
  lines.push(
    "",
    "| Source | Findings counted | Refuted (not reported) | False alarms the refutation removed | Vulnerable labels it lost | Unconfirmed (counted) | Outside labelled files | Scan |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
    ...d.sources.map(
      (s) =>
        `| ${s.source} | ${s.findings} | ${s.refuted} | ${s.refutation.falseAlarmsRemoved} | ${s.refutation.labelsLost} | ` +
        `${s.unconfirmed} | ${s.outsideLabelledFiles} | ${secs(s.scanMs)} |`,
    ),
    "",
    "The refutation columns score the same scan once more with the refuted matches counted as findings: the safe labels that",
    "would have been false alarms, and the vulnerable labels that would have been found.",
    "",
  );
  const first = d.sources[0];
  if (first) lines.push(`Analyzers (${first.source} scan): ${runsLine(first.analyzers)}.`, "");
  return lines;
}

function heldOutTable(p: PeerSuiteResult): string[] {
  const h = p.heldOut;
  if (!h) return [];
  return [
    `## Peer-labelled held-out set (${HELD_OUT_SOURCE})`,
    "",
    `Held out: ${HELD_OUT_SOURCE}'s files and labels are not looked at while developing, and only these ` +
      "aggregates are reported (no file, line or rule; `--peer-misses` refuses the source). Scored as above. " +
      `Files that nearly copy a development file (5-token shingles of the code without comments or string contents, Jaccard ≥ ${NEAR_DUPLICATE_JACCARD}) ` +
      `are left out: ${h.nearDuplicateFiles ?? 0}.`,
    "",
    "| Language | " + HEAD.slice(2) + " Findings counted | Refuted |",
    "|---|" + RULE.slice(1) + "--:|--:|",
    ...Object.entries(h.byLanguage).map(([lang, c]) => `| ${lang} | ${cells(c)} ${c.findings} | ${c.refuted} |`),
    `| **all** | ${cells(h.total)} ${h.findings} | ${h.refuted} |`,
    "",
  ];
}

export function peerSection(p: PeerSuiteResult): string[] {
  return [
    "## Peer-labelled test samples (development set)",
    "",
    `Dataset: \`${p.dataset.file}\`, sha256 \`${p.dataset.sha256.slice(0, 16)}…\`: the sample and fixture files ` +
      "of other analyzers' test suites, labelled by what those tests expect (see the datasets README). " +
      `Development sources: ${DEV_SOURCES.join(", ")}; ${HELD_OUT_SOURCE} is held out (next section). Suite time ${secs(p.totalMs)}.`,
    "",
    ...scoringText(p),
    ...devTables(p),
    ...heldOutTable(p),
  ];
}

/** Console lines for the bench's stdout summary: the development sources (the held-out total is in the summary rows). */
export function peerConsoleLines(p: PeerSuiteResult): string[] {
  return p.development.sources.map((s) => `  peer ${s.source}: ${peerHeadline(s.total, false)}`);
}

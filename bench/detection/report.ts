/**
 * docs/detection.md and docs/detection.json from one benchmark run. Everything in the
 * markdown comes from the run (figures, versions, timings) or from the scoring code's fixed
 * definitions, so re-running the command reproduces it (up to the date and timings).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnalyzerRun } from "@ax/contracts";
import type { CastleCounts, CastleResult } from "./castle";
import { CHILD_OF, cweName } from "./cwe";
import type { Averages, CweResult } from "./juliet";
import type { BenchReport, JulietSuiteResult } from "./suites";
import type { LabeledSuiteResult } from "./labeled-suite";

/** Issue 3's floors. */
export const TARGETS = {
  julietJava: { minScore: 0.5, maxFpr: 0.2 },
  castle: { cppcheckPublished: { tp: 18, fp: 5, version: "2.13" } },
};

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const secs = (ms: number): string => (ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);

function runsLine(runs: AnalyzerRun[]): string {
  return runs
    .map(
      (r) =>
        `${r.name} ${r.version ?? "(no version)"} — ${r.status}${r.notice ? ` (${r.notice})` : ""}, ${r.findings} findings, ${secs(r.duration_ms)}`,
    )
    .join("; ");
}

function versionsTable(report: BenchReport): string[] {
  const seen = new Map<string, string>();
  for (const runs of [report.java?.analyzers, report.castle?.full.analyzers, report.julietC?.analyzers]) {
    for (const r of runs ?? []) if (r.version && !seen.has(r.name)) seen.set(r.name, r.version);
  }
  const lines = ["| Analyzer | Version (from the AnalyzerRun records) |", "|---|---|"];
  for (const [name, version] of seen) lines.push(`| ${name} | ${version} |`);
  return lines;
}

function julietRow(r: CweResult): string {
  return `| CWE-${r.cwe} | ${cweName(r.cwe, r.label)} | ${r.bad} | ${r.good} | ${r.tp} | ${r.fp} | ${pct(r.tpr)} | ${pct(r.fpr)} | ${pct(r.score)} |`;
}

function averageRows(label: string, a: Averages): string[] {
  return [
    `| **${label}: mean of ${a.cwes} CWEs** | | ${a.pooled.bad} | ${a.pooled.good} | ${a.pooled.tp} | ${a.pooled.fp} | **${pct(a.tpr)}** | **${pct(a.fpr)}** | **${pct(a.score)}** |`,
    `| ${label}: pooled over all functions | | ${a.pooled.bad} | ${a.pooled.good} | ${a.pooled.tp} | ${a.pooled.fp} | ${pct(a.pooled.tpr)} | ${pct(a.pooled.fpr)} | ${pct(a.pooled.score)} |`,
  ];
}

const JULIET_HEADER = [
  "| CWE | Name | Bad functions | Good functions | TP | FP | TPR | FPR | Score |",
  "|---|---|--:|--:|--:|--:|--:|--:|--:|",
];

function acceptedNote(rows: CweResult[]): string[] {
  const lines = ["| Labeled CWE | Findings that count (own, direct parents, direct children) |", "|---|---|"];
  for (const r of rows) lines.push(`| CWE-${r.cwe} | ${r.accepted.map((c) => `CWE-${c}`).join(", ")} |`);
  return lines;
}

/**
 * The part of a Juliet section after the main table, shared by Java and C/C++: which rules
 * flagged what, findings of other CWEs, the CWE relations used, and the uncovered folders.
 */
function julietDetails(inScope: CweResult[], out: CweResult[], breakdownQualifier: string, notCoveredIntro: string | null): string[] {
  return [
    `Which analyzer rules flagged which functions${breakdownQualifier}:`,
    "",
    ...ruleBreakdown(inScope),
    "",
    ...otherCwesTable(inScope),
    "CWE relations used for the in-scope rows:",
    "",
    ...acceptedNote(inScope),
    "",
    `### Not covered (${out.length} CWE folders)`,
    "",
    ...(notCoveredIntro ? [notCoveredIntro, ""] : []),
    ...JULIET_HEADER,
    ...out.map(julietRow),
  ];
}

/** "CWE-120 (40 bad / 35 good)" for the most frequent other CWEs of a row. */
function otherCwesCell(r: CweResult, top = 3): string {
  const list = Object.entries(r.otherCwes).sort((a, b) => b[1].bad + b[1].good - (a[1].bad + a[1].good) || a[0].localeCompare(b[0]));
  const shown = list.slice(0, top).map(([cwe, k]) => `${cwe} (${k.bad} bad / ${k.good} good)`);
  return [...shown, ...(list.length > top ? [`+${list.length - top} more`] : [])].join(", ");
}

function otherCwesTable(rows: CweResult[]): string[] {
  const withOther = rows.filter((r) => Object.keys(r.otherCwes).length > 0);
  if (withOther.length === 0) return [];
  return [
    "Findings with a CWE that does not count for the folder, by the functions they fall in (shown for transparency, not scored):",
    "",
    "| CWE folder | Other CWEs reported (functions flagged) |",
    "|---|---|",
    ...withOther.map((r) => `| CWE-${r.cwe} | ${otherCwesCell(r)} |`),
    "",
  ];
}

function ruleBreakdown(rows: CweResult[]): string[] {
  const lines = ["| CWE | Rule (analyzer:rule) | Bad functions flagged | Good functions flagged |", "|---|---|--:|--:|"];
  for (const r of rows) {
    for (const [rule, s] of Object.entries(r.rules).sort((a, b) => b[1].tp - a[1].tp || a[0].localeCompare(b[0]))) {
      lines.push(`| CWE-${r.cwe} | ${rule} | ${s.tp} | ${s.fp} |`);
    }
  }
  return lines;
}

function javaSection(j: JulietSuiteResult): string[] {
  const inScope = j.rows.filter((r) => r.inScope);
  const out = j.rows.filter((r) => !r.inScope);
  const target = TARGETS.julietJava;
  const met = j.inScope.score >= target.minScore && j.inScope.fpr <= target.maxFpr;
  const lines: string[] = [
    "## Juliet Java 1.2",
    "",
    `Dataset: \`${j.dataset.file}\` (${j.dataset.version}), sha256 \`${j.dataset.sha256.slice(0, 16)}…\`; ${j.selection}; ${j.files} \`.java\` files; ${j.findings} findings after the scanner's deduplication.`,
    "",
    `Analyzers (AnalyzerRun records): ${runsLine(j.analyzers)}.`,
    "",
    `**In scope** — a CWE folder is in scope when the rule pack has at least one Java rule for its CWE or a direct parent of it (a CWE-22 rule covers CWE-23 and CWE-36; a rule for a child CWE only covers part of a parent and does not make it a target): ${inScope.map((r) => `CWE-${r.cwe}`).join(", ") || "none"}.`,
    "",
    `**Target** (issue 3): mean score ≥ ${pct(target.minScore)} with mean FPR ≤ ${pct(target.maxFpr)} over the in-scope CWEs — **${met ? "met" : "not met"}**: score ${pct(j.inScope.score)}, TPR ${pct(j.inScope.tpr)}, FPR ${pct(j.inScope.fpr)}.`,
    "",
    "> These are **training-set figures**: the Java rules were tuned, and the taint analysis was developed, while looking at Juliet (its sources, sinks, flow variants and safe variants). They show what the rules do on Juliet-shaped code, not an independent estimate; the OWASP Benchmark and Juice Shop are kept out of all tuning for that purpose.",
    "",
    ...JULIET_HEADER,
    ...inScope.map(julietRow),
    ...averageRows("In scope", j.inScope),
    "",
    ...dataflowSection(j),
    "What limits the pattern rules alone (the figures of the main table are with dataflow; these notes explain the pattern-only column):",
    "",
    ...javaNotes(j),
    "",
    "Rules per in-scope CWE (Java rules whose CWE counts for the folder):",
    "",
    "| CWE | Rules |",
    "|---|---|",
    ...inScope.map((r) => `| CWE-${r.cwe} | ${(j.rulesFor?.[`CWE-${r.cwe}`] ?? []).join(", ")} |`),
    "",
    ...julietDetails(
      inScope,
      out,
      " (a function flagged by two rules counts once in the table above)",
      "No Java rule reports these CWEs or a direct parent of them, so they are not detection targets and stay out of the averages; their functions are listed so the gap is visible. TP/FP here come only from findings whose CWE counts for the folder (e.g. a rule for a child CWE).",
    ),
    "",
  ];
  const offTarget = j.rows.reduce((s, r) => s + r.otherCweFindings, 0);
  lines.push(
    `Findings inside bad/good functions whose CWE does not count for the folder (e.g. an SQL-injection finding on the database source of a command-injection test case): ${offTarget}. They are not scored.`,
    "",
  );
  return lines;
}

function labeledSection(results: readonly LabeledSuiteResult[]): string[] {
  const lines = [
    "## Our labeled Python and JavaScript handlers",
    "",
    "Realistic request handlers written for this project (`bench/detection/taint-cases/`: Flask, Django and FastAPI; Express, Koa, Next.js and DOM code, some TypeScript), each a vulnerable file and its safe twin: the safe twin reads a constant key, overwrites the value, takes a dead branch, sanitizes, or passes a constant to the same call. A vulnerable file counts as detected when a finding of its CWE (or a direct parent or child) is in the file; a safe file with such a finding is a false positive. Scored twice from one scan, as the Juliet Java table above: pattern only, and with dataflow (unconfirmed pattern findings not counted). The cases were written before the engine ran on them and were not changed to fit it. The JavaScript table was written without running on them; while writing the Python table its author ran the engine over the Python cases and fixed two general bugs they showed (list comprehensions, HTTP client objects), so the Python figures are not blind.",
    "",
  ];
  for (const r of results) {
    const before = new Map(r.patternOnly.rows.map((x) => [x.cwe, x]));
    lines.push(
      `### ${r.language === "python" ? "Python" : "JavaScript/TypeScript"} (${r.cases} files; dataflow ${secs(r.dataflowMs)} of a ${secs(r.scanMs)} scan)`,
      "",
      "| CWE | Vulnerable | Safe | Pattern only TP / FP | Score | With dataflow TP / FP | Score |",
      "|---|--:|--:|--:|--:|--:|--:|",
      ...r.withDataflow.rows.map((a) => {
        const b = before.get(a.cwe);
        return `| CWE-${a.cwe} | ${a.vulnerable} | ${a.safe} | ${b?.tp ?? 0} / ${b?.fp ?? 0} | ${pct(b?.score ?? 0)} | ${a.tp} / ${a.fp} | ${pct(a.score)} |`;
      }),
      `| **Mean** | | | TPR ${pct(r.patternOnly.mean.tpr)}, FPR ${pct(r.patternOnly.mean.fpr)} | **${pct(r.patternOnly.mean.score)}** | TPR ${pct(r.withDataflow.mean.tpr)}, FPR ${pct(r.withDataflow.mean.fpr)} | **${pct(r.withDataflow.mean.score)}** |`,
      "",
    );
    const missed = r.withDataflow.rows.flatMap((x) => x.missed);
    const flagged = r.withDataflow.rows.flatMap((x) => x.flaggedSafe);
    if (missed.length || flagged.length)
      lines.push(
        `With dataflow, missed: ${missed.map((m) => `\`${m.split("/").pop()}\``).join(", ") || "none"}; safe files flagged: ${flagged.map((m) => `\`${m.split("/").pop()}\``).join(", ") || "none"}.`,
        "",
      );
  }
  return lines;
}

/** The CWE folders issue 6 names: injection, path traversal, XSS, LDAP, XPath, trust boundary, weak randomness. */
const DATAFLOW_TARGET_CWES = [15, 23, 36, 78, 80, 81, 83, 89, 90, 113, 134, 338, 470, 501, 601, 643];

function dataflowSection(j: JulietSuiteResult): string[] {
  if (!j.patternOnly) return [];
  const before = new Map(j.patternOnly.rows.map((r) => [r.folder, r]));
  const rows = j.rows.filter((r) => DATAFLOW_TARGET_CWES.includes(r.cwe));
  const pairs = rows.map((r) => ({ after: r, before: before.get(r.folder) }));
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const a = { tpr: avg(rows.map((r) => r.tpr)), fpr: avg(rows.map((r) => r.fpr)), score: avg(rows.map((r) => r.score)) };
  const bRows = pairs.map((p) => p.before).filter((r): r is CweResult => r !== undefined);
  const b = { tpr: avg(bRows.map((r) => r.tpr)), fpr: avg(bRows.map((r) => r.fpr)), score: avg(bRows.map((r) => r.score)) };
  const met = a.score >= 0.75 && a.fpr <= b.fpr / 2;
  return [
    "### Before and after dataflow (issue 6)",
    "",
    "Same scan, scored twice: **pattern only** counts every finding of the pattern rules, as they reported it; **with dataflow** is what a scan reports — the taint analysis's own findings, plus the pattern findings it confirmed or does not cover; a pattern finding of a kind it covers with no tainted path stays in the results at LOW confidence, marked `unconfirmed`, and is not counted here.",
    "",
    `**Target** (issue 6): mean score ≥ 75.0% over these CWEs with FPR at most half the pattern-only FPR — **${met ? "met" : "not met"}**: ${pct(a.score)} (TPR ${pct(a.tpr)}, FPR ${pct(a.fpr)}) against pattern-only ${pct(b.score)} (TPR ${pct(b.tpr)}, FPR ${pct(b.fpr)}).`,
    "",
    "| CWE | Bad | Good | Pattern only TP / FP | Score | With dataflow TP / FP | Score |",
    "|---|--:|--:|--:|--:|--:|--:|",
    ...pairs.map(
      (p) =>
        `| CWE-${p.after.cwe} | ${p.after.bad} | ${p.after.good} | ${p.before?.tp ?? 0} / ${p.before?.fp ?? 0} | ${pct(p.before?.score ?? 0)} | ${p.after.tp} / ${p.after.fp} | ${pct(p.after.score)} |`,
    ),
    `| **Mean of ${rows.length} CWEs** | | | | **${pct(b.score)}** | | **${pct(a.score)}** |`,
    "",
  ];
}

/** Why some in-scope rows look the way they do; each note is printed only while its symptom shows. */
function javaNotes(j: JulietSuiteResult): string[] {
  const row = (cwe: number): CweResult | undefined => j.rows.find((r) => r.cwe === cwe && r.inScope);
  const notes: string[] = [
    "- **Cross-file flows are out of reach.** ast-grep rules see one file at a time, so Juliet's flow variants that carry the data through another class (`_22a/b`, `_51`–`_54`, `_61`, `_66`–`_68`, `_71`–`_75`, `_81`; 15 of the 37 test cases per source) are only found where the sink concatenates a parameter of a non-private method (command, SQL, LDAP, XPath rules: a caller's text built into a command or query). Within one file the rules follow data through up to four local copies, through fields set by another method of the class, through private methods called with tainted arguments and through methods of the class that return input (`_01`–`_17`, `_21`, `_31`, `_41`, `_42`, `_45`): 22 of 37 test cases, 59.5% TPR, is the ceiling for rules without the parameter policy.",
    "- **The same policy costs false positives** where Juliet's safe variant receives a constant through the same public method (`goodG2BSink(String data)` in `_51`–`_54`, `_81`): those good functions are flagged exactly like their bad twins.",
  ];
  const configFree = [15, 23, 36, 113, 470, 601].map(row).filter((r): r is CweResult => r !== undefined);
  if (configFree.length > 0) {
    notes.push(
      `- **Environment and configuration are not sources for ${configFree.map((r) => `CWE-${r.cwe}`).join(", ")}**: the path-traversal, unsafe-reflection, configuration-setting, redirect and header rules ignore \`System.getenv\`, \`System.getProperty\` and \`Properties.getProperty\`, because real code legitimately builds paths from \`user.home\`, loads JDBC driver classes from configuration and so on. Juliet's Environment, Property and PropertiesFile variants of those CWEs are therefore missed on purpose.`,
    );
  }
  const c327 = row(327);
  if (c327 && c327.fpr >= 0.5) {
    notes.push(
      `- **CWE-327** (FPR ${pct(c327.fpr)}): Juliet's safe variants call \`Cipher.getInstance("AES")\`, which the JCA resolves to AES/ECB/PKCS5Padding. \`java-weak-cipher\` reports ECB (explicit or by default) as a risky mode, as current guidance does, so it flags the safe twins too. Kept on purpose.`,
    );
  }
  const c338 = row(338);
  if (c338 && c338.tpr === 0) {
    notes.push(
      "- **CWE-338** (TPR 0%): `java-insecure-random` reports `java.util.Random`/`Math.random()` only where the value becomes a token, password, salt, session id or similar (by name); Juliet prints random numbers without such a context. Flagging every non-cryptographic PRNG would be noise in real code.",
    );
  }
  return notes;
}

function cSection(j: JulietSuiteResult): string[] {
  const inScope = j.rows.filter((r) => r.inScope);
  const out = j.rows.filter((r) => !r.inScope);
  return [
    "## Juliet C/C++ 1.3",
    "",
    `Dataset: \`${j.dataset.file}\` (${j.dataset.version}), sha256 \`${j.dataset.sha256.slice(0, 16)}…\`. Selection: ${j.selection}; ${j.files} \`.c\`/\`.cpp\` files scanned together with \`testcasesupport\`; ${j.findings} findings.`,
    "",
    `Analyzers (AnalyzerRun records): ${runsLine(j.analyzers)}.`,
    "",
    `**In scope** — a CWE folder is in scope when flawfinder's or cppcheck's own catalog, as the scanner runs them (\`flawfinder --listrules\` at the adapter's minimum level, \`cppcheck --errorlist\` for the enabled severities error/warning/style/portability, after the scanner's CWE normalization), contains its CWE or a direct parent: ${inScope.map((r) => `CWE-${r.cwe}`).join(", ") || "none"}.`,
    "",
    ...(j.catalogs ?? []).map(
      (c) =>
        `- ${c.tool} catalog${c.notice ? ` (${c.notice})` : ""}: ${c.cwes.length ? c.cwes.map((n) => `CWE-${n}`).join(", ") : "empty"}`,
    ),
    "",
    'Function granularity as for Java. The CWE mapping is strict, as for Java: flawfinder tags unbounded copies (`strcpy`, `memcpy`, …) CWE-120, a sibling of CWE-121/122/124/126/127 under CWE-787/CWE-119 rather than a parent or child, so those reports appear in the "other CWEs" table below and are not scored. Juliet\'s bad and good functions mostly call the same library functions, so such lexical reports fall on both alike.',
    "",
    "C functions are `CWE…_bad` / `badSink` / `goodG2B` / `goodB2G1` / `CWE…_good` (the dispatcher), C++ ones the same inside a namespace or a `…_bad` / `…_goodG2B` class. No tuning was done against these figures (the C analyzers are third-party tools with the scanner's default options).",
    "",
    ...JULIET_HEADER,
    ...inScope.map(julietRow),
    ...averageRows("In scope", j.inScope),
    "",
    ...julietDetails(inScope, out, "", null),
    "",
  ];
}

function castleRow(label: string, c: CastleCounts): string {
  const fpPerTp = c.tp > 0 ? (c.fp / c.tp).toFixed(2) : "n/a";
  return `| ${label} | ${c.tp} / ${c.vulnerable} | ${c.tpAnyLine} / ${c.vulnerable} | ${c.fp} / ${c.safe} | ${c.fpFindings} | ${fpPerTp} |`;
}

function castleSection(report: BenchReport): string[] {
  const c = report.castle;
  if (!c) return [];
  const pub = TARGETS.castle.cppcheckPublished;
  const full = c.full.result;
  const ratio = full.tp > 0 ? full.fp / full.tp : Infinity;
  const met = full.tp > pub.tp && ratio <= pub.fp / pub.tp;
  const header = [
    "| Configuration | TP (finding on a flaw line) | Vulnerable programs with any finding | FP (safe programs with a finding) | Findings in safe programs | FP per TP |",
    "|---|--:|--:|--:|--:|--:|",
  ];
  const lines: string[] = [
    "## CASTLE C250",
    "",
    `Dataset: \`${c.dataset.file}\` (${c.dataset.version}), sha256 \`${c.dataset.sha256.slice(0, 16)}…\`; ${c.programs} programs (each written to its own file and scanned as one tree).`,
    "",
    "A vulnerable program counts as detected when a finding's line range covers one of its labeled flaw lines (any CWE: CASTLE's published tool figures count any report); the looser \"any finding in the file\" figure is shown too. A safe program with any finding is a false positive.",
    "",
    "**Not held out.** The C refinements these figures measure, the constant-argument filter (`packages/scanner/src/analyzers/c-constant-args.ts`) above all, were developed while looking at CASTLE's programs: these are development-set figures, not an independent measurement of C detection.",
    "",
    `**Target** (issue 3): more true positives than cppcheck alone in the CASTLE paper (${pub.tp} TP, ${pub.fp} FP with cppcheck ${pub.version}) with no more false positives per true positive (${(pub.fp / pub.tp).toFixed(2)}) — **${met ? "met" : "not met"}**: ${full.tp} TP, ${full.fp} FP (${Number.isFinite(ratio) ? ratio.toFixed(2) : "n/a"} per TP).`,
    "",
    ...header,
    castleRow(
      `All analyzers (${c.full.analyzers
        .filter((r) => r.status === "completed")
        .map((r) => r.name)
        .join(" + ")})`,
      full,
    ),
    ...(c.cppcheckAlone ? [castleRow("cppcheck alone (same code path)", c.cppcheckAlone.result)] : []),
    `| cppcheck ${pub.version}, CASTLE paper (published) | ${pub.tp} / 150 | | ${pub.fp} / 100 | | ${(pub.fp / pub.tp).toFixed(2)} |`,
    ...Object.entries(full.perAnalyzer).map(([name, counts]) => castleRow(`${name}'s findings within the all-analyzer run`, counts)),
    "",
    `Analyzers, all: ${runsLine(c.full.analyzers)}.`,
    "",
    ...(c.cppcheckAlone
      ? [`Analyzers, cppcheck alone: ${runsLine(c.cppcheckAlone.analyzers)}.`, ""]
      : ["cppcheck is not in the analyzer registry: the cppcheck-alone row could not be measured.", ""]),
    "Per analyzer rule (all analyzers; a program found by two rules counts for both):",
    "",
    "| Rule (analyzer:rule) | Vulnerable programs detected | Safe programs flagged |",
    "|---|--:|--:|",
    ...Object.entries(full.perRule)
      .sort((a, b) => b[1].tp - a[1].tp || b[1].fp - a[1].fp || a[0].localeCompare(b[0]))
      .map(([rule, k]) => `| ${rule} | ${k.tp} | ${k.fp} |`),
    "",
    "Per CASTLE CWE (all analyzers):",
    "",
    "| CWE | Name | TP | Any finding | FP | Findings in safe programs |",
    "|---|---|--:|--:|--:|--:|",
    ...Object.entries(full.perCwe).map(
      ([cwe, k]) =>
        `| ${cwe} | ${cweName(Number(cwe.slice(4)))} | ${k.tp} / ${k.vulnerable} | ${k.tpAnyLine} / ${k.vulnerable} | ${k.fp} / ${k.safe} | ${k.fpFindings} |`,
    ),
    "",
  ];
  if (c.cppcheckAlone) {
    lines.push(
      "Per CASTLE CWE (cppcheck alone):",
      "",
      "| CWE | TP | Any finding | FP |",
      "|---|--:|--:|--:|",
      ...Object.entries(c.cppcheckAlone.result.perCwe).map(
        ([cwe, k]) => `| ${cwe} | ${k.tp} / ${k.vulnerable} | ${k.tpAnyLine} / ${k.vulnerable} | ${k.fp} / ${k.safe} |`,
      ),
      "",
    );
  }
  return lines;
}

function summaryLines(report: BenchReport): string[] {
  const lines = ["| Benchmark | Result |", "|---|---|"];
  if (report.java) {
    const a = report.java.inScope;
    lines.push(
      `| Juliet Java 1.2 (${a.cwes} CWEs in scope, training-set figures) | mean score **${pct(a.score)}**, TPR ${pct(a.tpr)}, FPR ${pct(a.fpr)} (pooled: ${a.pooled.tp}/${a.pooled.bad} bad, ${a.pooled.fp}/${a.pooled.good} good functions flagged) |`,
    );
  }
  if (report.castle) {
    const f = report.castle.full.result;
    const alone = report.castle.cppcheckAlone?.result;
    lines.push(
      `| CASTLE C250 (development set: the C filters were developed on it) | all analyzers: **${f.tp} TP** / 150, **${f.fp} FP** / 100${alone ? `; cppcheck alone: ${alone.tp} TP, ${alone.fp} FP` : ""}; published cppcheck 2.13: 18 TP, 5 FP |`,
    );
  }
  if (report.julietC) {
    const a = report.julietC.inScope;
    lines.push(
      `| Juliet C/C++ 1.3 (${a.cwes} CWEs in scope, ${report.julietC.selection.startsWith("all") ? "all test cases" : "sample"}) | mean score **${pct(a.score)}**, TPR ${pct(a.tpr)}, FPR ${pct(a.fpr)} |`,
    );
  }
  return lines;
}

export function renderMarkdown(report: BenchReport): string {
  const timings: string[] = [];
  if (report.java)
    timings.push(
      `Juliet Java ${secs(report.java.totalMs)} (scan ${secs(report.java.scanMs)}, function index ${secs(report.java.indexMs)})`,
    );
  if (report.castle) timings.push(`CASTLE ${secs(report.castle.totalMs)}`);
  if (report.julietC)
    timings.push(
      `Juliet C/C++ ${secs(report.julietC.totalMs)} (scan ${secs(report.julietC.scanMs)}, function index ${secs(report.julietC.indexMs)})`,
    );
  const lines: string[] = [
    "# Detection benchmark",
    "",
    "<!-- Generated by bench/detection (npm run bench:detection). Do not edit by hand; re-run the command. -->",
    "",
    `Generated ${report.generatedAt.slice(0, 10)} by \`${report.command}\` (Node ${report.node}, ${report.platform}); rule pack ${report.rulePackVersion}. Runtime ${secs(report.runtimeMs)}: ${timings.join("; ")}.`,
    "",
    "The datasets come from `DATASETS_DIR` (default `../shared/datasets`, see its README), are unpacked into a temporary folder outside the repository and deleted afterwards. Every scan goes through the product's own `runAnalyzers` (`@ax/scanner`) with the worker's analyzer registry, so the figures are what a scan reports: same file selection, same analyzer options, same deduplication.",
    "",
    "## Summary",
    "",
    ...summaryLines(report),
    "",
    ...versionsTable(report),
    "",
    "## How functions are scored (Juliet)",
    "",
    "- A Juliet test case (all files `…_NN`, `…_NNa` … `…_NNe`, `…_NN_bad`, `…_NN_goodG2B`) has one **bad function**: `bad()` with the helpers it reaches, all named `bad…` (`badSink`, `badSource`, `bad_source`, `helperBad`), and one **good function** per safe variant: `goodG2B`, `goodB2G`, `good1`, `goodG2B2`, `goodB2G1`, … with their helpers (`goodG2BSink`, `goodB2G1Source`, …). `good()` only calls the variants and is not a function of its own. In Juliet's abstract-class variant (`_81_bad`, `_81_goodG2B`) the class name gives the function.",
    "- The function around a finding is found with a parser: ast-grep (tree-sitter) lists every method/function/class declaration with its line range; the innermost enclosing `bad…`/`good…` method wins.",
    "- A finding counts for a test case only when its CWE is the folder's CWE or a direct parent or child in MITRE's research view (CWE-1000), e.g. CWE-80/81/83 → CWE-79, CWE-23/36 → CWE-22, CWE-259/321 → CWE-798; each table lists the exact CWEs accepted. Findings of other CWEs in the same functions are counted separately and not scored.",
    "- A CWE is **in scope** when an analyzer can report the CWE itself or a direct parent (Java: the rule pack's rules; C/C++: flawfinder's and cppcheck's catalogs). Out-of-scope CWEs are listed as not covered, with their function counts.",
    "- TP = bad functions with a counted finding; FP = good functions with a counted finding; TPR = TP / bad functions; FPR = FP / good functions; score = TPR − FPR. The headline figure is the mean over CWEs (each CWE weighs the same); pooled figures are given too.",
    "",
    `Direct ChildOf edges used (child → parents): ${Object.entries(CHILD_OF)
      .map(([c, ps]) => `${c}→${ps.join("/")}`)
      .join(", ")}.`,
    "",
    ...(report.java ? javaSection(report.java) : []),
    ...castleSection(report),
    ...(report.julietC ? cSection(report.julietC) : []),
    ...(report.labeled ? labeledSection(report.labeled) : []),
  ];
  return `${lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

/** Writes detection.md/json into `outDir` (when given) and returns a short console summary. */
export async function writeReport(report: BenchReport, outDir: string | null): Promise<string> {
  if (outDir) {
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, "detection.md"), renderMarkdown(report));
    await writeFile(join(outDir, "detection.json"), `${JSON.stringify(report, null, 2)}\n`);
  }
  const lines = summaryLines(report)
    .slice(2)
    .map((l) => l.replace(/\*\*/g, ""));
  if (report.java) {
    for (const r of report.java.rows.filter((x) => x.inScope)) {
      lines.push(
        `  java CWE-${r.cwe}: bad ${r.bad} good ${r.good} TP ${r.tp} FP ${r.fp} TPR ${pct(r.tpr)} FPR ${pct(r.fpr)} score ${pct(r.score)}`,
      );
    }
  }
  for (const l of report.labeled ?? []) {
    lines.push(
      `  labeled ${l.language}: pattern only ${pct(l.patternOnly.mean.score)} (FPR ${pct(l.patternOnly.mean.fpr)}), with dataflow ${pct(l.withDataflow.mean.score)} (FPR ${pct(l.withDataflow.mean.fpr)})`,
    );
  }
  if (report.julietC) {
    for (const r of report.julietC.rows.filter((x) => x.inScope)) {
      lines.push(
        `  c CWE-${r.cwe}: bad ${r.bad} good ${r.good} TP ${r.tp} FP ${r.fp} TPR ${pct(r.tpr)} FPR ${pct(r.fpr)} score ${pct(r.score)}`,
      );
    }
  }
  lines.push(`runtime ${secs(report.runtimeMs)}`);
  return `${lines.join("\n")}\n`;
}

export type { CastleResult };

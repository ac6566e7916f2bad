/**
 * `--peer-misses FILE`: the development set's missed vulnerable labels and false alarms, for
 * diagnosis (JSON, or markdown when FILE ends in .md). The held-out source is refused: its
 * labels and findings must never be listed.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { HELD_OUT_SOURCE, type LabelOutcome, type PeerFinding } from "./peer";

export interface PeerMissFinding {
  id: string;
  rule: string;
  cwe: string | null;
  lines: string;
}

export interface PeerMiss {
  kind: "missed" | "false-alarm";
  source: string;
  file: string;
  line: number | null;
  endLine: number | null;
  labelKind: string;
  rule: string;
  cwe: string[];
  inScope: boolean;
  /** False alarm: the findings that matched. Missed: the findings in the same file (any CWE). */
  findings: PeerMissFinding[];
}

function describe(f: PeerFinding): PeerMissFinding {
  const rules = f.sources && f.sources.length > 0 ? f.sources.map((s) => `${s.analyzer}:${s.rule_id}`) : [`${f.analyzer}:${f.rule_id}`];
  const end = f.end_line ?? f.start_line;
  return {
    id: (f.fingerprint ?? "").slice(0, 12),
    rule: rules.join(", "),
    cwe: f.cwe_id,
    lines: end > f.start_line ? `${f.start_line}-${end}` : String(f.start_line),
  };
}

/** Missed vulnerable labels and false alarms of development sources; throws on a held-out outcome. */
export function peerMisses(outcomes: readonly LabelOutcome[], findings: readonly PeerFinding[]): PeerMiss[] {
  if (outcomes.some((o) => o.label.source === HELD_OUT_SOURCE) || findings.some((f) => f.file.startsWith(`${HELD_OUT_SOURCE}/`)))
    throw new Error(`--peer-misses lists development sources only; ${HELD_OUT_SOURCE} is held out`);
  const byFile = new Map<string, PeerFinding[]>();
  for (const f of findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f]);
  const out: PeerMiss[] = [];
  for (const o of outcomes) {
    if (o.unscored) continue;
    const hit = o.matches.length > 0;
    if (o.label.vulnerable === hit) continue;
    const l = o.label;
    out.push({
      kind: l.vulnerable ? "missed" : "false-alarm",
      source: l.source,
      file: l.file,
      line: l.line,
      endLine: l.endLine,
      labelKind: l.kind,
      rule: l.rule,
      cwe: l.cwes.map((c) => `CWE-${c}`),
      inScope: o.inScope,
      findings: (l.vulnerable ? (byFile.get(l.file) ?? []) : o.matches).map(describe),
    });
  }
  return out.sort((a, b) => a.kind.localeCompare(b.kind) || a.file.localeCompare(b.file) || (a.line ?? 0) - (b.line ?? 0));
}

export function missesMarkdown(misses: readonly PeerMiss[]): string {
  const lines = [
    "# Peer-labelled development set: missed labels and false alarms",
    "",
    "| What | Source | File | Line | Kind | Peer rule | CWE | In scope | Our findings (rule, CWE, lines) |",
    "|---|---|---|--:|---|---|---|---|---|",
    ...misses.map(
      (m) =>
        `| ${m.kind} | ${m.source} | ${m.file} | ${m.line ?? ""}${m.endLine ? `-${m.endLine}` : ""} | ${m.labelKind} | ${m.rule} | ` +
        `${m.cwe.join(", ")} | ${m.inScope ? "yes" : "no"} | ${m.findings.map((f) => `${f.rule} ${f.cwe ?? "no CWE"} @${f.lines}`).join("; ")} |`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

export async function writePeerMisses(path: string, outcomes: readonly LabelOutcome[], findings: readonly PeerFinding[]): Promise<void> {
  const misses = peerMisses(outcomes, findings);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, path.endsWith(".md") ? missesMarkdown(misses) : `${JSON.stringify(misses, null, 2)}\n`);
}

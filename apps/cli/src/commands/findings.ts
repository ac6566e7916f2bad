import { SEVERITIES, canonicalLabel } from "@ax/contracts";
import { getSarif, listFindings, listRefuted, type Finding, type Sarif } from "../api";
import { parseCommand, required, showHelp } from "../args";
import { connect } from "../context";
import { UsageError } from "../errors";
import type { Io } from "../io";
import { colorsFor, oneLine, table } from "../render";

export const FINDINGS_HELP = `ax findings — the findings of a scan, most severe first (every page)

Usage:
  ax findings SCAN_ID [--severity LIST] [--status LIST] [--cwe LIST] [--ai-action LIST] [--reasons]
              [--format table|json|sarif]
  ax findings SCAN_ID --refuted [--format table|json]

Options:
  --severity LIST   comma-separated: critical,high,medium,low,info
  --status LIST     comma-separated: "to review","true positive","false positive","accepted risk",fixed
                    (case and _ - or space do not matter: false_positive works)
  --cwe LIST        comma-separated CWE ids, e.g. CWE-89,CWE-79
  --ai-action LIST  what the group's AI policy did: auto_closed,suggested,needs_review
  --format F        table (default), json (an array of findings) or sarif (SARIF 2.1.0 log;
                    the filters keep the matching results)
  --refuted         instead of the findings, the pattern matches the taint analysis refuted
                    (no untrusted input reaches the sink), each with the reason: not findings,
                    never counted or gated on, listed for audit

  --reasons         under each finding of the table, the evidence that weighed most in its
                    AI label (JSON always has them, in ai.reasons)

The table's AI column is the review model's label (TP or FP, its confidence) and what the
group's AI policy did with it: auto closed, suggested or needs review.`;

const OPTIONS = {
  severity: { type: "string" },
  status: { type: "string" },
  cwe: { type: "string" },
  "ai-action": { type: "string" },
  reasons: { type: "boolean", default: false },
  format: { type: "string", default: "table" },
  refuted: { type: "boolean", default: false },
} as const;

const FORMATS = ["table", "json", "sarif"];

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export async function findingsCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseCommand(argv, OPTIONS, FINDINGS_HELP, 1);
  if (v.help) return showHelp(io, FINDINGS_HELP);
  const scanId = required(positionals[0], "SCAN_ID", FINDINGS_HELP);
  if (!FORMATS.includes(v.format)) throw new UsageError(`--format takes ${FORMATS.join(", ")}.`, FINDINGS_HELP);
  const filters = { severity: list(v.severity), status: list(v.status), cwe: list(v.cwe) };
  if (v.refuted) {
    if (v.format === "sarif" || v.severity || v.status || v.cwe || v["ai-action"])
      throw new UsageError("--refuted lists every refuted match, as a table or JSON: no filters, no SARIF.", FINDINGS_HELP);
    return refutedCommand(scanId, v.format, io);
  }
  const c = await connect(io);

  if (v.format === "sarif") {
    if (v["ai-action"]) throw new UsageError("--ai-action filters the table and JSON, not SARIF.", FINDINGS_HELP);
    io.out(`${JSON.stringify(filterSarif(await getSarif(c, scanId), filters), null, 2)}\n`);
    return 0;
  }
  const findings = await listFindings(c, scanId, {
    severity: filters.severity?.join(","),
    status: filters.status?.join(","),
    cwe: filters.cwe?.join(","),
    ai_action: list(v["ai-action"])?.join(","),
  });
  if (v.format === "json") {
    io.out(`${JSON.stringify(findings, null, 2)}\n`);
    return 0;
  }
  if (findings.length === 0) {
    io.out("No findings match.\n");
    return 0;
  }
  const p = colorsFor(io);
  // The service orders by the severity a finding had when its scan stored it (a key triage
  // cannot move, for exact paging); with every page in hand, the table shows today's order.
  const sorted = [...findings].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
  const rows = sorted.map((f: Finding) => [
    p.severity(f.severity),
    f.status,
    f.cwe_id ?? "",
    f.rule_id,
    `${f.file}:${f.start_line}`,
    aiCell(f),
    f.finding_id,
  ]);
  const [head, ...lines] = table(["SEVERITY", "STATUS", "CWE", "RULE", "LOCATION", "AI", "FINDING ID"], rows, p).split("\n");
  // With --reasons, each finding's reasons on the line under it.
  const body = lines.flatMap((line, i) => {
    const reasons = v.reasons ? (sorted[i]?.ai?.reasons ?? []) : [];
    return reasons.length ? [line, p.dim(`  ↳ ${reasons.map(oneLine).join("; ")}`)] : [line];
  });
  io.out(`${[head, ...body].join("\n")}\n\n${findings.length} finding${findings.length === 1 ? "" : "s"}\n`);
  return 0;
}

/** The review model's label in short (TP/FP and confidence) and what the policy did with it. */
function aiCell(f: Finding): string {
  if (!f.ai) return "";
  const cls = f.ai.class === "FALSE_POSITIVE" ? "FP" : "TP";
  return `${cls} ${f.ai.confidence.toFixed(2)}${f.ai.action ? ` ${f.ai.action.replace("_", " ")}` : ""}`;
}

async function refutedCommand(scanId: string, format: string, io: Io): Promise<number> {
  const matches = await listRefuted(await connect(io), scanId);
  if (format === "json") {
    io.out(`${JSON.stringify(matches, null, 2)}\n`);
    return 0;
  }
  if (matches.length === 0) {
    io.out("No refuted matches.\n");
    return 0;
  }
  const p = colorsFor(io);
  const rows = matches.map((m) => [m.cwe_id ?? "", m.rule_id, `${m.file}:${m.start_line}`, m.reason]);
  io.out(
    `${table(["CWE", "RULE", "LOCATION", "WHY REFUTED"], rows, p)}\n\n${matches.length} refuted match${matches.length === 1 ? "" : "es"}\n`,
  );
  return 0;
}

/** The SARIF endpoint has no filters: keep the results whose properties match, as the list endpoint would. */
export function filterSarif(sarif: Sarif, filters: { severity?: string[]; status?: string[]; cwe?: string[] }): Sarif {
  const wanted = (values: string[] | undefined, norm: (s: string) => string) => (values ? new Set(values.map(norm)) : undefined);
  const severity = wanted(filters.severity, canonicalLabel);
  const status = wanted(filters.status, canonicalLabel);
  const cwe = wanted(filters.cwe, (s) => s.toUpperCase());
  const keep = (props: Record<string, unknown> = {}) =>
    (!severity || severity.has(String(props.severity))) &&
    (!status || status.has(String(props.status))) &&
    (!cwe || cwe.has(String(props.cwe)));
  return { ...sarif, runs: sarif.runs.map((run) => ({ ...run, results: run.results.filter((r) => keep(r.properties)) })) };
}

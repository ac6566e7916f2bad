/**
 * Questions about the caller's scans: a summary of one scan (the named one or the newest),
 * grounded only in ChatDataSource. Every number printed is a count the data source gave or
 * a tally of rows it returned, so the answer never states a figure it did not read.
 */
import { OPEN_STATUSES, STATUS_COUNT_KEYS, type FindingStatus } from "@ax/contracts";
import { modelAnswer } from "../model-answer";
import { clip, escapeInline, inlineCode, table } from "../markdown";
import type { AnswerLines, ChatDataSource, FindingSummary, ScanSummary, Specialist, SpecialistContext } from "../types";

type CweCount = Awaited<ReturnType<ChatDataSource["cweCounts"]>>[number];

const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"];
// The status breakdown's rows: a count key and the status a reviewer sets (and reads) by name.
const STATUS_ROWS = (Object.entries(STATUS_COUNT_KEYS) as [FindingStatus, string][]).map(([status, key]) => ({ status, key }));
const STATUS_KEYS = STATUS_ROWS.map((r) => r.key);
const TOP = 5;
// Rows read when the answer filters or tallies findings itself (a CWE focus, files).
const WIDE = 200;

interface Facts {
  lines: string[];
  /** False when there was no scan to talk about: the answer is final, no model needed. */
  grounded: boolean;
}

export function formatTime(iso: string | null): string {
  if (!iso) return "—";
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? escapeInline(iso) : `${t.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** One finding as a list item; "finding `<id>`" is what the router reads back in follow-ups. */
export function findingItem(f: FindingSummary, n: number): string {
  const where = inlineCode(`${clip(f.file, 200)}:${f.start_line}`);
  const cwe = f.cwe_id ? ` · ${escapeInline(f.cwe_id)}` : "";
  const ai = f.ai_class
    ? ` · AI label: ${escapeInline(f.ai_class)}${f.ai_confidence != null ? ` (${Math.round(f.ai_confidence * 100)}%)` : ""}`
    : "";
  // A reviewer's verdict shows beside the finding, so a closed one is not read as open.
  const status = f.status === "TO REVIEW" ? "" : ` · ${escapeInline(f.status)}`;
  return `${n}. **${escapeInline(f.severity)}** ${escapeInline(clip(f.title, 160))} — ${where} — finding ${inlineCode(f.finding_id)}${cwe}${status}${ai}`;
}

function noScan(ctx: SpecialistContext): string[] {
  const where = ctx.groupId ? "in this group" : "in this organization";
  if (ctx.route.scanId) {
    return [`I can't find scan ${inlineCode(ctx.route.scanId)} ${where}.`, "", "Ask *summarize my last scan* to see the newest one."];
  }
  const query = ctx.groupId ? `?group_id=${encodeURIComponent(ctx.groupId)}` : "";
  return [
    `There are no scans ${where} yet.`,
    "",
    `Start one with ${inlineCode(`POST /api/v2/scan${query}`)} and a JSON body naming the repository, for example:`,
    "",
    "```json",
    '{ "git_uri": "https://github.com/owner/repo.git", "branch": "main" }',
    "```",
    "",
    "Then ask me again once it has finished.",
  ];
}

function header(ctx: SpecialistContext, scan: ScanSummary): string[] {
  const lines = [
    `### Scan of ${inlineCode(clip(scan.git_uri, 300))}`,
    "",
    `- **Scan:** ${inlineCode(scan.scan_id)} — **${escapeInline(scan.state)}**, created ` +
      `${formatTime(scan.created_at)}` +
      `${scan.finished_at ? `, finished ${formatTime(scan.finished_at)}` : ""}`,
    `- **Branch:** ${scan.branch ? inlineCode(clip(scan.branch, 120)) : "default"} · **Commit:** ${scan.commit ? inlineCode(scan.commit.slice(0, 7)) : "—"}`,
    `- **Group:** ${escapeInline(scan.group_name)}${ctx.groupId ? " (this chat is limited to this group)" : ""}`,
  ];
  if (scan.languages.length > 0) lines.push(`- **Languages:** ${scan.languages.map(escapeInline).join(", ")}`);
  if (scan.state === "failed") lines.push("", `> **The scan failed:** ${escapeInline(clip(scan.error ?? "no error was recorded.", 500))}`);
  if (scan.state === "cancelled") lines.push("", `> **The scan was cancelled.** ${escapeInline(clip(scan.error ?? "", 500))}`);
  if (scan.state === "queued" || scan.state === "running") {
    lines.push("", `> The scan is still **${escapeInline(scan.state)}**: findings are stored when it completes. Ask again later.`);
  }
  return lines;
}

/**
 * The scan's counts: open findings by severity (what still needs attention; a reviewer's
 * verdict or severity change moves a finding), then its present findings by review status,
 * then the other keys that are not zero.
 */
function severityTable(counts: Record<string, number>): string[] {
  const rows = SEVERITIES.filter((s) => typeof counts[s] === "number").map((s) => [s, counts[s]!]);
  if (rows.length === 0) return [];
  const total = counts.total ?? rows.reduce((sum, [, n]) => sum + (n as number), 0);
  const open = OPEN_STATUSES.map(escapeInline).join(" or ");
  const lines = [
    "",
    "#### Open findings by severity",
    "",
    ...table(["Severity", "Findings"], [...rows, [{ md: "**Total**" }, total]]),
    "",
    `_Open: ${open}, and not suppressed in the source._`,
  ];
  const statuses = STATUS_ROWS.filter((r) => typeof counts[r.key] === "number");
  if (statuses.length > 0) {
    // A reviewer's FIXED on a finding the scan still reports; those that disappeared are `fixed` below.
    const cells = statuses.map((r) => [
      { md: `${escapeInline(r.status)}${r.key === "marked_fixed" ? " (still reported)" : ""}` },
      counts[r.key]!,
    ]);
    lines.push("", "#### Findings by review status", "", ...table(["Status", "Findings"], cells));
  }
  const other = Object.entries(counts).filter(([k, n]) => !SEVERITIES.includes(k) && !STATUS_KEYS.includes(k) && k !== "total" && n > 0);
  if (other.length > 0) lines.push("", `Also: ${other.map(([k, n]) => `${escapeInline(k)} ${n}`).join(" · ")}`);
  return lines;
}

function cweFocus(cweIds: string[], counts: CweCount[], rows: FindingSummary[]): string[] {
  const matching = rows.filter((f) => f.cwe_id !== null && cweIds.includes(f.cwe_id.toUpperCase()));
  const lines = ["", `#### ${cweIds.map(escapeInline).join(", ")} in this scan`, ""];
  for (const id of cweIds) {
    const c = counts.find((x) => x.cwe_id.toUpperCase() === id);
    const listed = matching.filter((f) => f.cwe_id!.toUpperCase() === id).length;
    if (c)
      lines.push(
        `- **${escapeInline(id)}**${c.cwe_name ? ` (${escapeInline(c.cwe_name)})` : ""}: ${c.count} finding${c.count === 1 ? "" : "s"}`,
      );
    else if (listed > 0) lines.push(`- **${escapeInline(id)}**: at least ${listed} finding${listed === 1 ? "" : "s"}`);
    else lines.push(`- **${escapeInline(id)}**: no findings in this scan`);
  }
  if (matching.length > 0) lines.push("", "Highest severity first:", "", ...matching.slice(0, TOP).map((f, i) => findingItem(f, i + 1)));
  if (rows.length >= WIDE) lines.push("", `_Listed from the ${WIDE} highest-severity findings of the scan._`);
  return lines;
}

function fileTally(rows: FindingSummary[]): string[] {
  const byFile = new Map<string, number>();
  for (const f of rows) byFile.set(f.file, (byFile.get(f.file) ?? 0) + 1);
  const top = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  if (top.length === 0) return [];
  const note =
    rows.length >= WIDE ? `_Counted over the ${WIDE} highest-severity findings._` : `_Counted over all ${rows.length} findings._`;
  return [
    "",
    "#### Files with the most findings",
    "",
    ...table(
      ["File", "Findings"],
      top.map(([file, n]) => [{ md: inlineCode(clip(file, 200)) }, n]),
    ),
    "",
    note,
  ];
}

async function gather(ctx: SpecialistContext): Promise<Facts> {
  const { data, route } = ctx;
  const scan = route.scanId ? await data.scan(route.scanId) : (await data.recentScans(1))[0];
  if (!scan) return { lines: noScan(ctx), grounded: false };
  const lines = header(ctx, scan);
  if (scan.state === "queued" || scan.state === "running") return { lines, grounded: true };

  const cweIds = route.cweIds.map((c) => c.toUpperCase());
  const asksFiles = /\bfiles?\b|\bwhere\b/i.test(ctx.prompt);
  const wide = cweIds.length > 0 || asksFiles;
  const [rows, cweCounts] = await Promise.all([
    data.findings(scan.scan_id, wide ? WIDE : TOP),
    data.cweCounts(scan.scan_id, cweIds.length > 0 ? 100 : TOP),
  ]);
  const topCwes = cweCounts.slice(0, TOP);

  if (cweIds.length > 0) lines.push(...cweFocus(cweIds, cweCounts, rows));
  lines.push(...severityTable(scan.counts));
  if (topCwes.length > 0) {
    const cweRows = topCwes.map((c) => [c.cwe_id, c.cwe_name ?? "", c.count]);
    lines.push("", "#### Top weaknesses", "", ...table(["CWE", "Name", "Findings"], cweRows));
  }
  if (asksFiles) lines.push(...fileTally(rows));
  if (cweIds.length === 0 && rows.length > 0)
    lines.push("", "#### Top findings", "", ...rows.slice(0, TOP).map((f, i) => findingItem(f, i + 1)));
  if (rows.length === 0 && scan.state === "completed") lines.push("", "No findings were reported for this scan.");
  if (rows.length > 0) lines.push("", "Ask *how do I fix finding `<id>`* for the fix of one of them.");
  return { lines, grounded: true };
}

const SYSTEM =
  "You are the findings specialist of a code-scanning service's assistant. Answer the caller's question about their scan from the " +
  "context only: it holds the scan's state, its open findings by severity, its findings by review status, its top weaknesses and " +
  "findings. Every number you state must appear in the context; never estimate. Refer to findings by their id so the caller can ask " +
  "how to fix them. If the scan failed or is still running, say so first.";

export const findingsSpecialist: Specialist = {
  name: "findings",
  async *answer(ctx: SpecialistContext): AnswerLines {
    const facts = await gather(ctx);
    if (!ctx.model || !facts.grounded) {
      yield* facts.lines;
      return;
    }
    yield* modelAnswer(ctx, { system: SYSTEM, context: facts.lines.join("\n") });
  },
};

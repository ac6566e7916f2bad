import { updateFinding } from "../api";
import { parseCommand, required, showHelp } from "../args";
import { connect } from "../context";
import { UsageError } from "../errors";
import type { Io } from "../io";

export const TRIAGE_HELP = `ax triage — set the review status (and reason) of a finding

Usage:
  ax triage SCAN_ID FINDING_ID --status STATUS [--reason TEXT] [--json]

Options:
  --status STATUS   to review, true positive, false positive, accepted risk or fixed
                    (case and _ - or space do not matter: false_positive works)
  --reason TEXT     why; kept with the finding and in its history
  --json            print the updated finding as JSON

A finding closed as false positive, accepted risk or fixed no longer counts for
"ax scan --fail-on"; later scans of the same project carry the status over.`;

const OPTIONS = { status: { type: "string" }, reason: { type: "string" }, json: { type: "boolean" } } as const;

export async function triageCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseCommand(argv, OPTIONS, TRIAGE_HELP, 2);
  if (v.help) return showHelp(io, TRIAGE_HELP);
  const scanId = required(positionals[0], "SCAN_ID", TRIAGE_HELP);
  const findingId = required(positionals[1], "FINDING_ID", TRIAGE_HELP);
  if (v.status === undefined && v.reason === undefined) throw new UsageError("Give --status, --reason or both.", TRIAGE_HELP);
  const patch = { ...(v.status !== undefined ? { status: v.status } : {}), ...(v.reason !== undefined ? { reason: v.reason } : {}) };
  const { finding } = await updateFinding(await connect(io), scanId, findingId, patch);
  if (v.json) io.out(`${JSON.stringify(finding)}\n`);
  else
    io.out(
      `Finding ${finding.finding_id} (${finding.severity} ${finding.rule_id}, ${finding.file}:${finding.start_line}) ` +
        `is now ${finding.status}${finding.reason ? ` — ${finding.reason}` : ""}.\n`,
    );
  return 0;
}

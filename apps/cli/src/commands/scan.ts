import { SEVERITIES, TERMINAL_STATES, canonicalLabel, type Severity } from "@ax/contracts";
import { getScan, resolveGroup, resolveOrganization, startScan, type Scan } from "../api";
import { parseCommand, required, showHelp } from "../args";
import type { ApiClient } from "../client";
import { connect } from "../context";
import { CliError, EXIT, UsageError } from "../errors";
import type { Io } from "../io";
import { progressReporter, type Progress } from "../progress";
import { colorsFor, openAtOrAbove, summaryTable } from "../render";

export const SCAN_HELP = `ax scan — start a scan of a git repository, and optionally follow it

Usage:
  ax scan GIT_URI [--branch B] [--group G] [--org O] [--wait] [--fail-on SEVERITY] [--json]

Options:
  --branch B            branch to scan (default: the remote's default branch)
  --group G             group id or name (default: the organization's "default" group)
  --org O               organization id or name (needed when you belong to several)
  --wait                follow the scan to its end (a progress bar on a terminal, one line per
                        phase otherwise), then print its counts: open findings by severity
  --fail-on SEVERITY    implies --wait; exit 3 when open findings of SEVERITY or above remain
                        (critical, high, medium, low, info). Open: status TO REVIEW or
                        TRUE POSITIVE, in the code and not suppressed in the source
  --timeout SECONDS     stop waiting after this long (default 3600; exit 1, the scan goes on)
  --json                print JSON: {scan_id, state}, or with --wait {scan, gate}

Exit codes: 0 done (gate passed), 1 scan failed or was cancelled, 2 usage, 3 gate failed,
4 not logged in, 5 service unreachable.`;

const OPTIONS = {
  branch: { type: "string" },
  group: { type: "string" },
  org: { type: "string" },
  wait: { type: "boolean" },
  "fail-on": { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean" },
} as const;

const POLL_MS = 250;

function severityOf(value: string): Severity {
  const sev = canonicalLabel(value) as Severity;
  if (!SEVERITIES.includes(sev))
    throw new UsageError(`--fail-on takes one of ${SEVERITIES.map((s) => s.toLowerCase()).join(", ")}.`, SCAN_HELP);
  return sev;
}

function secondsOf(value: string | undefined): number {
  if (value === undefined) return 3600;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError("--timeout must be a whole number of seconds.", SCAN_HELP);
  return n;
}

export async function scanCommand(argv: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parseCommand(argv, OPTIONS, SCAN_HELP, 1);
  if (v.help) return showHelp(io, SCAN_HELP);
  const gitUri = required(positionals[0], "GIT_URI", SCAN_HELP);
  const failOn = v["fail-on"] === undefined ? undefined : severityOf(v["fail-on"]);
  const timeoutS = secondsOf(v.timeout);
  const c = await connect(io);

  const orgId = v.org !== undefined || v.group !== undefined ? await resolveOrganization(c, v.org) : undefined;
  const groupId = v.group !== undefined ? await resolveGroup(c, orgId!, v.group) : undefined;
  const started = await startScan(
    c,
    { git_uri: gitUri, ...(v.branch ? { branch: v.branch } : {}) },
    { organization_id: orgId, group_id: groupId },
  );

  if (!v.wait && !failOn) {
    io.out(
      v.json
        ? `${JSON.stringify(started)}\n`
        : `Scan ${started.scan_id} ${started.state}.\nIts findings, once it completes: ax findings ${started.scan_id}\n`,
    );
    return EXIT.ok;
  }
  const p = colorsFor(io);
  if (!v.json) io.out(`Scan ${started.scan_id} of ${gitUri}${v.branch ? ` (${v.branch})` : ""}\n`);
  const reporter: Progress = v.json ? { update() {}, finish() {} } : progressReporter(io, p);
  const scan = await follow(c, started.scan_id, reporter, timeoutS);

  if (scan.state !== "completed") {
    if (v.json) io.out(`${JSON.stringify({ scan })}\n`);
    throw new CliError(`Scan ${scan.scan_id} ${scan.state}${scan.error ? `: ${scan.error}` : "."}`);
  }
  // The service's counts, as it computed them for this answer: what the table shows and the gate judges.
  const blocking = failOn ? openAtOrAbove(scan.counts, failOn) : 0;
  if (v.json) {
    io.out(`${JSON.stringify({ scan, ...(failOn ? { gate: { fail_on: failOn, open: blocking, passed: blocking === 0 } } : {}) })}\n`);
  } else {
    const took = scan.duration_ms === null ? "" : ` in ${(scan.duration_ms / 1000).toFixed(1)} s`;
    io.out(
      `\nCompleted${took}${scan.commit ? ` at ${scan.commit.slice(0, 12)}` : ""}.\n\n` +
        `${summaryTable(scan.counts, p)}\n\nList them: ax findings ${scan.scan_id}\n`,
    );
  }
  if (!failOn) return EXIT.ok;
  if (blocking > 0) {
    io.err(
      `ax: ${blocking} open finding${blocking === 1 ? "" : "s"} at ${failOn} or above (--fail-on ${failOn.toLowerCase()}). ` +
        `Triage with "ax triage ${scan.scan_id} FINDING_ID --status …".\n`,
    );
    return EXIT.gate;
  }
  if (!v.json) io.out(`${p.green("✔")} No open findings at ${failOn} or above.\n`);
  return EXIT.ok;
}

async function follow(c: ApiClient, scanId: string, reporter: Progress, timeoutS: number): Promise<Scan> {
  const deadline = Date.now() + timeoutS * 1000;
  try {
    for (;;) {
      const scan = await getScan(c, scanId);
      reporter.update(scan);
      if (TERMINAL_STATES.includes(scan.state)) return scan;
      if (Date.now() > deadline) throw new CliError(`Scan ${scanId} is still ${scan.state} after ${timeoutS} s; it goes on without us.`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    reporter.finish();
  }
}

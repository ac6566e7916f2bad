// `ax scan --wait` prints the service's counts and gates on them (issue 16): the real binary
// against the real API, a real worker and real analyzers on a git repository made here.
// Before, the CLI recounted the listed findings, and its FINDINGS column took in rows the
// scan's counts leave out (suppressed in the source, closed by triage, fixed since).
import { commitFiles, makeGitRepo } from "@ax/testkit";
import { fixture, startCliHarness, type CliHarness } from "../test/cli-harness";

let h: CliHarness;
beforeAll(async () => {
  h = await startCliHarness();
});
afterAll(async () => {
  await h.close();
});

const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] as const;
const ETAG = [
  'const crypto = require("crypto");',
  "",
  "// ax-ignore[js-weak-hash]: an ETag, not a security boundary",
  'const etag = (body) => crypto.createHash("md5").update(body).digest("hex");',
  "module.exports = { etag };",
  "",
].join("\n");

async function apiCounts(scanId: string): Promise<Record<string, number>> {
  const r = await fetch(`${h.url}/api/v2/scan/${scanId}`, { headers: { "X-AX-KEY": h.api.tenant.token } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { counts: Record<string, number> }).counts;
}

/** The numbers of the summary `ax scan --wait` printed, by row label. */
function printed(out: string): Record<string, number> {
  const rows = Object.fromEntries([...out.matchAll(/^(CRITICAL|HIGH|MEDIUM|LOW|INFO|total) +(\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  const tallies = new RegExp(
    "^(\\d+) new · (\\d+) fixed since the previous scan · (\\d+) suppressed in the source · " +
      "(\\d+) false positive · (\\d+) accepted risk · (\\d+) marked fixed$",
    "m",
  );
  const line = tallies.exec(out);
  expect(line).not.toBeNull();
  const [, added, fixed, suppressed, falsePositive, acceptedRisk, markedFixed] = (line as RegExpExecArray).map(Number);
  return {
    ...rows,
    new: added!,
    fixed: fixed!,
    suppressed: suppressed!,
    false_positive: falsePositive!,
    accepted_risk: acceptedRisk!,
    marked_fixed: markedFixed!,
  };
}

it("prints the API's counts of a scan with fixed, suppressed and triaged findings, and gates on them", async () => {
  const repo = makeGitRepo({ "src/db.js": fixture("vulnerable.js"), "src/etag.js": ETAG, "app/util.py": fixture("vulnerable.py") });
  const first = JSON.parse((await h.ax(["scan", repo, "--wait", "--json"])).out) as { scan: { scan_id: string } };
  // A reviewer closes one finding (the decision is carried to the next scan of the project)…
  const listed = JSON.parse((await h.ax(["findings", first.scan.scan_id, "--format", "json", "--severity", "medium"])).out) as {
    finding_id: string;
    file: string;
  }[];
  const weak = listed.find((f) => f.file === "src/db.js");
  expect(weak).toBeDefined();
  expect((await h.ax(["triage", first.scan.scan_id, weak!.finding_id, "--status", "false positive", "--reason", "test data"])).code).toBe(
    0,
  );
  // …and a commit removes one (the next scan records it FIXED, as absent).
  commitFiles(repo, { "app/util.py": fixture("vulnerable.py").replace(/\ndef digest[\s\S]*$/, "\n") }, "drop the md5 digest");

  const r = await h.ax(["scan", repo, "--fail-on", "medium"]);
  const scanId = /^Scan (\S+) of /.exec(r.out)?.[1] as string;
  const counts = await apiCounts(scanId);
  // The rows the counts leave out are there: what the old FINDINGS column added up.
  expect(counts.fixed).toBeGreaterThanOrEqual(1);
  expect(counts.suppressed).toBeGreaterThanOrEqual(1);
  expect(counts.false_positive).toBe(1);
  const rows = JSON.parse((await h.ax(["findings", scanId, "--format", "json"])).out) as unknown[];
  expect(rows.length).toBeGreaterThan(counts.total!);

  const shown = printed(r.out);
  for (const key of [...SEVERITIES, "total", "new", "fixed", "suppressed", "false_positive", "accepted_risk", "marked_fixed"])
    expect([key, shown[key]]).toEqual([key, counts[key]]);
  const blocking = counts.CRITICAL! + counts.HIGH! + counts.MEDIUM!;
  expect(blocking).toBeGreaterThan(0);
  expect(r.code).toBe(3);
  expect(r.err).toMatch(new RegExp(`^ax: ${blocking} open findings? at MEDIUM or above \\(--fail-on medium\\)\\.`));

  // The JSON gate counts the same; a threshold above every open finding passes.
  const json = JSON.parse((await h.ax(["scan", repo, "--fail-on", "medium", "--json"])).out) as {
    scan: { scan_id: string; counts: Record<string, number> };
    gate: { open: number; passed: boolean };
  };
  expect(json.scan.counts).toEqual(await apiCounts(json.scan.scan_id));
  expect(json.gate).toMatchObject({ open: json.scan.counts.CRITICAL! + json.scan.counts.HIGH! + json.scan.counts.MEDIUM!, passed: false });
  expect(json).not.toHaveProperty("summary");
});

/**
 * Our own small applications with known flaws (apps/<name>/, each with its labels.json): an
 * Express + Angular shop, a Flask app, a Spring MVC app. Each is scanned as one repository
 * through the product's `runAnalyzers`, and scored as the peer-labelled set is: a vulnerable
 * line is found when a finding in its file covers the line with an accepted CWE (itself, a
 * direct parent or child); a safe line is a false alarm when one does. Findings on unlabelled
 * lines are counted apart (they are neither right nor wrong until someone labels them).
 */
import { cp, mkdir, readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countOutcomes, peerLanguage, scorePeerLabels, type LabelOutcome, type PeerCounts, type PeerLabel } from "./peer";
import { cweNumber } from "./cwe";
import { scanTree, type ScanResult } from "./scan";

export const APPS_DIR = join(dirname(fileURLToPath(import.meta.url)), "apps");
/** The held-out applications: written blind, never read by anyone tuning detection. */
export const HELD_APPS_DIR = join(dirname(fileURLToPath(import.meta.url)), "apps-held");

export interface AppResult {
  app: string;
  files: number;
  counts: PeerCounts;
  /** Findings on no labelled line (file:line rule); empty when withoutLines() dropped them. */
  unlabelled: string[];
  unlabelledCount: number;
  /** Labels missed and false alarms, for the report. */
  missed: string[];
  falseAlarms: string[];
  scanMs: number;
}

interface RawAppLabel {
  file?: unknown;
  line?: unknown;
  cwe?: unknown;
  label?: unknown;
}

/** labels.json (an array, or `{ labels: [...] }`) → labels; throws naming the entry that is malformed. */
export function parseAppLabels(app: string, text: string): PeerLabel[] {
  const parsed = JSON.parse(text) as unknown;
  const list = (Array.isArray(parsed) ? parsed : (parsed as { labels?: unknown }).labels) as RawAppLabel[] | undefined;
  if (!Array.isArray(list)) throw new Error(`${app}/labels.json: expected an array of labels or { "labels": [...] }`);
  return list.map((r, i) => {
    const cwes = (Array.isArray(r.cwe) ? r.cwe : [r.cwe]).map((c) => cweNumber(c as string)).filter((n): n is number => n !== null);
    const vulnerable = r.label === "vulnerable" || r.label === true;
    if (
      typeof r.file !== "string" ||
      typeof r.line !== "number" ||
      cwes.length === 0 ||
      !(vulnerable || r.label === "safe" || r.label === false)
    )
      throw new Error(`${app}/labels.json entry ${i}: needs file, line, cwe and label (vulnerable|safe)`);
    return {
      source: app,
      file: r.file,
      language: peerLanguage(r.file),
      line: r.line,
      endLine: null,
      cwes,
      vulnerable,
      rule: "",
      kind: "line",
      count: 1,
    };
  });
}

const where = (o: LabelOutcome) => `${o.label.file}:${o.label.line} CWE-${o.label.cwes.join("/CWE-")}`;

/** Copies one application (without its labels.json) under `scratch` and scans it; findings' paths are relative to `root`. */
export async function scanApp(
  app: string,
  appsDir: string,
  scratch: string,
): Promise<{ root: string; labels: PeerLabel[]; scan: ScanResult }> {
  const root = join(scratch, "apps", app);
  await mkdir(root, { recursive: true });
  await cp(join(appsDir, app), root, { recursive: true, filter: (src) => !src.endsWith("labels.json") });
  const labels = parseAppLabels(app, await readFile(join(appsDir, app, "labels.json"), "utf8"));
  return { root, labels, scan: await scanTree(root) };
}

async function runApp(app: string, appsDir: string, scratch: string): Promise<AppResult> {
  const { labels, scan } = await scanApp(app, appsDir, scratch);
  const outcomes = scorePeerLabels(labels, scan.findings);
  const labelled = new Set(labels.map((l) => `${l.file}:${l.line}`));
  const unlabelled = scan.findings
    .filter(
      (f) => ![...Array((f.end_line ?? f.start_line) - f.start_line + 1).keys()].some((d) => labelled.has(`${f.file}:${f.start_line + d}`)),
    )
    .map((f) => `${f.file}:${f.start_line} ${f.rule_id} (${f.cwe_id ?? "no CWE"})`);
  return {
    app,
    files: new Set(labels.map((l) => l.file)).size,
    counts: countOutcomes(outcomes),
    unlabelled,
    unlabelledCount: unlabelled.length,
    missed: outcomes.filter((o) => o.label.vulnerable && o.matches.length === 0).map(where),
    falseAlarms: outcomes.filter((o) => !o.label.vulnerable && o.matches.length > 0).map(where),
    scanMs: Math.round(scan.durationMs),
  };
}

export async function runApps(opts: { scratch: string; log: (m: string) => void; dir?: string }): Promise<AppResult[]> {
  const dir = opts.dir ?? APPS_DIR;
  const apps = (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  const out: AppResult[] = [];
  for (const app of apps.sort()) {
    opts.log(`apps: scanning ${app}`);
    out.push(await runApp(app, dir, opts.scratch));
  }
  return out;
}

/** The result with its counts only: no missed line, false alarm or unlabelled finding is named (held-out apps). */
export function withoutLines(r: AppResult): AppResult {
  return { ...r, unlabelled: [], missed: [], falseAlarms: [] };
}

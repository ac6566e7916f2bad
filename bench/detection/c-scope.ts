/**
 * Which CWEs the C/C++ analyzers can report: their own catalogs (`cppcheck --errorlist`,
 * `flawfinder --listrules`), passed through the scanner's CWE normalization so the ids are
 * the ones findings carry. A Juliet C/C++ CWE is in scope when one of these is accepted for it.
 */
import { spawnSync } from "node:child_process";
import { normalizeCwe } from "@ax/scanner";
import { cweNumber } from "./cwe";

export interface ToolCatalog {
  tool: string;
  cwes: number[];
  /** Why the catalog is empty, when it is. */
  notice?: string;
}

function run(cmd: string, args: string[]): string | null {
  const r = spawnSync(cmd, args, { encoding: "utf8", maxBuffer: 32 * 1024 * 1024, timeout: 60_000 });
  return r.status === 0 ? r.stdout : null;
}

/** The severities the scanner's cppcheck adapter enables (`--enable=warning,style,portability`; errors always). */
export const CPPCHECK_SEVERITIES = new Set(["error", "warning", "style", "portability"]);

export function cppcheckCatalog(): ToolCatalog {
  const out = run("cppcheck", ["--errorlist"]);
  if (out === null) return { tool: "cppcheck", cwes: [], notice: "cppcheck --errorlist failed or cppcheck is not installed" };
  const cwes = new Set<number>();
  for (const m of out.matchAll(/<error\s[^>]*>/g)) {
    const tag = m[0];
    const id = /\sid="([^"]+)"/.exec(tag)?.[1];
    const severity = /\sseverity="([^"]+)"/.exec(tag)?.[1];
    const cwe = /\scwe="(\d+)"/.exec(tag)?.[1];
    if (!id || !cwe || !CPPCHECK_SEVERITIES.has(severity ?? "")) continue;
    const n = cweNumber(normalizeCwe("cppcheck", id, `CWE-${cwe}`));
    if (n !== null) cwes.add(n);
  }
  return { tool: "cppcheck", cwes: [...cwes].sort((a, b) => a - b) };
}

/** Rules at or above `minLevel` (the adapter's --minlevel, read from its AnalyzerRun version). */
export function flawfinderCatalog(minLevel: number): ToolCatalog {
  const out = run("flawfinder", ["--listrules"]);
  if (out === null) return { tool: "flawfinder", cwes: [], notice: "flawfinder --listrules failed or flawfinder is not installed" };
  const cwes = new Set<number>();
  for (const line of out.split("\n")) {
    const [name, level, text] = line.split("\t");
    if (!name || !text || Number(level) < minLevel) continue;
    // "(CWE-119!/CWE-120)": the marked CWE is the primary one, as in the adapter.
    const tokens = [...text.matchAll(/CWE-\d+!?/g)].map((t) => t[0]);
    const primary = (tokens.find((t) => t.endsWith("!")) ?? tokens[0] ?? "").replace("!", "") || null;
    const reported = primary;
    const n = cweNumber(normalizeCwe("flawfinder", name, reported));
    if (n !== null) cwes.add(n);
  }
  return { tool: "flawfinder", cwes: [...cwes].sort((a, b) => a - b), notice: `rules with level >= ${minLevel}` };
}

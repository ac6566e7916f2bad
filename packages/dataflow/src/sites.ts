/**
 * Sink sites: every place where the analysis checked a sink's dangerous arguments, and what
 * it found there when nothing tainted reached it. The scanner uses them to refute a pattern
 * finding at a sink the analysis read and found clean (see docs/dataflow.md, "Refuted
 * findings"); a finding at a place the analysis never judged keeps its pattern verdict.
 *
 * What a site can be, once the whole program is analysed:
 * - tainted: a source fact reached it (it is a trace, not a site);
 * - clean: every evaluation found its dangerous arguments constant, sanitized for its CWE or
 *   made of values with no untrusted origin, and every parameter it depends on is filled by
 *   callers in the repository that pass nothing tainted;
 * - open: it depends on something the analysis cannot see — a parameter of a function that
 *   nothing in the repository calls (a library entry point, a callback a framework calls), a
 *   field read where callers fill it, or an expression the lowering could not read.
 */
import type { Expr, Loc } from "./ir";
import type { SinkRule } from "./spec";
import type { Value } from "./values";

/** Why a clean evaluation was clean, in the terms a reviewer reads. */
export type CleanReason = "constant" | "sanitized" | "untainted" | "callers" | "configured";

/** Why an open site could not be judged. */
export type OpenReason = "entry-parameter" | "unreadable-code";

export interface SiteEvaluation {
  file: string;
  loc: Loc;
  rule: SinkRule;
  /** Clean reasons seen in this function's evaluations of the site. */
  clean: Set<CleanReason>;
  /** The site's value depends on the function's parameters or fields: judged by its callers. */
  dependent: boolean;
  /** An argument expression holds code the lowering could not read. */
  unreadable: boolean;
}

/** A sink place the analysis judged, with no tainted path: what the engine reports besides traces. */
export interface SinkSite {
  file: string;
  start_line: number;
  end_line: number;
  rule_id: string;
  cwe_id: string;
  status: "clean" | "open";
  reasons: (CleanReason | OpenReason)[];
}

export function siteKey(file: string, loc: Loc, ruleId: string): string {
  return `${file}:${loc.line}:${loc.column}:${ruleId}`;
}

/** Records one evaluation of a sink's dangerous values into `sites` (per interpretation). */
export function recordSite(
  sites: Map<string, SiteEvaluation>,
  at: { file: string; loc: Loc; rule: SinkRule },
  values: readonly Value[],
  exprs: readonly (Expr | undefined)[],
  clean?: CleanReason,
): void {
  const key = siteKey(at.file, at.loc, at.rule.id);
  let site = sites.get(key);
  if (!site) sites.set(key, (site = { ...at, clean: new Set(), dependent: false, unreadable: false }));
  const cwe = at.rule.cwe;
  for (const e of exprs) if (e && hasUnknown(e)) site.unreadable = true;
  for (const v of values) {
    const live = v.facts.filter((f) => !f.clean.has(cwe));
    if (live.some((f) => f.origin.kind !== "source")) site.dependent = true;
    if (live.length) continue;
    if (v.facts.length) site.clean.add("sanitized");
    else site.clean.add(v.konst ? "constant" : "untainted");
  }
  if (clean) site.clean.add(clean);
  else if (!values.length) site.clean.add("untainted");
}

function hasUnknown(e: Expr, depth = 0): boolean {
  if (depth > 12) return false;
  switch (e.k) {
    case "unknown":
      return true;
    case "call":
      return [...(e.receiver ? [e.receiver] : []), ...e.args, ...Object.values(e.kwargs ?? {})].some((p) => hasUnknown(p, depth + 1));
    case "new":
      return e.args.some((p) => hasUnknown(p, depth + 1));
    case "binary":
      return hasUnknown(e.left, depth + 1) || hasUnknown(e.right, depth + 1);
    case "unary":
    case "cast":
      return hasUnknown(e.arg, depth + 1);
    case "cond":
      return [e.test, e.then, e.else].some((p) => hasUnknown(p, depth + 1));
    case "index":
      return hasUnknown(e.object, depth + 1) || hasUnknown(e.index, depth + 1);
    case "field":
      return hasUnknown(e.object, depth + 1);
    case "array":
      return e.items.some((p) => hasUnknown(p, depth + 1));
    case "object":
      return e.entries.some((p) => hasUnknown(p.value, depth + 1));
    case "template":
      return e.parts.some((p) => hasUnknown(p, depth + 1));
    default:
      return false;
  }
}

/**
 * The sites of a whole analysis: each evaluated place with no hit, clean or open. `open`
 * holds the keys of sites some entry point's summary still depends on (a parameter or field
 * the repository's callers do not fill).
 */
export function judgeSites(evaluations: Iterable<SiteEvaluation>, tainted: ReadonlySet<string>, open: ReadonlySet<string>): SinkSite[] {
  const merged = new Map<string, SiteEvaluation>();
  for (const e of evaluations) {
    const key = siteKey(e.file, e.loc, e.rule.id);
    const old = merged.get(key);
    if (!old) merged.set(key, { ...e, clean: new Set(e.clean) });
    else {
      for (const r of e.clean) old.clean.add(r);
      old.dependent ||= e.dependent;
      old.unreadable ||= e.unreadable;
    }
  }
  const out: SinkSite[] = [];
  for (const [key, e] of merged) {
    if (tainted.has(key)) continue;
    const reasons: SinkSite["reasons"] = [];
    if (open.has(key)) reasons.push("entry-parameter");
    if (e.unreadable) reasons.push("unreadable-code");
    const status = reasons.length ? "open" : "clean";
    if (status === "clean") reasons.push(...e.clean, ...(e.dependent ? (["callers"] as const) : []));
    out.push({
      file: e.file,
      start_line: e.loc.line,
      end_line: e.loc.endLine,
      rule_id: e.rule.id,
      cwe_id: e.rule.cwe,
      status,
      reasons: [...new Set(reasons)],
    });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.start_line - b.start_line || a.rule_id.localeCompare(b.rule_id));
}

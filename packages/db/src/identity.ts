/**
 * Which earlier finding a new one is (docs/scanning.md "Finding identity and triage"). A scan's
 * findings are matched to the reference findings of earlier scans in stages, each stage only
 * among what the earlier ones left unmatched:
 *
 * 1. Git's line mapping between the two commits (diff with rename detection): the earlier
 *    finding's line, where it still exists unchanged, is where the same finding must be — same
 *    rule, same matched code, and the same enclosing declaration or surrounding lines (git
 *    aligns identical lines, and may align one with its copy in another function). This is what keeps a decision on its line when identical code is
 *    pasted above it, or when the upper of two identical lines is removed.
 * 2. Rule + normalized code + enclosing declarations + surrounding lines, in the same (renamed)
 *    file, then in any file (a function moved to another file).
 * 3. Rule + code + enclosing declarations in the same file (the lines around it were edited),
 *    then in any file when it has enclosing declarations (a short function moved to another
 *    file, whose first or last lines border other code there).
 * 4. Only when git could not map the earlier commit (it is gone from the remote, or the finding
 *    predates locators): rule + code in the same file, then the old fingerprint.
 *
 * Within one group of equal keys, findings pair in the order of their lines: an occurrence
 * index is only the last tie-breaker within one context, never the identity itself.
 */
import { mapLine, type CommitLineMap, type FindingLocator } from "@ax/contracts";

export interface Locatable {
  rule_id: string;
  file: string;
  start_line: number;
  locator: FindingLocator | null | undefined;
  fingerprint: string;
}

export interface PriorLocatable extends Locatable {
  /** The commit of the scan it was found in (null: unknown, only content can match it). */
  commit: string | null;
}

/**
 * For each new finding (by index), the index of the earlier finding it is, or null. `strict`
 * (another branch's findings): only git's line mapping and the stages that include the
 * surrounding lines — the looser stages serve edits within one history, and across branches
 * they would pair two independent additions of the same code to one function.
 */
export function matchFindings(prior: readonly PriorLocatable[], next: readonly Locatable[], commit: string | null, maps: readonly CommitLineMap[], strict = false): (number | null)[] {
  const result: (number | null)[] = next.map(() => null);
  const priorTaken = new Array<boolean>(prior.length).fill(false);
  const mapFrom = new Map(maps.filter((m) => m.to === commit).map((m) => [m.from, m]));
  // Where git puts each earlier finding's line in the new commit; undefined: no mapping known.
  const placed = prior.map((p) => {
    if (p.commit === null || commit === null) return undefined;
    if (p.commit === commit) return { file: p.file, line: p.start_line };
    const map = mapFrom.get(p.commit);
    return map ? mapLine(map, p.file, p.start_line) : undefined;
  });
  // The earlier finding's file in the new commit (renamed), when git says.
  const fileNow = prior.map((p, i) => {
    const at = placed[i];
    if (at) return at.file;
    const map = p.commit !== null ? mapFrom.get(p.commit) : undefined;
    const entry = map && Object.hasOwn(map.files, p.file) ? map.files[p.file] : undefined;
    return entry ? entry.path : p.file;
  });

  // 1. Git's line mapping.
  const at = new Map<string, number[]>();
  next.forEach((n, j) => push(at, `${n.rule_id}\0${n.file}\0${n.start_line}`, j));
  prior.forEach((p, i) => {
    const where = placed[i];
    if (!where) return;
    const j = at.get(`${p.rule_id}\0${where.file}\0${where.line}`)?.find((k) => result[k] === null && sameCode(p, next[k] as Locatable));
    if (j === undefined) return;
    result[j] = i;
    priorTaken[i] = true;
  });

  const code = (f: Locatable) => f.locator?.code ?? null;
  const stages: { key: (f: Locatable, file: string) => string | null; prior?: (i: number) => boolean }[] = [
    { key: (f, file) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, f.locator.context, file].join("\0") : null) },
    { key: (f) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, f.locator.context].join("\0") : null) },
    { key: (f, file) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, file].join("\0") : null) },
    { key: (f) => (f.locator?.scope ? [f.rule_id, f.locator.code, f.locator.scope].join("\0") : null) },
    { key: (f, file) => (code(f) !== null ? [f.rule_id, code(f), file].join("\0") : null), prior: (i) => placed[i] === undefined },
    { key: (f) => f.fingerprint, prior: (i) => placed[i] === undefined && !prior[i]?.locator },
  ];
  for (const stage of strict ? stages.slice(0, 2) : stages) {
    const groups = new Map<string, { prior: number[]; next: number[] }>();
    prior.forEach((p, i) => {
      if (priorTaken[i] || (stage.prior && !stage.prior(i))) return;
      const key = stage.key(p, fileNow[i] as string);
      if (key !== null) group(groups, key).prior.push(i);
    });
    next.forEach((n, j) => {
      if (result[j] !== null) return;
      const key = stage.key(n, n.file);
      if (key !== null && groups.has(key)) group(groups, key).next.push(j);
    });
    for (const g of groups.values()) {
      // In line order on both sides: the only place an occurrence index decides anything.
      const ps = g.prior.sort((a, b) => order(prior[a] as Locatable, prior[b] as Locatable));
      const ns = g.next.sort((a, b) => order(next[a] as Locatable, next[b] as Locatable));
      for (let k = 0; k < Math.min(ps.length, ns.length); k++) {
        result[ns[k] as number] = ps[k] as number;
        priorTaken[ps[k] as number] = true;
      }
    }
  }
  return result;
}

/**
 * The same matched code, in the same enclosing declaration or between the same lines, when
 * both findings know theirs. Git's diff aligns identical lines, not findings: its minimal
 * alignment can keep a line of a function whose other lines it deletes, and call it the
 * identical line pasted into another function.
 */
function sameCode(a: Locatable, b: Locatable): boolean {
  if (!a.locator || !b.locator) return true;
  return a.locator.code === b.locator.code && (a.locator.scope === b.locator.scope || a.locator.context === b.locator.context);
}

function order(a: Locatable, b: Locatable): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.start_line - b.start_line;
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function group(groups: Map<string, { prior: number[]; next: number[] }>, key: string) {
  let g = groups.get(key);
  if (!g) {
    g = { prior: [], next: [] };
    groups.set(key, g);
  }
  return g;
}

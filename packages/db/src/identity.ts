/**
 * Which earlier finding a new one is (docs/scanning.md "Finding identity and triage"). A scan's
 * findings are matched to the reference findings of earlier scans in stages, each stage only
 * among what the earlier ones left unmatched:
 *
 * 0. Rule + code + enclosing declarations + surrounding lines in the same (renamed) file, where
 *    exactly one earlier and one new finding have them: content alone says they are one.
 * 1. Git's line mapping between the two commits (diff with rename detection): the earlier
 *    finding's line, where it still exists unchanged, is where the same finding must be — same
 *    rule, same matched code, and the same enclosing declaration or surrounding lines (git
 *    aligns identical lines, and may align one with its copy in another function), unless
 *    another identical line keeps more of its surroundings. This is what keeps a decision on its
 *    line when identical code is pasted above it, or when the upper of two identical lines is
 *    removed.
 * 2. Rule + normalized code + enclosing declarations + surrounding lines, in the same (renamed)
 *    file, then in any file (a function moved to another file).
 * 3. Rule + code + enclosing declarations in the same file (the lines around it were edited),
 *    then in any file when it has enclosing declarations (a short function moved to another
 *    file, whose first or last lines border other code there).
 * 4. Only when git could not map the earlier commit (it is gone from the remote, or the finding
 *    predates locators): rule + code in the same file, then the old fingerprint.
 *
 * Within one group of equal keys, findings pair by the surroundings they share, then nearest to
 * where git puts the earlier one's neighbourhood, then in the order of their lines: an
 * occurrence index is only the last tie-breaker, never the identity itself.
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
export function matchFindings(
  prior: readonly PriorLocatable[],
  next: readonly Locatable[],
  commit: string | null,
  maps: readonly CommitLineMap[],
  strict = false,
): (number | null)[] {
  const matching = new Matching(prior, next, commit, maps);
  matching.matchUnique();
  matching.matchByGit();
  matching.matchByKeys(strict);
  return matching.result;
}

type Place = { file: string; line: number };
type Key = (f: Locatable, file: string) => string | null;

const fullKey: Key = (f, file) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, f.locator.context, file].join("\0") : null);
const code = (f: Locatable) => f.locator?.code ?? null;

/** One matching of new findings to earlier ones: each stage only among what the earlier left. */
class Matching {
  readonly result: (number | null)[];
  private readonly priorTaken: boolean[];
  /** Where git puts each earlier finding's line in the new commit (null: not kept); undefined: no mapping known. */
  private readonly placed: (Place | null | undefined)[];
  /** The earlier finding's file in the new commit (renamed), when git says. */
  private readonly fileNow: string[];
  /**
   * Where git puts each earlier finding's neighbourhood (the nearest mapped line above it),
   * for a finding whose own line git did not keep: the tie-break among identical candidates.
   */
  private readonly near: (Place | undefined)[];

  constructor(
    private readonly prior: readonly PriorLocatable[],
    private readonly next: readonly Locatable[],
    commit: string | null,
    maps: readonly CommitLineMap[],
  ) {
    this.result = next.map(() => null);
    this.priorTaken = new Array<boolean>(prior.length).fill(false);
    const mapFrom = new Map(maps.filter((m) => m.to === commit).map((m) => [m.from, m]));
    const mapOf = (p: PriorLocatable) => (p.commit !== null ? mapFrom.get(p.commit) : undefined);
    this.placed = prior.map((p) => {
      if (p.commit === null || commit === null) return undefined;
      if (p.commit === commit) return { file: p.file, line: p.start_line };
      const map = mapFrom.get(p.commit);
      return map ? mapLine(map, p.file, p.start_line) : undefined;
    });
    this.fileNow = prior.map((p, i) => {
      const at = this.placed[i];
      if (at) return at.file;
      const map = mapOf(p);
      const entry = map && Object.hasOwn(map.files, p.file) ? map.files[p.file] : undefined;
      return entry ? entry.path : p.file;
    });
    this.near = prior.map((p, i) => {
      if (this.placed[i]) return this.placed[i];
      const map = mapOf(p);
      if (!map) return undefined;
      for (let above = p.start_line - 1; above >= Math.max(1, p.start_line - NEAR_LINES); above--) {
        const to = mapLine(map, p.file, above);
        if (to) return { file: to.file, line: to.line + (p.start_line - above) };
      }
      return undefined;
    });
  }

  private take(i: number, j: number): void {
    this.result[j] = i;
    this.priorTaken[i] = true;
  }

  /**
   * 0. The same code, between the same lines, in the same enclosing declaration and file, where
   * exactly one earlier and one new finding have it: content alone says they are one. Before
   * git's alignment, which pairs identical lines by a minimal edit, not by where they stand.
   */
  matchUnique(): void {
    for (const g of this.groupsBy(fullKey)) {
      if (g.prior.length !== 1 || g.next.length !== 1) continue;
      this.take(g.prior[0] as number, g.next[0] as number);
    }
  }

  /** 1. Git's line mapping. */
  matchByGit(): void {
    const { prior, next, result } = this;
    const at = new Map<string, number[]>();
    next.forEach((n, j) => push(at, `${n.rule_id}\0${n.file}\0${n.start_line}`, j));
    prior.forEach((p, i) => {
      const where = this.placed[i];
      if (!where || this.priorTaken[i]) return;
      const j = at.get(`${p.rule_id}\0${where.file}\0${where.line}`)?.find((k) => result[k] === null && sameCode(p, next[k] as Locatable));
      if (j === undefined) return;
      // Git aligns identical lines by a minimal edit: when another identical line in that file
      // keeps more of this finding's surroundings than the one git chose, git's choice is not
      // trusted, and the stages below decide.
      const own = affinity(p, next[j] as Locatable);
      const better = next.some(
        (n, k) =>
          k !== j && result[k] === null && n.rule_id === p.rule_id && n.file === where.file && sameCode(p, n) && affinity(p, n) > own,
      );
      if (better) return;
      this.take(i, j);
    });
  }

  /** 2–4. Keys of decreasing strictness; `strict`: only those with the surrounding lines. */
  matchByKeys(strict: boolean): void {
    const unplaced = (i: number) => this.placed[i] === undefined;
    const stages: { key: Key; prior?: (i: number) => boolean }[] = [
      { key: fullKey },
      { key: (f) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, f.locator.context].join("\0") : null) },
      { key: (f, file) => (f.locator ? [f.rule_id, f.locator.code, f.locator.scope, file].join("\0") : null) },
      { key: (f) => (f.locator?.scope ? [f.rule_id, f.locator.code, f.locator.scope].join("\0") : null) },
      { key: (f, file) => (code(f) !== null ? [f.rule_id, code(f), file].join("\0") : null), prior: unplaced },
      { key: (f) => f.fingerprint, prior: (i) => unplaced(i) && !this.prior[i]?.locator },
    ];
    for (const stage of strict ? stages.slice(0, 2) : stages) {
      for (const g of this.groupsBy(stage.key, stage.prior)) {
        for (const [i, j] of this.pairGroup(g.prior, g.next)) this.take(i, j);
      }
    }
  }

  /** The untaken earlier findings and the unmatched new ones, by key (new ones only under keys an earlier one has). */
  private groupsBy(key: Key, priorOk?: (i: number) => boolean) {
    const groups = new Map<string, { prior: number[]; next: number[] }>();
    this.prior.forEach((p, i) => {
      if (this.priorTaken[i] || (priorOk && !priorOk(i))) return;
      const k = key(p, this.fileNow[i] as string);
      if (k !== null) group(groups, k).prior.push(i);
    });
    this.next.forEach((n, j) => {
      if (this.result[j] !== null) return;
      const k = key(n, n.file);
      if (k !== null && groups.has(k)) group(groups, k).next.push(j);
    });
    return groups.values();
  }

  /**
   * Identical candidates are paired nearest first to where git puts each earlier finding's
   * neighbourhood, when it places all of them; else in line order on both sides (the only place
   * an occurrence index decides anything).
   */
  private pairGroup(ps: number[], ns: number[]): [number, number][] {
    const { prior, next, near } = this;
    const byLine = (list: readonly Locatable[]) => (a: number, b: number) => order(list[a] as Locatable, list[b] as Locatable);
    ps.sort(byLine(prior));
    ns.sort(byLine(next));
    if (ps.length === 1 && ns.length === 1) return [[ps[0] as number, ns[0] as number]];
    // Without git's placement of every earlier one, distance says nothing: line order decides ties.
    const placedAll = ps.every((i) => near[i] !== undefined);
    const distance = (i: number, j: number) => {
      const at = near[i];
      const n = next[j] as Locatable;
      if (!placedAll || !at) return 0;
      return at.file === n.file ? Math.abs(at.line - n.start_line) : Number.MAX_SAFE_INTEGER;
    };
    const pairs = ps.flatMap((i, pi) =>
      ns.map((j, nj) => ({ i, j, a: affinity(prior[i] as Locatable, next[j] as Locatable), d: distance(i, j), rank: pi + nj })),
    );
    pairs.sort((a, b) => b.a - a.a || a.d - b.d || a.rank - b.rank);
    const usedP = new Set<number>();
    const usedN = new Set<number>();
    const out: [number, number][] = [];
    for (const { i, j } of pairs) {
      if (usedP.has(i) || usedN.has(j)) continue;
      usedP.add(i);
      usedN.add(j);
      out.push([i, j]);
    }
    return out;
  }
}

/** How many sides of a finding's surroundings (lines above, lines below) another finding shares: 0, 1 or 2. */
function affinity(a: Locatable, b: Locatable): number {
  if (!a.locator || !b.locator) return 0;
  if (a.locator.context === b.locator.context) return 2;
  const side = (x: string | undefined, y: string | undefined) => (x !== undefined && x === y ? 1 : 0);
  return side(a.locator.before, b.locator.before) + side(a.locator.after, b.locator.after);
}

/** How far above a finding whose line git did not keep a kept line is looked for. */
const NEAR_LINES = 50;

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

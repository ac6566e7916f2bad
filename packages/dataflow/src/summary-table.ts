/**
 * The summaries of the engine's rounds (engine.ts): the table a round's interpretations read,
 * and the updates of the functions it interpreted, applied once the round is over. A round
 * costs what it interprets: only the keys it updated are compared, never the whole table
 * (which, on a repository of a million lines, is most of the cost of the late rounds that
 * interpret a few functions each).
 */
import { identical } from "./memo";
import type { Summary } from "./summary";
import { originKey } from "./values";

export interface RoundChange {
  /** Every summary as it was, by the rounds' test of a fixed point (`sameSummary`), and none returns NaN. */
  same: boolean;
  /** Keys whose summary is not identical to what it was (what a reader may see differently). */
  changed: Set<string>;
}

export class SummaryTable {
  readonly current = new Map<string, Summary>();
  /** Keys whose summary returns a NaN constant: NaN !== NaN, so a table holding one is never the same as before. */
  private readonly nan = new Set<string>();

  /** Applies a round's summaries; `changed` is only filled when `track`. */
  update(updates: ReadonlyMap<string, Summary>, track: boolean): RoundChange {
    let same = true;
    const changed = new Set<string>();
    for (const [key, summary] of updates) {
      const old = this.current.get(key);
      if (!old || !sameSummary(old, summary)) same = false;
      if (track && !identical(old, summary)) changed.add(key);
      this.current.set(key, summary);
      if (Number.isNaN(summary.ret.konst?.v)) this.nan.add(key);
      else this.nan.delete(key);
    }
    return { same: same && this.nan.size === 0, changed };
  }
}

/** The rounds' test of a fixed point: the same sinks, returned facts (by origin and cleaning), constant and field writes, by count. */
export function sameSummary(o: Summary, s: Summary): boolean {
  // The same summary, kept from an earlier round: the same answer as comparing it, which is
  // "changed" only for a NaN constant (NaN !== NaN).
  if (o === s) return !Number.isNaN(o.ret.konst?.v);
  if (o.sinks.length !== s.sinks.length || o.ret.facts.length !== s.ret.facts.length || o.ret.konst?.v !== s.ret.konst?.v) return false;
  if (o.fieldWrites.length !== s.fieldWrites.length || o.fieldWrites.some((w, i) => w.facts.length !== s.fieldWrites[i]?.facts.length))
    return false;
  const facts = (x: Summary) =>
    x.ret.facts
      .map((f) => originKey(f.origin) + [...f.clean].join())
      .sort()
      .join("|");
  return facts(o) === facts(s);
}

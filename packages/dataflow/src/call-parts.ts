/** A call as the rules that judge it see it (typestate.ts, source-policy.ts): its IR and its evaluated parts. */
import type { Expr } from "./ir";
import type { Value } from "./values";

export interface CallParts {
  e: Extract<Expr, { k: "call" }>;
  receiver: Value | null;
  args: readonly Value[];
  kwargs: ReadonlyMap<string, Value>;
}

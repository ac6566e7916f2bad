/**
 * The interpreter's side of closures (closures.ts): a captured name read inside a closure is
 * an implicit parameter `closure::name`; where a closure is created, or called, the enclosing
 * function's value of the name fills it in, and the closure's sinks on it are reported there.
 */
import type { Loc } from "./ir";
import { CAPTURE, closureOf } from "./closures";
import type { Env } from "./fold";
import { CallInterpreter } from "./interp-calls";
import { appendSteps, EMPTY, type Value } from "./values";

export abstract class ClosureInterpreter extends CallInterpreter {
  /** A name this closure captures from an enclosing function, as an implicit parameter. */
  protected captured(name: string, loc: Loc): Value | undefined {
    if (!this.fn.captures?.includes(name)) return undefined;
    const key = CAPTURE + name;
    return { facts: [{ origin: { kind: "field", key }, steps: [this.step(loc, "step", `captured \`${name}\``)], clean: new Set() }] };
  }

  protected override readKey(key: string, env: Env, loc: Loc): Value {
    if (!key.startsWith(CAPTURE)) return super.readKey(key, env, loc);
    const name = key.slice(CAPTURE.length);
    return env.get(name) ?? this.captured(name, loc) ?? EMPTY;
  }

  /**
   * A closure created here (a function literal, or an inner function named as a value): what
   * its sinks do with the names it captures happens with their values here.
   */
  protected closure(name: string, loc: Loc | null, env: Env): Value {
    const ref = closureOf(this.s.program, this.module, this.fn, name, loc);
    const summary = ref ? this.s.summaries.get(ref.key) : undefined;
    if (!ref || !summary) return EMPTY;
    const at = loc ?? this.at;
    for (const sink of summary.sinks) {
      if (typeof sink.param !== "string" || !sink.param.startsWith(CAPTURE)) continue;
      const by = ref.fn.name.startsWith("<") ? "a function literal" : `\`${ref.fn.name}\``;
      const step = this.step(at, "call", `\`${sink.param.slice(CAPTURE.length)}\` captured by ${by}`);
      for (const fact of this.readKey(sink.param, env, at).facts) {
        if (fact.clean.has(sink.rule.cwe)) continue;
        this.report({ ...appendSteps(fact, [step]), steps: [...fact.steps, step] }, sink.rule, sink.file, sink.loc, sink.steps);
      }
    }
    return EMPTY;
  }
}
